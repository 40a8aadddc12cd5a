#include "failure-helper.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FailureHelper");

namespace
{
using Role = FabricTopology::Role;
using Medium = FabricTopology::Medium;

bool
IsSwitch(Role r)
{
    return r == Role::Leaf || r == Role::Spine || r == Role::Core;
}

/** The hosts at the ends of \p link. */
std::vector<uint32_t>
HostsOf(const FabricTopology& t, uint32_t link)
{
    std::vector<uint32_t> hosts;
    for (uint32_t end : {t.GetLink(link).a, t.GetLink(link).b})
    {
        if (t.GetNode(end).role == Role::Host)
        {
            hosts.push_back(t.HostIdOf(end));
        }
    }
    return hosts;
}

/** \p x as text that parses back to the same double. */
std::string
Exact(double x)
{
    std::ostringstream os;
    os << std::setprecision(17) << x;
    return os.str();
}

bool
Touches(const std::vector<uint32_t>& hosts, const std::set<uint32_t>& job)
{
    return std::any_of(hosts.begin(), hosts.end(), [&](uint32_t h) { return job.count(h) > 0; });
}
} // namespace

const std::vector<std::string>&
FailureHelper::Kinds()
{
    static const std::vector<std::string> kinds{"link", "transceiver", "nic",
                                                "switch", "server", "gpu"};
    return kinds;
}

std::string
FailureHelper::CanonicalName(const FabricTopology& t, const std::string& name)
{
    // A transceiver is "<link> at <node>": the link part is named either way.
    const auto at = name.find(" at ");
    const std::string link = name.substr(0, at);
    const std::string tail = at == std::string::npos ? "" : name.substr(at);
    static const std::string prefix = "link ";
    if (link.rfind(prefix, 0) == 0)
    {
        const std::string number = link.substr(prefix.size());
        if (!number.empty() && number.size() <= 9 &&
            number.find_first_not_of("0123456789") == std::string::npos &&
            std::stoul(number) < t.Links().size())
        {
            return t.LinkName(std::stoul(number)) + tail; // a link by its id
        }
        return name;
    }
    if (const std::optional<uint32_t> l = t.FindLink(link))
    {
        return t.LinkName(*l) + tail; // by its ends, in either order
    }
    return name;
}

namespace
{
/** Stop each of \p jobs with a rank on one of \p hosts: a GPU or server of it failed. */
void
StopJobsOn(std::vector<Ptr<TrainingJob>> jobs, std::vector<uint32_t> hosts,
           const ComponentFailureProcess::Failure& f)
{
    for (const auto& job : jobs)
    {
        for (uint32_t r = 0; r < job->GetNRanks(); ++r)
        {
            if (std::find(hosts.begin(), hosts.end(), job->GetHost(r)) != hosts.end())
            {
                job->Interrupt(f.kind + " " + f.component + " failed");
                break;
            }
        }
    }
}
} // namespace

void
FailureHelper::InterruptJobs(const std::vector<Ptr<TrainingJob>>& jobs) const
{
    for (const Installed& i : m_installed)
    {
        if (i.component->kind == "gpu" || i.component->kind == "server")
        {
            i.process->TraceConnectWithoutContext(
                "Failed",
                MakeBoundCallback(&StopJobsOn, jobs, i.component->hosts));
        }
    }
}

std::vector<FailureHelper::Component>
FailureHelper::Components(const FabricTopology& t, const std::string& kind)
{
    std::vector<Component> out;
    if (kind == "link" || kind == "transceiver")
    {
        for (uint32_t l = 0; l < t.Links().size(); ++l)
        {
            const auto& link = t.GetLink(l);
            if (link.medium == Medium::NvLink || (kind == "transceiver" && link.medium != Medium::Optical))
            {
                continue;
            }
            const std::string name = t.LinkName(l);
            if (kind == "link")
            {
                out.push_back({name, kind, {l}, HostsOf(t, l)});
                continue;
            }
            for (uint32_t end : {link.a, link.b})
            {
                out.push_back({name + " at " + t.GetNode(end).name, kind, {l}, HostsOf(t, l)});
            }
        }
    }
    else if (kind == "nic")
    {
        // A GPU's NIC is one part: its scale-out ports (one per plane of a multi-plane fabric)
        // fail together.  Named by its first port.
        for (uint32_t h = 0; h < t.GetNHosts(); ++h)
        {
            const auto& node = t.GetNode(t.HostNode(h));
            Component nic;
            for (uint32_t port = 0; port < node.links.size(); ++port)
            {
                const uint32_t l = node.links[port];
                if (t.GetLink(l).medium != Medium::NvLink)
                {
                    if (nic.links.empty())
                    {
                        nic = {node.name + " nic " + std::to_string(port), kind, {}, {h}};
                    }
                    nic.links.push_back(l);
                }
            }
            if (!nic.links.empty())
            {
                out.push_back(nic);
            }
        }
    }
    else if (kind == "switch")
    {
        for (uint32_t n = 0; n < t.GetNNodes(); ++n)
        {
            const auto& node = t.GetNode(n);
            if (!IsSwitch(node.role))
            {
                continue;
            }
            Component c{node.name, kind, node.links, {}};
            for (uint32_t l : node.links)
            {
                for (uint32_t h : HostsOf(t, l))
                {
                    c.hosts.push_back(h);
                }
            }
            out.push_back(c);
        }
    }
    else if (kind == "server" || kind == "gpu")
    {
        std::vector<Component> servers;
        for (uint32_t h = 0; h < t.GetNHosts(); ++h)
        {
            const auto& node = t.GetNode(t.HostNode(h));
            if (kind == "gpu")
            {
                out.push_back({node.name, kind, {}, {h}});
                continue;
            }
            if (servers.size() <= node.server)
            {
                servers.resize(node.server + 1);
            }
            Component& s = servers[node.server];
            s.name = "server " + std::to_string(node.server);
            s.kind = kind;
            s.hosts.push_back(h);
            s.links.insert(s.links.end(), node.links.begin(), node.links.end());
        }
        for (auto& s : servers)
        {
            if (!s.hosts.empty())
            {
                std::sort(s.links.begin(), s.links.end());
                s.links.erase(std::unique(s.links.begin(), s.links.end()), s.links.end());
                out.push_back(s);
            }
        }
    }
    else
    {
        throw std::invalid_argument("unknown component kind '" + kind +
                                    "' (link, transceiver, nic, switch, server, gpu)");
    }
    return out;
}

