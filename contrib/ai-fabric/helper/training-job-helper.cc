#include "training-job-helper.h"

#include "chakra-trace.h"

#include "ns3/log.h"
#include "ns3/rdma-nic.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJobHelper");

TrainingJobHelper::TrainingJobHelper()
    : m_placement(CreateObject<PackedPlacement>())
{
    m_jobFactory.SetTypeId(TrainingJob::GetTypeId());
    for (auto& a : m_algorithms)
    {
        a = CollectiveAlgorithm::Create("auto");
    }
}

void
TrainingJobHelper::SetJobAttribute(const std::string& name, const AttributeValue& value)
{
    m_jobFactory.Set(name, value);
}

void
TrainingJobHelper::SetAcceleratorAttribute(const std::string& name, const AttributeValue& value)
{
    m_collectives.SetAcceleratorAttribute(name, value);
}

void
TrainingJobHelper::SetAlgorithm(ParallelAxis axis, Ptr<CollectiveAlgorithm> algorithm)
{
    m_algorithms[static_cast<std::size_t>(axis)] = algorithm;
}

void
TrainingJobHelper::SetServerSlowdown(uint32_t server, double factor)
{
    m_serverSlowdown[server] = factor;
}

Ptr<CollectiveGroup>
TrainingJobHelper::MakeGroup(Ptr<FabricNetwork> network, const RdmaHelper& rdma,
                             Ptr<TrainingJob> job, const std::vector<uint32_t>& ranks,
                             ParallelAxis axis, const std::string& what,
                             const std::vector<JobRequest>& requests,
                             TrainingJob::ScheduleList& schedules) const
{
    std::vector<uint32_t> hosts;
    for (uint32_t r : ranks)
    {
        hosts.push_back(job->GetHost(r));
    }
    Ptr<CollectiveGroup> group = m_collectives.Install(network, rdma, hosts);
    auto list = std::make_shared<std::vector<std::shared_ptr<const CollectiveSchedule>>>();
    for (const JobRequest& jr : requests)
    {
        CollectiveRequest request = group->MakeRequest(jr.op, jr.bytes);
        request.elementBytes = jr.elementBytes;
        request.experts = jr.experts;
        request.topK = jr.topK;
        try
        {
            list->push_back(group->Prepare(m_algorithms[static_cast<std::size_t>(axis)], request));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("job '" + job->GetName() + "', " + what +
                                        "-parallel group of rank " + std::to_string(ranks[0]) +
                                        ": " + e.what());
        }
    }
    schedules = list;
    return group;
}

void
TrainingJobHelper::ReadTrace(Ptr<TrainingJob> job)
{
    const std::string prefix = job->GetTracePrefix();
    try
    {
        std::vector<std::vector<TraceNode>> nodes;
        for (uint32_t r = 0; r < job->GetNRanks(); ++r)
        {
            nodes.push_back(ChakraTrace::Read(ChakraTrace::RankFile(prefix, r), r));
        }
        std::map<std::string, std::vector<uint32_t>> groups;
        if (!job->GetProcessGroupsFile().empty())
        {
            groups = ChakraTrace::ReadGroups(job->GetProcessGroupsFile());
        }
        UintegerValue gradient;
        UintegerValue parameter;
        job->GetAttribute("GradientElementBytes", gradient);
        job->GetAttribute("ParameterElementBytes", parameter);
        const TraceProgram::ElementBytes element{static_cast<uint32_t>(gradient.Get()),
                                                 static_cast<uint32_t>(parameter.Get())};
        job->SetTraceProgram(
            std::make_shared<const TraceProgram>(nodes, job->GetLayout(), groups, element));
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument("job '" + job->GetName() + "', Trace " + prefix + ": " +
                                    e.what());
    }
}

bool
TrainingJobHelper::IsTraceListed(const ParallelLayout& layout, JobComm comm)
{
    // Without EP the expert-data groups are the data groups, and carry nothing.
    return layout.Size(SpanOf(comm)) >= 2 && (comm != JobComm::EXPERT_DATA || layout.ep > 1);
}

std::map<std::string, std::vector<uint32_t>>
TrainingJobHelper::TraceGroups(Ptr<const TrainingJob> job)
{
    const ParallelLayout layout = job->GetLayout();
    std::map<std::string, std::vector<uint32_t>> groups;
    for (JobComm comm : kCollectiveComms)
    {
        if (IsTraceListed(layout, comm))
        {
            for (const auto& ranks : layout.Groups(SpanOf(comm)))
            {
                groups[std::to_string(groups.size() + 1)] = ranks;
            }
        }
    }
    return groups;
}

std::vector<TraceNode>
TrainingJobHelper::TraceNodes(Ptr<const TrainingJob> job, uint32_t rank)
{
    if (job->GetVirtualStages() > 1)
    {
        throw std::invalid_argument("job '" + job->GetName() +
                                    "': a trace's sends and receives run between adjacent "
                                    "stages only; VirtualStages passes from the last to the first");
    }
    const ParallelLayout layout = job->GetLayout();
    std::array<std::vector<JobRequest>, kJobComms> requests;
    for (std::size_t c = 0; c < kJobComms; ++c)
    {
        requests[c] = job->GetRequests(static_cast<JobComm>(c));
    }
    // The names of the rank's groups, as TraceGroups numbers them.
    std::array<std::string, kJobComms> names;
    uint32_t listed = 0; // groups before this communicator's
    for (JobComm comm : kCollectiveComms)
    {
        if (IsTraceListed(layout, comm))
        {
            const uint32_t index = layout.GroupIndex(rank, SpanOf(comm));
            names[static_cast<std::size_t>(comm)] = std::to_string(listed + index + 1);
            listed += layout.GetNRanks() / layout.Size(SpanOf(comm));
        }
    }
    ParallelLayout::Coordinates c = layout.Of(rank);
    ParallelLayout::Coordinates previous = c;
    ParallelLayout::Coordinates next = c;
    previous.pp = c.pp > 0 ? c.pp - 1 : c.pp;
    next.pp = c.pp + 1 < layout.pp ? c.pp + 1 : c.pp;
    return TraceProgram::FromOps(job->GetOps(rank), requests,
                                 {layout.RankOf(previous), layout.RankOf(next)}, names);
}

