#include "collective-helper.h"

#include "ns3/flow-queue-pair.h"
#include "ns3/log.h"
#include "ns3/roce-frame.h"
#include "ns3/simulator.h"
#include "ns3/steady-state-schedule.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveHelper");

NS_OBJECT_ENSURE_REGISTERED(CollectiveGroup);

TypeId
CollectiveGroup::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveGroup")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddAttribute("BarrierLatency",
                          "With Run (launch \"barrier\"): from the last rank's finish to the "
                          "collective being reported (and the next starting): each rank's notice "
                          "that it finished crosses the cluster's control path "
                          "(FabricControlPath) in this time.  0: an ideal barrier, in one "
                          "process only; a run split over MPI ranks needs more than each rank's "
                          "lookahead (the shortest delay of its links to other ranks): at least "
                          "the longest plus 2 ps.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&CollectiveGroup::m_barrierLatency),
                          MakeTimeChecker(Time(0)));
    return tid;
}

void
CollectiveGroup::DoDispose()
{
    m_network = nullptr;
    m_apps.clear();
    m_runs.clear();
    Object::DoDispose();
}

CollectiveRequest
CollectiveGroup::MakeRequest(CollectiveOperation op, uint64_t bytes) const
{
    CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    r.ranks = GetNRanks();
    const FabricTopology& topo = m_network->GetTopology();
    for (uint32_t host : m_hosts)
    {
        const auto& node = topo.GetNode(topo.HostNode(host));
        r.placement.push_back({node.server, node.localIndex});
    }
    r.engineServers = m_engineServers;
    // Rank 0's NIC and NVLink rates as built: the tuner's view of the servers, as NCCL reads
    // the NIC's speed when it makes the communicator (a lane lost later does not retune it),
    // and the same in every process of a distributed run.  The NIC's rate is its scale-out
    // ports' together (one per plane of a multi-plane fabric); a GPU without one, its NVLink's.
    const auto& node0 = topo.GetNode(topo.HostNode(m_hosts[0]));
    uint64_t nicBps = 0;
    for (uint32_t link : node0.links)
    {
        if (topo.GetLink(link).medium == FabricTopology::Medium::NvLink)
        {
            r.nvLinkRate = topo.GetLink(link).rate;
        }
        else
        {
            nicBps += topo.GetLink(link).rate.GetBitRate();
        }
    }
    r.nicRate = nicBps ? DataRate(nicBps) : r.nvLinkRate;
    return r;
}

void
CollectiveGroup::Connect(const CollectiveSchedule& schedule)
{
    for (const auto& [a, b, channel] : schedule.GetConnections())
    {
        if (!m_connected.insert({std::min(a, b), std::max(a, b), channel}).second)
        {
            continue;
        }
        auto [qpA, qpB] = m_rdma.ConnectMessages(m_network, EndpointOf(a), EndpointOf(b));
        if (m_apps[a])
        {
            m_apps[a]->AddConnection(b, channel, qpA);
        }
        if (m_apps[b])
        {
            m_apps[b]->AddConnection(a, channel, qpB);
        }
        m_queuePairs += 2;
    }
}

