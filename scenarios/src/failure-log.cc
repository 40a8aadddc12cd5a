#include "failure-log.h"

#include "ns3/simulator.h"

#include <iomanip>
#include <map>

using namespace ns3;
using json = nlohmann::json;

namespace aifabric
{

void
FailureLog::Follow(const std::vector<FailureHelper::Installed>& installed,
                   const std::set<uint32_t>& jobHosts,
                   bool haveJobs,
                   Ptr<FabricNetwork> network,
                   std::vector<Ptr<TrainingJob>> jobs)
{
    m_network = network;
    m_jobs = std::move(jobs);
    for (const auto& i : installed)
    {
        const std::size_t index = m_effects.size();
        const JobAvailabilityModel::Effect e = FailureHelper::EffectOf(i, jobHosts);
        const std::string effect = e == JobAvailabilityModel::NO_EFFECT ? "none"
                                   : !haveJobs && e == JobAvailabilityModel::RESTART
                                       ? "hosts cut off"
                                       : JobAvailabilityModel::EffectName(e);
        m_effects.push_back(effect);
        m_kinds.push_back(i.component->kind);
        m_links.push_back(i.component->links);
        // A flap is logged down by down; other modes once per failure.
        const char* trace =
            i.process->GetMode() == ComponentFailureProcess::FLAP ? "FlapDown" : "Failed";
        i.process->TraceConnectWithoutContext(trace,
                                              MakeCallback(&FailureLog::Record, this).Bind(index));
    }
}

uint64_t
FailureLog::LostFrames(std::size_t p) const
{
    uint64_t lost = 0;
    const FabricTopology& topo = m_network->GetTopology();
    for (uint32_t l : m_links[p])
    {
        for (uint32_t node : {topo.GetLink(l).a, topo.GetLink(l).b})
        {
            if (Ptr<FabricNetDevice> port = m_network->GetPort(node, l))
            {
                const auto& drops = port->GetCounters().dropFrames;
                lost += drops[static_cast<std::size_t>(DropReason::LinkDown)] +
                        drops[static_cast<std::size_t>(DropReason::FcsError)];
            }
        }
    }
    return lost;
}

void
FailureLog::Record(std::size_t process, const ComponentFailureProcess::Failure& f)
{
    Row row{f.start, f.duration, f.component, f.kind, ComponentFailureProcess::ModeName(f.mode),
            process};
    if (m_network)
    {
        // The failure's trace fires before its links change: what they lose from here on.
        row.lostBefore = LostFrames(process);
        if (f.duration != Time::Max())
        {
            Simulator::Schedule(f.duration, &FailureLog::EndRow, this, m_rows.size());
        }
    }
    m_rows.push_back(row);
}

void
FailureLog::EndRow(std::size_t row)
{
    m_rows[row].lostAfter = LostFrames(m_rows[row].process);
    m_rows[row].ended = true;
}

std::string
FailureLog::Interrupted(const Row& row) const
{
    std::string names;
    for (const auto& job : m_jobs)
    {
        // TrainingJob::Interrupt's cause names the component (FailureHelper::InterruptJobs).
        if (job->IsInterrupted() && job->GetInterruptionTime() == row.start &&
            job->GetInterruptionCause().find(row.kind + " " + row.component + " ") == 0)
        {
            names += (names.empty() ? "" : ";") + job->GetName();
        }
    }
    return names;
}

std::vector<uint64_t>
FailureLog::LostPerRow() const
{
    std::vector<uint64_t> lost;
    for (const Row& r : m_rows)
    {
        lost.push_back((r.ended ? r.lostAfter : LostFrames(r.process)) - r.lostBefore);
    }
    return lost;
}

void
FailureLog::WriteCsv(std::ostream& os) const
{
    os << "time_s,component,kind,mode,duration_s,assumed_effect,frames_lost,jobs_interrupted\n"
       << std::setprecision(12);
    const std::vector<uint64_t> lost =
        m_network && m_mergedLost.empty() ? LostPerRow() : m_mergedLost;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
    {
        const Row& r = m_rows[i];
        os << r.start.GetSeconds() << ',' << r.component << ',' << r.kind << ',' << r.mode << ',';
        if (r.duration == Time::Max())
        {
            os << "inf";
        }
        else
        {
            os << r.duration.GetSeconds();
        }
        os << ',' << m_effects[r.process] << ',';
        if (m_network)
        {
            os << lost[i] << ',' << Interrupted(r);
        }
        else
        {
            os << ','; // a long-horizon history: nothing simulated at packet level
        }
        os << '\n';
    }
}

json
FailureLog::Summary() const
{
    std::map<std::string, uint64_t> byKindMode;
    std::map<std::string, uint64_t> byEffect;
    std::map<std::string, uint64_t> followed;
    for (const Row& r : m_rows)
    {
        ++byKindMode[r.kind + " " + r.mode];
        ++byEffect[m_effects[r.process]];
    }
    for (const auto& k : m_kinds)
    {
        ++followed[k];
    }
    return {{"outages", m_rows.size()},
            {"by_kind_and_mode", byKindMode},
            {"by_effect", byEffect},
            {"failure_processes_by_kind", followed},
            {"table", "failures.csv"}};
}

} // namespace aifabric
