// ScenarioRun's training section: the jobs, iterations.csv, ranks.csv and their timeline.
#include "scenario-run.h"

#include <iomanip>
#include <map>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

void
ScenarioRun::InstallJobs()
{
    Scenario& s = m_scenario;
    if (!s.rdma && !s.hasCollective)
    {
        s.rdmaHelper.Install(m_network);
    }
    // The accelerator section applies to every GPU, whichever job takes it.
    for (uint32_t h = 0; h < m_network->GetNHosts(); ++h)
    {
        s.collectiveHelper.InstallAccelerator(m_network, h);
    }
    for (uint32_t i = 0; i < s.training.jobs.size(); ++i)
    {
        Ptr<TrainingJob> job;
        try
        {
            job = s.training.jobs[i].Install(m_network, s.rdmaHelper, m_nextStream);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("training.jobs[" + std::to_string(i) + "]: " + e.what());
        }
        TakeStreams("job " + job->GetName(), TrainingJobHelper::kStreamsPerJob);
        job->TraceConnectWithoutContext("Span", MakeCallback(&ScenarioRun::RecordSpan, this).Bind(i));
        m_jobs.push_back(job);
    }
}

void
ScenarioRun::RecordSpan(uint32_t job, const JobSpan& span)
{
    if (++m_nSpans <= m_scenario.training.timelineMaxSpans)
    {
        m_spans.push_back({job, span});
    }
}

namespace
{
double
Sec(Time t)
{
    return t.GetSeconds();
}

/** "exposed_tensor_s,exposed_expert_s,exposed_pipeline_s,exposed_data_s,". */
std::string
ExposureColumns()
{
    std::string columns;
    for (std::size_t e = 0; e < kExposures; ++e)
    {
        columns += std::string("exposed_") + ExposureName(static_cast<Exposure>(e)) + "_s,";
    }
    return columns;
}

void
WriteExposures(std::ostream& os, const std::array<Time, kExposures>& by)
{
    for (const Time& t : by)
    {
        os << Sec(t) << ',';
    }
}
} // namespace

void
ScenarioRun::WriteIterations(std::ostream& os) const
{
    os << "job,iteration,start_s,end_s,duration_s,compute_s,communication_s,exposed_comm_s,"
       << ExposureColumns()
       << "barrier_wait_s,barrier_wait_max_s,last_rank,last_gpu,slowest_gpu,utilization\n";
    os << std::setprecision(12);
    const FabricTopology& topo = m_scenario.topology;
    auto gpu = [&topo](Ptr<TrainingJob> job, uint32_t rank) {
        return topo.GetNode(topo.HostNode(job->GetHost(rank))).name;
    };
    for (const auto& job : m_jobs)
    {
        const double ideal = Sec(job->GetIdealComputeTime());
        // The GPU computing slowest (largest slowdown; the first such rank), "none" if no
        // rank is slowed.
        uint32_t slowest = 0;
        for (uint32_t r = 1; r < job->GetNRanks(); ++r)
        {
            slowest = job->GetSlowdown(r) > job->GetSlowdown(slowest) ? r : slowest;
        }
        const std::string slowestGpu = job->GetSlowdown(slowest) > 1 ? gpu(job, slowest) : "none";
        for (const auto& it : job->GetIterations())
        {
            os << job->GetName() << ',' << it.iteration << ',' << Sec(it.start) << ','
               << Sec(it.end) << ',' << Sec(it.Duration()) << ',' << Sec(it.compute) << ','
               << Sec(it.communication) << ',' << Sec(it.exposed) << ',';
            WriteExposures(os, it.exposedBy);
            os << Sec(it.barrier) << ',' << Sec(it.maxBarrier) << ',' << it.lastRank << ',' << gpu(job, it.lastRank)
               << ',' << slowestGpu << ',' << ideal / Sec(it.Duration()) << '\n';
        }
    }
}

void
ScenarioRun::WriteRankIterations(std::ostream& os) const
{
    os << "job,iteration,rank,gpu,slowdown,compute_s,communication_s,exposed_comm_s,"
       << ExposureColumns() << "finish_s,barrier_wait_s\n";
    os << std::setprecision(12);
    for (const auto& job : m_jobs)
    {
        for (const auto& r : job->GetRankIterations())
        {
            const uint32_t host = job->GetHost(r.rank);
            os << job->GetName() << ',' << r.iteration << ',' << r.rank << ','
               << m_scenario.topology.GetNode(m_scenario.topology.HostNode(host)).name << ','
               << job->GetSlowdown(r.rank) << ',' << Sec(r.compute) << ','
               << Sec(r.communication) << ',' << Sec(r.exposed) << ',';
            WriteExposures(os, r.exposedBy);
            os << Sec(r.finish) << ',' << Sec(r.barrier) << '\n';
        }
    }
}