std::shared_ptr<const CollectiveSchedule>
CollectiveGroup::Prepare(Ptr<CollectiveAlgorithm> algorithm, const CollectiveRequest& request)
{
    if (request.ranks != GetNRanks())
    {
        throw std::invalid_argument("a request for " + std::to_string(request.ranks) +
                                    " ranks on a group of " + std::to_string(GetNRanks()));
    }
    CollectiveRequest local = request;
    if (std::find(m_apps.begin(), m_apps.end(), nullptr) != m_apps.end())
    {
        // Another process simulates some ranks: keep only this one's steps.
        local.simulatedRanks.resize(m_apps.size());
        for (uint32_t rank = 0; rank < m_apps.size(); ++rank)
        {
            local.simulatedRanks[rank] = m_apps[rank] != nullptr;
        }
    }
    CollectiveSchedule built = algorithm->Build(local);
    Connect(built);
    if (!m_rdma.IsSteadyStateCollectives() || !built.IsPipelined())
    {
        return std::make_shared<const CollectiveSchedule>(std::move(built));
    }
    // Its messages take the flow-level routes of the connections just made.
    return std::make_shared<const CollectiveSchedule>(SteadyStateSchedule(
        std::move(built), [this](uint32_t from, uint32_t to, uint32_t channel) {
            Ptr<FlowQueuePair> qp =
                DynamicCast<FlowQueuePair>(m_apps[from]->GetConnection(to, channel));
            NS_ABORT_MSG_IF(!qp, "rank " << from << " has no flow-level connection to " << to);
            MessagePath path;
            path.arrival = [qp](uint64_t bytes) { return qp->GetArrivalLatency(bytes); };
            path.ack = qp->GetAckLatency();
            const uint64_t sample = uint64_t{1} << 20; // whole frames at the usual MTUs
            path.framing = static_cast<double>(qp->WireBytes(sample)) / static_cast<double>(sample);
            for (const FlowNetwork::Use& use : qp->GetRoute().uses)
            {
                path.links.emplace_back(use.resource, use.weight);
            }
            if (!path.links.empty())
            {
                // The sender's links are traced first, their weights summing to one (several
                // when it sprays over a multi-plane NIC's ports): their capacity together.
                path.firstLink = path.links.front().first;
                double weight = 0;
                for (const auto& [resource, w] : path.links)
                {
                    path.bytesPerSecond += qp->GetNetwork()->Capacity(resource);
                    weight += w;
                    if (weight >= 1 - 1e-9)
                    {
                        break;
                    }
                }
            }
            return path;
        }));
}

std::shared_ptr<const CollectiveSchedule>
CollectiveGroup::Run(Ptr<CollectiveAlgorithm> algorithm, const CollectiveRequest& request,
                     ResultCallback done)
{
    return Launch(algorithm, request, done, false);
}

std::shared_ptr<const CollectiveSchedule>
CollectiveGroup::Queue(Ptr<CollectiveAlgorithm> algorithm, const CollectiveRequest& request,
                       ResultCallback done)
{
    return Launch(algorithm, request, done, true);
}

std::shared_ptr<const CollectiveSchedule>
CollectiveGroup::Launch(Ptr<CollectiveAlgorithm> algorithm, const CollectiveRequest& request,
                        ResultCallback done, bool fromRankStarts)
{
    const bool noticed = !fromRankStarts && UsesNotices();
    if (noticed)
    {
        m_network->GetControlPath()->CheckLatency("BarrierLatency of", m_barrierLatency);
    }
    auto schedule = Prepare(algorithm, request);
    auto running = std::make_shared<Running>();
    running->id = noticed ? m_barrierLaunches++ : 0;
    running->noticed = noticed;
    running->latency = m_barrierLatency;
    running->result = {schedule->GetAlgorithm(), request.op, request.bytes, request.ranks,
                       fromRankStarts ? Time::Max() : Simulator::Now(), Simulator::Now(),
                       false, schedule->GetPredictedTime()};
    running->ranksLeft = 0;
    running->done = done;
    if (m_failed)
    {
        // A rank of the group stopped on a failed queue pair: it runs nothing more.
        running->result.failed = true;
        running->result.start = running->result.end = Simulator::Now();
        if (!done.IsNull())
        {
            Simulator::ScheduleNow([done, result = running->result]() { done(result); });
        }
        return schedule;
    }
    m_runs.push_back(running);
    for (uint32_t rank = 0; rank < GetNRanks(); ++rank) // engines start with their GPUs
    {
        const Ptr<CollectiveApplication>& app = m_apps[rank];
        if (app)
        {
            ++running->ranksLeft;
            app->Execute(schedule, MakeCallback(&CollectiveGroup::RankDone, this).Bind(running));
        }
    }
    if (noticed)
    {
        running->ranksLeft = GetNRanks(); // every rank's notice, wherever it runs
    }
    else if (running->ranksLeft == 0)
    {
        m_runs.pop_back(); // no rank of this group is simulated here
    }
    return schedule;
}

