// ScenarioRun's collective section: the sweep, its table, collectives.csv and timeline.json.
#include "scenario-run.h"

#include "ns3/simulator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iomanip>
#include <map>
#include <stdexcept>
#include <tuple>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{
double
AlgorithmBandwidth(const CollectiveResult& r)
{
    return double(r.bytes) / r.Duration().GetSeconds() / 1e9;
}
} // namespace

void
ScenarioRun::InstallCollective()
{
    Scenario& s = m_scenario;
    const CollectiveSpec& c = s.collective;
    if (!s.rdma)
    {
        s.rdmaHelper.Install(m_network);
    }
    std::vector<uint32_t> hosts(c.ranks);
    for (uint32_t r = 0; r < c.ranks; ++r)
    {
        hosts[r] = r;
    }
    m_group = s.collectiveHelper.Install(m_network, s.rdmaHelper, hosts);
    for (const auto& [name, value] : c.groupAttributes)
    {
        m_group->SetAttribute(name, *value);
    }
    if (!c.stream)
    {
        // Here, not at the first Run, whose errors name collective.algorithm.
        TimeValue latency;
        m_group->GetAttribute("BarrierLatency", latency);
        m_network->GetControlPath()->CheckLatency("collective.barrier_latency =", latency.Get());
    }
    m_algorithm = c.algorithmFactory.Create<CollectiveAlgorithm>();
    m_rankRuns.assign(c.ranks, 0);
    for (uint32_t r = 0; r < c.ranks; ++r)
    {
        if (Ptr<CollectiveApplication> app = m_group->GetApplication(r))
        {
            // The timeline needs every rank's steps: one process, and a cap above zero.  Steps
            // are counted by the ranks (GetStepsFinished), not by a callback per step.
            if (!m_distribution.IsDistributed() && c.timelineMaxSteps > 0)
            {
                app->TraceConnectWithoutContext("Step",
                                                MakeCallback(&ScenarioRun::RecordStep, this));
            }
            app->TraceConnectWithoutContext("Done", MakeCallback(&ScenarioRun::RankRunDone, this));
        }
    }
    if (c.stream)
    {
        QueueCollectives(); // every size's errors surface here
    }
    else
    {
        RunNextCollective(); // at time 0, beside any traffic: the first size's errors surface here
    }
    if (!m_failure.empty())
    {
        throw std::invalid_argument(m_failure);
    }
}

void
ScenarioRun::RunNextCollective()
{
    const CollectiveSpec& c = m_scenario.collective;
    const std::size_t runs = c.sizes.size() * c.RunsPerSize();
    if (m_nextRun >= runs)
    {
        return;
    }
    CollectiveRequest request = m_group->MakeRequest(c.op, c.sizes[m_nextRun / c.RunsPerSize()]);
    request.root = c.root;
    ++m_nextRun;
    try
    {
        m_group->Run(m_algorithm, request, MakeCallback(&ScenarioRun::CollectiveDone, this));
    }
    catch (const std::invalid_argument& e)
    {
        // A later size of a sweep the algorithm refuses: stop, and report it as bad input.
        m_failure = "collective.algorithm = \"" + c.algorithm + "\": " + e.what();
        Simulator::Stop();
    }
}

void
ScenarioRun::QueueCollectives()
{
    const CollectiveSpec& c = m_scenario.collective;
    const std::size_t runs = c.sizes.size() * c.RunsPerSize();
    m_collectives.resize(runs);
    for (std::size_t run = 0; run < runs; ++run)
    {
        CollectiveRequest request = m_group->MakeRequest(c.op, c.sizes[run / c.RunsPerSize()]);
        request.root = c.root;
        try
        {
            m_group->Queue(m_algorithm, request,
                           MakeCallback(&ScenarioRun::QueuedCollectiveDone, this).Bind(run));
        }
        catch (const std::invalid_argument& e)
        {
            m_failure = "collective.algorithm = \"" + c.algorithm + "\": " + e.what();
            return;
        }
    }
}

void
ScenarioRun::QueuedCollectiveDone(std::size_t run, const CollectiveResult& result)
{
    m_collectives[run] = result;
}