void
ScenarioRun::WriteJobTimeline(std::ostream& os) const
{
    // One process per job rank; thread 0 computes, thread 1 + k runs communicator k's
    // collectives one after another (a collective queued behind another is drawn from when
    // it could start).
    std::vector<uint32_t> firstPid;
    uint32_t pids = 0;
    for (const auto& job : m_jobs)
    {
        firstPid.push_back(pids);
        pids += job->GetNRanks();
    }
    std::map<std::pair<uint32_t, uint32_t>, Time> laneEnd;
    os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    for (const auto& [job, s] : m_spans)
    {
        const uint32_t pid = firstPid[job] + s.rank;
        const bool compute = s.kind == JobOp::COMPUTE;
        const uint32_t tid = compute ? 0 : 1 + static_cast<uint32_t>(s.comm);
        Time& end = laneEnd[{pid, tid}];
        const Time start = std::max(s.start, end);
        end = s.end;
        os << (first ? "" : ",\n") << "{\"name\":\"";
        if (compute)
        {
            os << JobOp::PhaseName(s.phase);
        }
        else
        {
            os << JobCommName(s.comm);
        }
        os << "\",\"cat\":\"" << (compute ? "compute" : "communication") << "\",\"ph\":\"X\",\"pid\":"
           << pid << ",\"tid\":" << tid << ",\"ts\":" << start.GetSeconds() * 1e6
           << ",\"dur\":" << (s.end - start).GetSeconds() * 1e6
           << ",\"args\":{\"micro_batch\":" << s.microBatch;
        if (!compute)
        {
            os << ",\"bytes\":" << s.bytes << ",\"algorithm\":\"" << *s.algorithm << "\"";
        }
        os << "}}";
        first = false;
    }
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        for (uint32_t r = 0; r < m_jobs[j]->GetNRanks(); ++r)
        {
            const uint32_t host = m_jobs[j]->GetHost(r);
            os << ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << firstPid[j] + r
               << ",\"args\":{\"name\":\"" << m_jobs[j]->GetName() << " rank " << r << " ("
               << m_scenario.topology.GetNode(m_scenario.topology.HostNode(host)).name << ")\"}}";
        }
    }
    os << "\n]}\n";
}

json
ScenarioRun::TrainingSummary() const
{
    json jobs = json::array();
    for (std::size_t i = 0; i < m_jobs.size(); ++i)
    {
        const auto& job = m_jobs[i];
        const ParallelLayout l = job->GetLayout();
        const double mean = Sec(job->GetMeanIterationTime());
        json j = {{"name", job->GetName()},
                  {"ranks", job->GetNRanks()},
                  {"parallelism", {{"tp", l.tp}, {"ep", l.ep}, {"dp", l.dp}, {"pp", l.pp}}},
                  {"placement", m_scenario.training.placements[i]},
                  {"iterations", job->GetIterations().size()},
                  {"finished", job->IsFinished()},
                  {"interrupted", job->IsInterrupted()},
                  {"mean_iteration_s", mean},
                  {"ideal_compute_s", Sec(job->GetIdealComputeTime())},
                  {"gradient_bytes_per_rank", job->GetGradientBytes()},
                  {"utilization", job->GetUtilization()}};
        if (job->GetExpertGradientBytes() > 0)
        {
            // Of them, the routed experts' (reduced over the expert-data-parallel group if
            // DataParallel > 1).
            j["expert_gradient_bytes_per_rank"] = job->GetExpertGradientBytes();
        }
        if (job->IsInterrupted())
        {
            j["interrupted_at_s"] = Sec(job->GetInterruptionTime());
            j["interruption"] = job->GetInterruptionCause();
        }
        if (Ptr<const TransformerModel> model = job->GetModel())
        {
            j["model"] = {{"parameters", model->GetParameters()},
                          {"layers", model->GetLayers()},
                          {"moe_layers", model->GetMoeLayers()},
                          {"sequence_length", model->GetSequenceLength()},
                          {"model_flops_per_iteration", job->GetModelFlopsPerIteration()},
                          {"mfu", job->GetMfu()}};
        }
        if (job->GetSamplesPerIteration() > 0 && mean > 0)
        {
            j["samples_per_s"] = job->GetSamplesPerIteration() / mean;
            if (job->GetTokensPerSample() > 0)
            {
                j["tokens_per_s"] = job->GetSamplesPerIteration() * job->GetTokensPerSample() / mean;
            }
        }
        jobs.push_back(j);
    }
    return {{"jobs", jobs},
            {"spans", m_nSpans},
            {"timeline", m_distribution.IsDistributed() ? "not written: a distributed run"
                         : m_nSpans <= m_scenario.training.timelineMaxSpans
                             ? "timeline.json"
                             : "not written: " + std::to_string(m_nSpans) +
                                   " spans > training.timeline_max_spans"}};
}

void
ScenarioRun::WriteJobTable(std::ostream& os) const
{
    os << "# ai-fabric training jobs\n#" << std::setw(15) << "job" << std::setw(7) << "ranks"
       << std::setw(12) << "iterations" << std::setw(16) << "iteration (ms)" << std::setw(13)
       << "utilization" << "\n";
    for (const auto& job : m_jobs)
    {
        os << std::setw(16) << job->GetName() << std::setw(7) << job->GetNRanks() << std::setw(12)
           << job->GetIterations().size() << std::fixed << std::setprecision(3) << std::setw(16)
           << Sec(job->GetMeanIterationTime()) * 1e3 << std::setw(13) << job->GetUtilization();
        if (job->IsInterrupted())
        {
            os << "  interrupted at " << Sec(job->GetInterruptionTime()) * 1e3
               << " ms: " << job->GetInterruptionCause();
        }
        os << "\n";
        os.unsetf(std::ios::fixed);
    }
}

} // namespace aifabric