bool
CollectiveGroup::UsesNotices() const
{
    return m_barrierLatency.IsStrictlyPositive() ||
           m_network->GetControlPath()->GetMinLatency().IsStrictlyPositive();
}

void
CollectiveGroup::AddHandlers()
{
    Ptr<FabricControlPath> path = m_network->GetControlPath();
    m_doneHandler = path->AddHandler(MakeCallback(&CollectiveGroup::DoneNotice, this));
    m_failedHandler = path->AddHandler(MakeCallback(&CollectiveGroup::FailedNotice, this));
}

void
CollectiveGroup::RankDone(std::shared_ptr<Running> running, uint32_t rank)
{
    if (running->noticed)
    {
        m_network->GetControlPath()->Broadcast(
            m_doneHandler, rank,
            {static_cast<int64_t>(running->id), m_apps[rank]->GetStartTime().GetPicoSeconds(),
             Simulator::Now().GetPicoSeconds()},
            running->latency);
        return;
    }
    Finished(running, m_apps[rank]->GetStartTime());
}

void
CollectiveGroup::DoneNotice(uint32_t, const std::vector<int64_t>& notice)
{
    const auto id = static_cast<uint64_t>(notice.at(0));
    const auto it = std::find_if(m_runs.begin(), m_runs.end(), [id](const auto& running) {
        return running->noticed && running->id == id;
    });
    if (it == m_runs.end())
    {
        return; // failed already (a rank's failure notice came first)
    }
    std::shared_ptr<Running> running = *it;
    running->result.end = std::max(running->result.end, PicoSeconds(notice.at(2)));
    Finished(running, PicoSeconds(notice.at(1)));
}

void
CollectiveGroup::Finished(const std::shared_ptr<Running>& running, Time start)
{
    running->result.start = std::min(running->result.start, start);
    if (!running->noticed)
    {
        running->result.end = std::max(running->result.end, Simulator::Now());
    }
    if (--running->ranksLeft == 0 && !running->reported)
    {
        running->reported = true;
        m_runs.erase(std::find(m_runs.begin(), m_runs.end(), running));
        if (!running->done.IsNull())
        {
            running->done(running->result);
        }
    }
}

void
CollectiveGroup::RankFailed(uint32_t rank)
{
    if (!UsesNotices())
    {
        FailRuns(rank, Simulator::Now());
        return;
    }
    // Every process fails the group's collectives (queued or behind the barrier) when the
    // failure's notice arrives: BarrierLatency later, at least the control path's least.
    Ptr<FabricControlPath> path = m_network->GetControlPath();
    path->Broadcast(m_failedHandler, rank, {Simulator::Now().GetPicoSeconds()},
                    std::max(m_barrierLatency, path->GetMinLatency()));
}

void
CollectiveGroup::FailedNotice(uint32_t rank, const std::vector<int64_t>& notice)
{
    FailRuns(rank, PicoSeconds(notice.at(0)));
}

void
CollectiveGroup::FailRuns(uint32_t rank, Time when)
{
    m_failed = true;
    std::vector<std::shared_ptr<Running>> failing = std::move(m_runs);
    m_runs.clear();
    NS_LOG_INFO("rank " << rank << " failed: " << failing.size() << " collectives fail");
    for (auto& running : failing)
    {
        running->reported = true;
        running->result.failed = true;
        running->result.start = std::min(running->result.start, when);
        running->result.end = when;
        if (!running->done.IsNull())
        {
            running->done(running->result);
        }
    }
}

CollectiveHelper::CollectiveHelper()
{
    m_acceleratorFactory.SetTypeId(Accelerator::GetTypeId());
}

void
CollectiveHelper::SetAcceleratorAttribute(const std::string& name, const AttributeValue& value)
{
    m_acceleratorFactory.Set(name, value);
}