Ptr<TrainingJob>
TrainingJobHelper::Install(Ptr<FabricNetwork> network, const RdmaHelper& rdmaIn, int64_t stream)
{
    Ptr<TrainingJob> job = m_jobFactory.Create<TrainingJob>();
    job->Check();
    if (!job->GetTracePrefix().empty())
    {
        ReadTrace(job);
    }
    const FabricTopology& topo = network->GetTopology();
    std::vector<bool> taken(topo.GetNHosts(), false);
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        Ptr<Accelerator> gpu = network->GetHostNode(h)->GetObject<Accelerator>();
        taken[h] = gpu && !gpu->GetJob().empty();
    }
    auto random = CreateObject<UniformRandomVariable>();
    random->SetStream(stream);
    std::vector<uint32_t> hosts;
    try
    {
        hosts = m_placement->Place(topo, job->GetNRanks(), taken, random);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument("job '" + job->GetName() + "': " + e.what());
    }
    for (uint32_t r = 0; r < hosts.size(); ++r)
    {
        if (rdmaIn.IsFlowLevel() ? !network->GetObject<FlowNetwork>()
                                 : network->IsHostLocal(hosts[r]) &&
                                       !network->GetHostNode(hosts[r])->GetObject<RdmaNic>())
        {
            throw std::invalid_argument("job '" + job->GetName() +
                                        "': install RDMA on the network before the job");
        }
        Ptr<Accelerator> gpu = m_collectives.InstallAccelerator(network, hosts[r]);
        gpu->SetJob(job->GetName());
        job->SetRank(r, hosts[r], topo.GetNode(topo.HostNode(hosts[r])).server, gpu,
                     network->IsHostLocal(hosts[r]));
    }
    job->SetControlPath(network->GetControlPath());
    RdmaHelper rdma = rdmaIn;
    rdma.SetQueuePairAttribute("Priority", UintegerValue(job->GetTrafficClass()));

    const ParallelLayout layout = job->GetLayout();
    for (JobComm comm : kCollectiveComms)
    {
        const auto requests = job->GetRequests(comm);
        if (requests.empty())
        {
            continue;
        }
        for (const auto& ranks : layout.Groups(SpanOf(comm)))
        {
            TrainingJob::ScheduleList schedules;
            Ptr<CollectiveGroup> g =
                MakeGroup(network, rdma, job, ranks, AxisOf(comm), JobCommName(comm), requests,
                          schedules);
            for (uint32_t i = 0; i < ranks.size(); ++i)
            {
                job->SetCommunicator(ranks[i], comm, g->GetApplication(i), schedules);
            }
        }
    }
    const auto transfers = job->GetRequests(JobComm::ACTIVATION_SEND);
    if (!transfers.empty() && transfers[0].bytes > 0)
    {
        // Per adjacent pair, one group each way, so each carries its messages in
        // micro-batch order on both ends (broadcast from member 0); interleaved stages also
        // pass from the last stage to the first.
        const bool ring = job->GetVirtualStages() > 1;
        for (const auto& stages : layout.Groups(ParallelAxis::PIPELINE))
        {
            for (uint32_t s = 0; s + 1 < stages.size() + (ring ? 1 : 0); ++s)
            {
                const uint32_t next = (s + 1) % stages.size();
                const std::pair<JobComm, JobComm> ways[] = {
                    {JobComm::ACTIVATION_SEND, JobComm::ACTIVATION_RECV},
                    {JobComm::GRADIENT_SEND, JobComm::GRADIENT_RECV}};
                for (const auto& [send, recv] : ways)
                {
                    const bool forward = send == JobComm::ACTIVATION_SEND;
                    const std::vector<uint32_t> pair =
                        forward ? std::vector<uint32_t>{stages[s], stages[next]}
                                : std::vector<uint32_t>{stages[next], stages[s]};
                    TrainingJob::ScheduleList schedules;
                    Ptr<CollectiveGroup> g =
                        MakeGroup(network, rdma, job, pair, ParallelAxis::PIPELINE,
                                  ParallelLayout::AxisName(ParallelAxis::PIPELINE), transfers,
                                  schedules);
                    job->SetCommunicator(pair[0], send, g->GetApplication(0), schedules);
                    job->SetCommunicator(pair[1], recv, g->GetApplication(1), schedules);
                }
            }
        }
    }
    for (const auto& [server, factor] : m_serverSlowdown)
    {
        job->SetServerSlowdown(server, factor);
    }
    job->AssignStreams(stream + 1);
    job->Start();
    NS_LOG_INFO("job " << job->GetName() << ": " << job->GetNRanks() << " ranks, tp "
                       << layout.tp << " ep " << layout.ep << " dp " << layout.dp << " pp "
                       << layout.pp);
    return job;
}

} // namespace ns3