void
ScenarioRun::CollectiveDone(const CollectiveResult& result)
{
    m_collectives.push_back(result);
    if (result.failed)
    {
        // Its ranks stopped on a failed queue pair: no later size can run.
        spdlog::warn("collective run {} ({} B) failed at {:.3f} us: a queue pair exceeded its "
                     "retry count; the sweep stops",
                     m_collectives.size() - 1, result.bytes, result.end.GetSeconds() * 1e6);
        return;
    }
    spdlog::debug("{} {} B: {:.3f} us", result.algorithm, result.bytes,
                  result.Duration().GetSeconds() * 1e6);
    Simulator::ScheduleNow(&ScenarioRun::RunNextCollective, this);
}

void
ScenarioRun::RecordStep(const CollectiveStepRecord& step)
{
    // Kept only while timeline.json may still be written: steps within the cap.
    if (m_timelineFull)
    {
        return;
    }
    if (m_timeline.size() < m_scenario.collective.timelineMaxSteps)
    {
        m_timeline.push_back({m_rankRuns[step.rank], step});
    }
    else
    {
        m_timelineFull = true;
        std::vector<TimelineStep>().swap(m_timeline);
    }
}

void
ScenarioRun::RankRunDone(uint32_t rank, Time, Time)
{
    ++m_rankRuns[rank];
}

void
ScenarioRun::WriteCollectiveTable(std::ostream& os) const
{
    const CollectiveSpec& c = m_scenario.collective;
    const bool rooted = c.op == BROADCAST || c.op == REDUCE;
    const bool reducing = c.op == ALL_REDUCE || c.op == REDUCE || c.op == REDUCE_SCATTER;
    os << "# ai-fabric collective: " << CollectiveOperationName(c.op) << ", " << c.ranks
       << " ranks, algorithm " << c.algorithm << ", " << c.iterations << " iteration(s) per size";
    if (c.warmup)
    {
        os << " after " << c.warmup << " warm-up";
    }
    os << "\n";
    if (!c.sizeNote.empty())
    {
        os << "# " << c.sizeNote << "\n";
    }
    os << "#" << std::setw(12) << "size" << std::setw(13) << "count" << std::setw(7) << "type"
       << std::setw(7) << "redop" << std::setw(6) << "root" << std::setw(11) << "time"
       << std::setw(9) << "algbw" << std::setw(9) << "busbw" << "  algorithm\n"
       << "#" << std::setw(12) << "(B)" << std::setw(13) << "(elements)" << std::setw(24) << ""
       << std::setw(11) << "(us)" << std::setw(9) << "(GB/s)" << std::setw(9) << "(GB/s)" << "\n";
    double busbwSum = 0; // for nccl-tests' footer: the mean over the sizes that completed
    std::size_t complete = 0;
    const std::size_t perSize = c.RunsPerSize();
    for (std::size_t i = 0; i < c.sizes.size() && (i + 1) * perSize <= m_collectives.size(); ++i)
    {
        double seconds = 0;
        bool failed = false;
        for (std::size_t k = 0; k < perSize; ++k)
        {
            const CollectiveResult& run = m_collectives[i * perSize + k];
            failed = failed || run.failed;
            seconds += k < c.warmup ? 0.0 : run.Duration().GetSeconds(); // warm-up: untimed
        }
        seconds /= c.iterations;
        const CollectiveResult& r = m_collectives[i * perSize];
        const double algbw = double(r.bytes) / seconds / 1e9;
        const uint64_t count = c.op == ALL_TO_ALL || c.op == REDUCE_SCATTER || c.op == ALL_GATHER
                                   ? r.bytes / 4 / c.ranks
                                   : r.bytes / 4;
        os << std::setw(13) << r.bytes << std::setw(13) << count << std::setw(7) << "float"
           << std::setw(7) << (reducing ? "sum" : "none") << std::setw(6)
           << (rooted ? int(c.root) : -1) << std::fixed << std::setprecision(2);
        if (failed)
        {
            os << std::setw(11) << "failed" << std::setw(9) << "-" << std::setw(9) << "-";
        }
        else
        {
            os << std::setw(11) << seconds * 1e6 << std::setw(9) << algbw << std::setw(9)
               << algbw * BusBandwidthFactor(c.op, c.ranks);
            busbwSum += algbw * BusBandwidthFactor(c.op, c.ranks);
            ++complete;
        }
        os << "  " << r.algorithm << "\n";
        os.unsetf(std::ios::fixed);
    }
    // A failed run ends the sweep; its size's other iterations, if any, never ran.
    if (!m_collectives.empty() && m_collectives.back().failed &&
        m_collectives.size() % perSize != 0)
    {
        const CollectiveResult& r = m_collectives.back();
        os << std::setw(13) << r.bytes << "  failed  " << r.algorithm << "\n";
    }
    if (complete)
    {
        os << "# Avg bus bandwidth    : " << std::fixed << std::setprecision(4)
           << busbwSum / complete << " \n";
        os.unsetf(std::ios::fixed);
    }
}