Ptr<CollectiveGroup>
CollectiveHelper::Install(Ptr<FabricNetwork> network, const RdmaHelper& rdma,
                          const std::vector<uint32_t>& hosts) const
{
    if (hosts.size() < 2)
    {
        throw std::invalid_argument("a collective group needs at least 2 ranks, got " +
                                    std::to_string(hosts.size()));
    }
    std::set<uint32_t> seen;
    auto group = CreateObject<CollectiveGroup>();
    group->m_network = network;
    group->m_rdma = rdma;
    group->m_hosts = hosts;
    for (uint32_t rank = 0; rank < hosts.size(); ++rank)
    {
        const uint32_t host = hosts[rank];
        if (host >= network->GetNHosts() || !seen.insert(host).second)
        {
            throw std::invalid_argument("rank " + std::to_string(rank) + " on host " +
                                        std::to_string(host) + ": hosts must be distinct and < " +
                                        std::to_string(network->GetNHosts()));
        }
        if (!network->IsHostLocal(host))
        {
            group->m_apps.push_back(nullptr); // another rank's host
            continue;
        }
        auto app = CreateObject<CollectiveApplication>();
        app->Setup(rank, InstallAccelerator(network, host));
        network->GetHostNode(host)->AddApplication(app);
        app->SetStartTime(Seconds(0));
        // The app holds the group until the app is disposed (at Simulator::Destroy).
        app->SetFailureCallback(MakeCallback(&CollectiveGroup::RankFailed, group));
        group->m_apps.push_back(app);
    }
    // Each server's NVLS engine, if it has one, is a rank after the GPUs, which start it.
    const FabricTopology& topo = network->GetTopology();
    const auto gpus = static_cast<uint32_t>(hosts.size());
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        const uint32_t server = topo.GetNode(topo.HostNode(hosts[rank])).server;
        const auto engine = topo.NvlsEngineOf(server);
        if (!engine || std::find(group->m_engineServers.begin(), group->m_engineServers.end(),
                                 server) != group->m_engineServers.end())
        {
            continue;
        }
        const auto engineRank = static_cast<uint32_t>(gpus + group->m_engines.size());
        group->m_engines.push_back(*engine);
        group->m_engineServers.push_back(server);
        if (!network->IsHostLocal(*engine))
        {
            group->m_apps.push_back(nullptr);
            continue;
        }
        auto app = CreateObject<CollectiveApplication>();
        app->Setup(engineRank, InstallEngineAccelerator(network, *engine));
        network->GetHostNode(*engine)->AddApplication(app);
        app->SetStartTime(Seconds(0));
        app->SetFailureCallback(MakeCallback(&CollectiveGroup::RankFailed, group));
        group->m_apps.push_back(app);
        for (uint32_t gpu = 0; gpu < gpus; ++gpu)
        {
            if (group->m_apps[gpu] && topo.GetNode(topo.HostNode(hosts[gpu])).server == server)
            {
                group->m_apps[gpu]->AddEngine(app);
            }
        }
    }
    group->AddHandlers(); // in every process alike, so the handler ids agree
    return group;
}

Ptr<Accelerator>
CollectiveHelper::InstallEngineAccelerator(Ptr<FabricNetwork> network, uint32_t engine) const
{
    Ptr<Node> node = network->GetHostNode(engine);
    Ptr<Accelerator> unit = node->GetObject<Accelerator>();
    if (!unit)
    {
        // The switch reduces and copies as fast as its link brings the data.
        const FabricTopology& topo = network->GetTopology();
        const DataRate rate = topo.GetLink(topo.GetNode(topo.HostNode(engine)).links.front()).rate;
        ObjectFactory factory = m_acceleratorFactory;
        factory.Set("ReductionRate", DataRateValue(rate));
        factory.Set("CopyRate", DataRateValue(rate));
        unit = factory.Create<Accelerator>();
        node->AggregateObject(unit);
    }
    return unit;
}

Ptr<Accelerator>
CollectiveHelper::InstallAccelerator(Ptr<FabricNetwork> network, uint32_t host) const
{
    Ptr<Node> node = network->GetHostNode(host);
    Ptr<Accelerator> gpu = node->GetObject<Accelerator>();
    if (!gpu)
    {
        gpu = m_acceleratorFactory.Create<Accelerator>();
        node->AggregateObject(gpu);
    }
    return gpu;
}

} // namespace ns3