void
FailureHelper::AddFailureMode(const std::string& kind, ComponentFailureProcess::Mode mode,
                              double mtbfSeconds, std::optional<double> mttrSeconds,
                              double weibullShape,
                              const std::vector<std::pair<std::string, std::string>>& attributes)
{
    if (std::find(Kinds().begin(), Kinds().end(), kind) == Kinds().end())
    {
        throw std::invalid_argument("unknown component kind '" + kind +
                                    "' (link, transceiver, nic, switch, server, gpu)");
    }
    const bool wholeUnit = kind == "switch" || kind == "server" || kind == "gpu";
    if (wholeUnit && mode != ComponentFailureProcess::HARD)
    {
        throw std::invalid_argument(std::string("a ") + kind + " only fails hard, not '" +
                                    ComponentFailureProcess::ModeName(mode) + "'");
    }
    if (kind == "nic" && (mode == ComponentFailureProcess::BIT_ERRORS ||
                          mode == ComponentFailureProcess::LANE_LOSS))
    {
        throw std::invalid_argument(std::string("a nic fails hard or flaps, not '") +
                                    ComponentFailureProcess::ModeName(mode) +
                                    "' (gray failures belong to its link or transceiver)");
    }
    if (!(mtbfSeconds > 0) || !std::isfinite(mtbfSeconds))
    {
        throw std::invalid_argument("the MTBF of " + kind + " must be > 0");
    }
    if (mttrSeconds && (!(*mttrSeconds >= 0) || !std::isfinite(*mttrSeconds)))
    {
        throw std::invalid_argument("the MTTR of " + kind + " must be >= 0");
    }
    if (weibullShape < 0 || !std::isfinite(weibullShape))
    {
        throw std::invalid_argument("the Weibull shape of " + kind + " must be > 0");
    }
    Mode m{kind, mode, mtbfSeconds, ProcessFactory(mode, attributes)};
    // Distributions are made per component at Install (each needs its own stream); recorded
    // here as the factory strings they are built from.
    const double mtbf = mtbfSeconds;
    const std::string ttf =
        weibullShape > 0
            ? "ns3::WeibullRandomVariable[Scale=" +
                  Exact(mtbf / std::tgamma(1 + 1 / weibullShape)) +
                  "|Shape=" + Exact(weibullShape) + "]"
            : "ns3::ExponentialRandomVariable[Mean=" + Exact(mtbf) + "]";
    m.process.Set("TimeToFailure", StringValue(ttf));
    if (mttrSeconds)
    {
        m.process.Set("TimeToRepair",
                      StringValue(*mttrSeconds == 0 ? "ns3::ConstantRandomVariable[Constant=0]"
                                                    : "ns3::ExponentialRandomVariable[Mean=" +
                                                          Exact(*mttrSeconds) + "]"));
    }
    m_modes.push_back(m);
}

ObjectFactory
FailureHelper::ProcessFactory(ComponentFailureProcess::Mode mode,
                              const std::vector<std::pair<std::string, std::string>>& attributes)
{
    ObjectFactory f("ns3::ComponentFailureProcess");
    f.Set("Mode", EnumValue(mode));
    for (const auto& [name, value] : attributes)
    {
        f.Set(name, StringValue(value));
    }
    return f;
}