void
ScenarioRun::WriteCollectives(std::ostream& os) const
{
    const CollectiveSpec& c = m_scenario.collective;
    os << "run,op,algorithm,bytes,ranks,root,iteration,status,start_us,end_us,time_us,"
          "algbw_GBps,busbw_GBps,nccl_model_us\n";
    os << std::setprecision(12); // picosecond times of runs up to seconds long
    for (std::size_t i = 0; i < m_collectives.size(); ++i)
    {
        const CollectiveResult& r = m_collectives[i];
        const double algbw = AlgorithmBandwidth(r);
        const std::size_t k = i % c.RunsPerSize(); // warm-up runs, then the timed ones
        os << i << ',' << CollectiveOperationName(r.op) << ',' << r.algorithm << ',' << r.bytes
           << ',' << r.ranks << ',' << c.root << ',' << (k < c.warmup ? k : k - c.warmup) << ','
           << (c.IsWarmup(i) ? (r.failed ? "warmup_failed" : "warmup")
                             : (r.failed ? "failed" : "complete"))
           << ','
           << r.start.GetSeconds() * 1e6 << ','
           << r.end.GetSeconds() * 1e6 << ',' << r.Duration().GetSeconds() * 1e6 << ',';
        if (!r.failed) // a failed run's time is until it failed: no bandwidth
        {
            os << algbw << ',' << algbw * BusBandwidthFactor(r.op, r.ranks);
        }
        else
        {
            os << ',';
        }
        os << ',';
        if (r.predicted.IsStrictlyPositive())
        {
            os << r.predicted.GetSeconds() * 1e6;
        }
        os << '\n';
    }
}

void
ScenarioRun::WriteTimeline(std::ostream& os) const
{
    // A receive is drawn from the moment its sender posted the message: pair the k-th send of
    // each (run, from, to, channel) with the k-th receive, both in schedule order.
    using Direction = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    std::map<Direction, std::vector<const CollectiveStepRecord*>> sends, recvs;
    std::vector<const TimelineStep*> order;
    for (const auto& t : m_timeline)
    {
        order.push_back(&t);
    }
    std::sort(order.begin(), order.end(), [](const TimelineStep* a, const TimelineStep* b) {
        return std::tie(a->run, a->step.rank, a->step.index) <
               std::tie(b->run, b->step.rank, b->step.index);
    });
    for (const TimelineStep* t : order)
    {
        const auto& s = t->step;
        if (s.kind == CollectiveStep::SEND)
        {
            sends[{t->run, s.rank, s.peer, s.channel}].push_back(&s);
        }
        else if (s.kind == CollectiveStep::RECV)
        {
            recvs[{t->run, s.peer, s.rank, s.channel}].push_back(&s);
        }
    }
    std::map<const CollectiveStepRecord*, Time> recvStart;
    for (const auto& [dir, list] : recvs)
    {
        const auto& matching = sends[dir];
        for (std::size_t k = 0; k < list.size(); ++k)
        {
            recvStart[list[k]] = k < matching.size() ? matching[k]->start : list[k]->start;
        }
    }
    // Lay each rank's spans on the first lane free at their start.
    std::sort(order.begin(), order.end(), [&](const TimelineStep* a, const TimelineStep* b) {
        const Time sa = recvStart.count(&a->step) ? recvStart[&a->step] : a->step.start;
        const Time sb = recvStart.count(&b->step) ? recvStart[&b->step] : b->step.start;
        return std::tie(a->step.rank, sa, a->step.index) < std::tie(b->step.rank, sb, b->step.index);
    });
    std::map<uint32_t, std::vector<Time>> laneEnds;
    os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    for (const TimelineStep* t : order)
    {
        const auto& s = t->step;
        const Time start = recvStart.count(&s) ? recvStart[&s] : s.start;
        auto& lanes = laneEnds[s.rank];
        std::size_t lane = 0;
        while (lane < lanes.size() && lanes[lane] > start)
        {
            ++lane;
        }
        if (lane == lanes.size())
        {
            lanes.push_back(s.end);
        }
        lanes[lane] = s.end;
        const bool comm = s.kind == CollectiveStep::SEND || s.kind == CollectiveStep::RECV;
        os << (first ? "" : ",\n") << "{\"name\":\"" << CollectiveStep::KindName(s.kind);
        if (comm)
        {
            os << (s.kind == CollectiveStep::SEND ? " to " : " from ") << s.peer;
        }
        os << "\",\"cat\":\"" << CollectiveStep::KindName(s.kind) << "\",\"ph\":\"X\",\"pid\":"
           << s.rank << ",\"tid\":" << lane << ",\"ts\":" << start.GetSeconds() * 1e6
           << ",\"dur\":" << (s.end - start).GetSeconds() * 1e6 << ",\"args\":{\"bytes\":"
           << s.bytes << ",\"step\":" << s.index << ",\"run\":" << t->run;
        if (comm)
        {
            os << ",\"peer\":" << s.peer << ",\"channel\":" << s.channel;
        }
        os << "}}";
        first = false;
    }
    for (const auto& [rank, lanes] : laneEnds)
    {
        os << ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << rank
           << ",\"args\":{\"name\":\"rank " << rank << "\"}}";
    }
    os << "\n]}\n";
}

json
ScenarioRun::CollectiveSummary() const
{
    const CollectiveSpec& c = m_scenario.collective;
    json runs = json::array();
    std::size_t failed = 0;
    std::size_t complete = 0; // timed runs only
    for (const auto& r : m_collectives)
    {
        const bool warmup = c.IsWarmup(runs.size());
        if (r.failed)
        {
            ++failed;
            runs.push_back({{"bytes", r.bytes},
                            {"algorithm", r.algorithm},
                            {"failed", true},
                            {"failed_after_us", r.Duration().GetSeconds() * 1e6}});
            if (warmup)
            {
                runs.back()["warmup"] = true;
            }
            continue;
        }
        complete += !warmup;
        const double algbw = AlgorithmBandwidth(r);
        runs.push_back({{"bytes", r.bytes},
                        {"algorithm", r.algorithm},
                        {"time_us", r.Duration().GetSeconds() * 1e6},
                        {"algbw_GBps", algbw},
                        {"busbw_GBps", algbw * BusBandwidthFactor(r.op, r.ranks)}});
        if (warmup)
        {
            runs.back()["warmup"] = true; // untimed
        }
    }
    const bool timeline = m_steps <= c.timelineMaxSteps && !m_distribution.IsDistributed();
    return {{"op", CollectiveOperationName(c.op)},
            {"algorithm", c.algorithm},
            {"ranks", c.ranks},
            {"runs_complete", complete},
            {"runs_failed", failed},
            {"runs", c.sizes.size() * c.iterations}, // timed; warm-ups beside
            {"warmup_runs", c.sizes.size() * c.warmup},
            {"steps", m_steps},
            {"queue_pairs", m_group ? m_group->GetNQueuePairs() : 0},
            {"timeline", timeline                         ? "timeline.json"
                         : m_distribution.IsDistributed() ? "not written: a distributed run"
                                                          : "not written: " +
                                                                std::to_string(m_steps) +
                                                                " steps > collective.timeline_max_steps"},
            {"results", runs}};
}

} // namespace aifabric