void
FailureHelper::AddInjection(const std::string& kind, const std::string& name,
                            ComponentFailureProcess::Mode mode, Time at, Time duration,
                            const std::vector<std::pair<std::string, std::string>>& attributes)
{
    if (std::find(Kinds().begin(), Kinds().end(), kind) == Kinds().end())
    {
        throw std::invalid_argument("unknown component kind '" + kind +
                                    "' (link, transceiver, nic, switch, server, gpu)");
    }
    if (at.IsStrictlyNegative() || duration.IsStrictlyNegative())
    {
        throw std::invalid_argument("an injected failure's time and duration must be >= 0");
    }
    Injection i{kind, name, ProcessFactory(mode, attributes)};
    i.process.Set("TimeToFailure", StringValue("ns3::ConstantRandomVariable[Constant=" +
                                               Exact(at.GetSeconds()) + "]"));
    // Time::Max: never repaired (a repair time past the end of ns-3's clock).
    const std::string repair =
        duration == Time::Max() ? "1e300" : Exact(duration.GetSeconds());
    i.process.Set("TimeToRepair",
                  StringValue("ns3::ConstantRandomVariable[Constant=" + repair + "]"));
    i.process.Set("MaxFailures", UintegerValue(1));
    m_injections.push_back(i);
}

void
FailureHelper::Add(const ObjectFactory& factory, const Component& c, double mtbfSeconds,
                   Ptr<FabricNetwork> network, int64_t stream)
{
    // Each object made from a factory string gets its own random variables.
    Ptr<ComponentFailureProcess> p = factory.Create<ComponentFailureProcess>();
    p->SetComponent(c.name, c.kind);
    if (network)
    {
        for (uint32_t l : c.links)
        {
            if (Ptr<FabricChannel> channel = network->GetChannel(l))
            {
                p->AddChannel(channel);
            }
            else // a link between two other MPI ranks' nodes
            {
                p->AddRemoteLink(MakeCallback(&FabricNetwork::SetLinkUp, network).Bind(l));
            }
        }
    }
    m_streamsUsed += p->AssignStreams(stream + m_streamsUsed);
    m_installed.push_back({p, &c, mtbfSeconds});
}

const std::vector<FailureHelper::Installed>&
FailureHelper::Install(const FabricTopology& topology, Ptr<FabricNetwork> network,
                       int64_t stream)
{
    m_installed.clear();
    m_components.assign(Kinds().size(), {});
    for (std::size_t k = 0; k < Kinds().size(); ++k)
    {
        const std::string& kind = Kinds()[k];
        if (std::any_of(m_modes.begin(), m_modes.end(), [&](const Mode& m) { return m.kind == kind; }))
        {
            m_components[k] = Components(topology, kind);
        }
    }
    m_streamsUsed = 0;
    for (const Mode& m : m_modes)
    {
        const std::size_t k = std::find(Kinds().begin(), Kinds().end(), m.kind) - Kinds().begin();
        for (const Component& c : m_components[k])
        {
            Add(m.process, c, m.mtbfSeconds, network, stream);
        }
    }
    for (const Injection& i : m_injections)
    {
        const std::size_t k = std::find(Kinds().begin(), Kinds().end(), i.kind) - Kinds().begin();
        if (m_components[k].empty())
        {
            m_components[k] = Components(topology, i.kind);
        }
        const std::string name = CanonicalName(topology, i.name);
        auto it = std::find_if(m_components[k].begin(), m_components[k].end(),
                               [&](const Component& c) { return c.name == name; });
        if (it == m_components[k].end())
        {
            throw std::invalid_argument("no " + i.kind + " named '" + i.name + "'" +
                                        (m_components[k].empty()
                                             ? std::string(" (the topology has none)")
                                             : " (e.g. '" + m_components[k].front().name + "')"));
        }
        Add(i.process, *it, std::numeric_limits<double>::infinity(), network, stream);
    }
    for (const Installed& i : m_installed)
    {
        i.process->Start();
    }
    NS_LOG_INFO(m_installed.size() << " failure processes");
    return m_installed;
}

JobAvailabilityModel::Effect
FailureHelper::EffectOf(const Installed& installed, const std::set<uint32_t>& hosts)
{
    const Component& c = *installed.component;
    JobAvailabilityModel::Reach reach = JobAvailabilityModel::SHARED_FABRIC;
    if (Touches(c.hosts, hosts))
    {
        reach = JobAvailabilityModel::JOB_HOSTS; // no way around it
    }
    else if (!c.hosts.empty() || c.kind == "gpu" || c.kind == "server" || c.kind == "nic")
    {
        reach = JobAvailabilityModel::OTHER_HOSTS;
    }
    return JobAvailabilityModel::EffectOf(installed.process->GetMode(), reach);
}

std::string
FailureHelper::EffectOn(const Installed& installed, const std::set<uint32_t>& hosts)
{
    return JobAvailabilityModel::EffectName(EffectOf(installed, hosts));
}

void
FailureHelper::Follow(Ptr<JobAvailabilityModel> job, const std::set<uint32_t>& hosts) const
{
    for (const Installed& i : m_installed)
    {
        const JobAvailabilityModel::Effect effect = EffectOf(i, hosts);
        if (effect == JobAvailabilityModel::RESTART)
        {
            job->AddInterruptingComponent(i.process, i.mtbfSeconds);
        }
        else if (effect != JobAvailabilityModel::NO_EFFECT)
        {
            job->AddDegradingComponent(
                i.process,
                JobAvailabilityModel::DegradedState(effect, i.process->GetMode()));
        }
    }
}

} // namespace ns3
