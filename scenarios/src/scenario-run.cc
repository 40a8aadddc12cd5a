#include "scenario-run.h"

#include "progress-reporter.h"

#include "ns3/chakra-trace.h"

#include "ns3/simulator.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{
/** This process's peak resident memory so far. */
uint64_t
PeakRssKb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss);
}

} // namespace

ScenarioRun::ScenarioRun(Scenario& scenario)
    : m_scenario(scenario)
{
}

void
ScenarioRun::SetDistribution(const Distribution& d, std::vector<uint32_t> rankOfNode)
{
    m_distribution = d;
    m_lookahead = Time::Max();
    for (const auto& l : m_scenario.topology.Links())
    {
        if (rankOfNode[l.a] != rankOfNode[l.b])
        {
            ++m_cutLinks;
            m_lookahead = std::min(m_lookahead, l.Delay());
        }
    }
    m_scenario.network.SetPartition(std::move(rankOfNode), d.rank);
}

void
ScenarioRun::TakeStreams(const std::string& consumer, int64_t count)
{
    m_streams.push_back({{"consumer", consumer}, {"first", m_nextStream}, {"count", count}});
    m_nextStream += count;
}

void
ScenarioRun::Install()
{
    m_wallStart = std::chrono::steady_clock::now();
    Scenario& s = m_scenario;
    try
    {
        m_network = s.network.Install(s.topology);
    }
    catch (const BufferSizeError& e)
    {
        const json& doc = s.document;
        const json value = doc.contains("switch") && doc.at("switch").contains("buffer_size")
                               ? doc.at("switch").at("buffer_size")
                               : json("default");
        throw std::invalid_argument("switch.buffer_size = " + value.dump() + ": " + e.what());
    }
    // One plan for the run's random streams: each consumer takes the ones after the last.
    m_nextStream = kTrafficStream;
    TakeStreams("traffic", 1);
    TakeStreams("network", m_network->AssignStreams(m_nextStream));
    if (s.rdma || s.flowLevel)
    {
        InstallQueuePairFlows();
    }
    else
    {
        for (const auto& f : s.flows)
        {
            s.sources.Install(m_network, f.src, f.dst, f.bytes, f.start);
        }
    }
    m_stats.Install(m_network, s.sources);
    if (s.hasCollective)
    {
        InstallCollective();
    }
    if (s.hasTraining)
    {
        InstallJobs();
    }
    if (m_pcap)
    {
        InstallPcaps();
    }
    // An availability run measures fabric states itself: its failures run over the horizon.
    if (s.hasFailures && !s.hasAvailability)
    {
        InstallFailures();
    }
    for (const auto& e : s.linkEvents)
    {
        // Split over MPI ranks, every rank changes the link (its half, or its routing's view)
        // at the same instant.
        Simulator::Schedule(e.at, &FabricNetwork::SetLinkUp, m_network, e.link, e.up);
    }
    if (s.hasMonitor)
    {
        // Last: every NIC exists now, and the queue pairs made later are followed as they come.
        m_monitor = s.monitor.Create<FabricMonitor>();
        m_monitor->Install(m_network);
    }
    if (!s.stopTime.IsZero())
    {
        Simulator::Stop(s.stopTime);
    }
}

void
ScenarioRun::InstallFailures()
{
    // Without jobs, effects are judged for every host's traffic.
    std::set<uint32_t> jobHosts;
    for (uint32_t h = 0; m_jobs.empty() && h < m_network->GetNHosts(); ++h)
    {
        jobHosts.insert(h);
    }
    for (const auto& job : m_jobs)
    {
        for (uint32_t r = 0; r < job->GetNRanks(); ++r)
        {
            jobHosts.insert(job->GetHost(r));
        }
    }
    FailureHelper& helper = m_scenario.failures.helper;
    const auto& installed = helper.Install(m_scenario.topology, m_network, m_nextStream);
    TakeStreams("failures", helper.GetStreamsUsed());
    m_failureLog.Follow(installed, jobHosts, !m_jobs.empty(), m_network, m_jobs);
    helper.InterruptJobs(m_jobs); // a dead GPU or server stops its jobs at once
}

RunFigures
ScenarioRun::Run(bool progress, const RunEstimate* estimate)
{
    const double expected = estimate ? estimate->Events() : 0;
    ProgressReporter reporter(
        std::chrono::seconds(3), !m_distribution.IsDistributed(),
        [expected](Time simulated, double eventsPerSecond) {
            std::string left;
            if (expected > 0 && eventsPerSecond > 0)
            {
                // Past the estimate (it is one): say so rather than count below zero.
                const double events = static_cast<double>(Simulator::GetEventCount());
                left = events < expected
                           ? fmt::format(", {:.0f}% of the estimate, about {:.0f} s left",
                                         100 * events / expected,
                                         (expected - events) / eventsPerSecond)
                           : ", past the estimated events";
            }
            spdlog::info("simulated {:.3f} ms, {:.2f} M events/s{}", simulated.GetSeconds() * 1e3,
                         eventsPerSecond / 1e6, left);
        });
    if (progress)
    {
        reporter.Start();
    }
    Simulator::Run();
    if (m_scenario.stopTime.IsZero() || Simulator::Now() < m_scenario.stopTime)
    {
        for (std::size_t i = 0; i < m_jobs.size() && m_failure.empty(); ++i)
        {
            const std::string stall = m_jobs[i]->DescribeStall();
            if (!stall.empty())
            {
                m_failure = "training.jobs[" + std::to_string(i) + "]: " + stall;
            }
        }
    }
    m_steps = 0;
    for (uint32_t rank = 0; m_group && rank < m_group->GetNRanks(); ++rank)
    {
        if (Ptr<CollectiveApplication> app = m_group->GetApplication(rank))
        {
            m_steps += app->GetStepsFinished();
        }
    }
    RunFigures& r = m_figures;
    r.simulatedSeconds = Simulator::Now().GetSeconds();
    r.events = Simulator::GetEventCount();
    const FabricTopology& topo = m_network->GetTopology();
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (Ptr<FabricSwitch> sw = m_network->GetSwitch(n))
        {
            r.framesForwarded += sw->GetFramesForwarded();
            r.switchBufferPeak = std::max(r.switchBufferPeak, sw->GetMmu()->GetPeakUsed());
        }
        Ptr<Node> node = m_network->GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            // Fabric ports (a distributed run's control path adds another device).
            if (Ptr<FabricNetDevice> port = DynamicCast<FabricNetDevice>(node->GetDevice(d)))
            {
                for (uint64_t x : port->GetCounters().dropFrames)
                {
                    r.framesDropped += x;
                }
                r.framesTrimmed += port->GetCounters().trimmedFrames;
            }
        }
    }
    for (uint32_t h = 0; h < m_network->GetNEndpoints(); ++h)
    {
        if (Ptr<RdmaNic> nic = m_network->GetHostNode(h)->GetObject<RdmaNic>())
        {
            r.rdma = true;
            r.queuePairs += nic->GetNextQpn() - 1;
            r.rdmaTotals += nic->GetTotals();
        }
    }
    r.framesDelivered = m_stats.GetFramesDelivered();
    r.payloadDelivered = m_stats.GetPayloadDelivered();
    // Utilization and the monitor's series end at instants every process agrees on (each
    // rank's simulation ends at its own last event): the last delivery and the last change.
    const auto latest = [this](Time t) {
        return m_distribution.IsDistributed() ? PicoSeconds(MaxOverRanks(t.GetPicoSeconds())) : t;
    };
    m_lastDelivery = latest(m_stats.GetLastDelivery());
    m_pcapHelper.Close();
    if (m_monitor)
    {
        m_monitor->Finish(latest(m_monitor->GetLastChange()));
    }
    if (m_distribution.IsDistributed())
    {
        MergeRanks();
    }
    else
    {
        m_peakRssKb = {PeakRssKb()};
    }
    for (const auto& f : m_stats.Flows())
    {
        if (!f.started)
        {
            continue;
        }
        ++m_figures.flows;
        if (f.Complete())
        {
            ++m_figures.flowsComplete;
            m_figures.maxFctUs =
                std::max(m_figures.maxFctUs, (f.lastArrival - f.start).GetSeconds() * 1e6);
        }
    }
    if (m_scenario.hasCollective && m_scenario.collective.stream)
    {
        // Queued runs report as they finish: keep those finished in order.
        std::size_t done = 0;
        while (done < m_collectives.size() && !m_collectives[done].algorithm.empty())
        {
            ++done;
        }
        m_collectives.resize(done);
    }
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    return r;
}

void
ScenarioRun::MergeRanks()
{
    const RunFigures& r = m_figures;
    const RdmaQpCounters& t = r.rdmaTotals;
    json mine = {
        {"simulated_ps", Simulator::Now().GetPicoSeconds()},
        {"sums",
         {r.events, r.framesForwarded, r.framesDelivered, r.payloadDelivered, r.framesDropped,
          r.framesTrimmed, r.queuePairs, m_steps, m_nSpans, t.framesSent, t.payloadSent,
          t.payloadRetransmitted, t.naksReceived, t.timeouts, t.retryExhausted, t.acksSent,
          t.naksSent, t.cnpsSent, t.cnpsReceived, t.payloadReceived, t.payloadDiscarded,
          t.trimmedReceived}},
        {"buffer_peak", r.switchBufferPeak},
        {"rdma", r.rdma},
        {"peak_rss_kb", PeakRssKb()},
    };
    // Each run as this rank saw its ranks: null if it simulates none of the group's ranks,
    // "incomplete" if one of its ranks did not finish.
    bool hasRanks = false;
    for (uint32_t rank = 0; m_group && rank < m_group->GetNRanks(); ++rank)
    {
        hasRanks = hasRanks || m_group->GetApplication(rank);
    }
    json runs = json::array();
    for (const auto& c : m_collectives)
    {
        if (!hasRanks)
        {
            runs.push_back(nullptr);
        }
        else if (c.algorithm.empty())
        {
            runs.push_back("incomplete");
        }
        else
        {
            runs.push_back({c.start.GetPicoSeconds(), c.end.GetPicoSeconds(), c.failed});
        }
    }
    mine["runs"] = runs;
    json links = json::array();
    for (const auto& row : m_stats.LinkRows(m_lastDelivery))
    {
        links.push_back({row.key, row.text});
    }
    mine["links"] = links;
    // The sender's process starts a message, the receiver's counts its bytes.
    json flows = json::array();
    for (const auto& f : m_stats.Flows())
    {
        if (!f.started && f.delivered == 0)
        {
            continue; // nothing this process saw of that flow
        }
        flows.push_back({f.flowId, f.src, f.dst, f.bytes, f.start.GetPicoSeconds(),
                         f.delivered, f.lastArrival.GetPicoSeconds(), f.started, f.counted});
    }
    mine["flows"] = flows;
    mine["failure_lost"] = m_scenario.hasFailures ? m_failureLog.LostPerRow() : std::vector<uint64_t>{};
    const std::vector<std::string> all = GatherAtRoot(mine.dump(), "results");
    if (m_pcap)
    {
        GatherPcaps();
    }
    if (m_monitor)
    {
        // Each process sampled its own ports and queue pairs.
        std::vector<std::string> series = GatherAtRoot(m_monitor->Serialize(), "monitor");
        if (!series.empty())
        {
            series.erase(series.begin()); // rank 0's own
            m_monitor->Merge(series);
        }
    }
    if (all.empty())
    {
        return; // not rank 0: it writes no results
    }
    RunFigures merged;
    std::vector<uint64_t> sums(mine["sums"].size(), 0);
    std::vector<std::pair<uint64_t, std::string>> linkRows;
    std::vector<uint64_t> failureLost(mine["failure_lost"].size(), 0);
    int64_t simulated = 0;
    for (std::size_t proc = 0; proc < all.size(); ++proc)
    {
        const json rank = json::parse(all[proc]);
        simulated = std::max(simulated, rank["simulated_ps"].get<int64_t>());
        for (std::size_t i = 0; i < sums.size(); ++i)
        {
            sums[i] += rank["sums"][i].get<uint64_t>();
        }
        merged.switchBufferPeak =
            std::max(merged.switchBufferPeak, rank["buffer_peak"].get<uint64_t>());
        merged.rdma = merged.rdma || rank["rdma"].get<bool>();
        m_peakRssKb.push_back(rank["peak_rss_kb"].get<uint64_t>());
        m_eventsPerRank.push_back(rank["sums"][0].get<uint64_t>());
        // Every rank follows every failure process, so all have the same rows.
        if (rank.at("failure_lost").size() != failureLost.size() ||
            rank.at("runs").size() != m_collectives.size())
        {
            throw std::logic_error("MergeRanks: the MPI ranks recorded different failures or "
                                   "collective runs");
        }
        for (std::size_t i = 0; i < m_collectives.size(); ++i)
        {
            const json& run = rank["runs"].at(i);
            CollectiveResult& c = m_collectives[i];
            if (run.is_null())
            {
                continue;
            }
            if (run.is_string())
            {
                c.algorithm.clear(); // some rank did not finish it
                c.start = Time::Max();
                continue;
            }
            c.start = std::min(c.start, PicoSeconds(run[0].get<int64_t>()));
            // A failed run ends when its rank failed, however late another rank finished.
            const Time end = PicoSeconds(run[1].get<int64_t>());
            const bool failed = run[2].get<bool>();
            if (failed && !c.failed)
            {
                c.end = end;
            }
            else if (failed == c.failed)
            {
                c.end = std::max(c.end, end);
            }
            c.failed = c.failed || failed;
        }
        for (std::size_t i = 0; i < failureLost.size(); ++i)
        {
            failureLost[i] += rank["failure_lost"].at(i).get<uint64_t>();
        }
        for (const auto& row : rank["links"])
        {
            linkRows.emplace_back(row[0].get<uint64_t>(), row[1].get<std::string>());
        }
        if (proc == 0)
        {
            continue; // this process's flow records are m_stats's own
        }
        std::vector<FabricStatsHelper::FlowRecord> flows;
        for (const auto& row : rank["flows"])
        {
            FabricStatsHelper::FlowRecord& f = flows.emplace_back();
            f.flowId = row[0].get<uint32_t>();
            f.src = row[1].get<uint32_t>();
            f.dst = row[2].get<uint32_t>();
            f.bytes = row[3].get<uint64_t>();
            f.start = PicoSeconds(row[4].get<int64_t>());
            f.delivered = row[5].get<uint64_t>();
            f.lastArrival = PicoSeconds(row[6].get<int64_t>());
            f.started = row[7].get<bool>();
            f.counted = row[8].get<bool>();
        }
        m_stats.MergeFlows(flows);
    }
    std::size_t k = 0;
    for (uint64_t* field : {&merged.events, &merged.framesForwarded, &merged.framesDelivered,
                            &merged.payloadDelivered, &merged.framesDropped,
                            &merged.framesTrimmed})
    {
        *field = sums[k++];
    }
    merged.queuePairs = static_cast<uint32_t>(sums[k++]);
    m_steps = sums[k++];
    m_nSpans = sums[k++];
    RdmaQpCounters& mt = merged.rdmaTotals;
    for (uint64_t* field : {&mt.framesSent, &mt.payloadSent, &mt.payloadRetransmitted,
                            &mt.naksReceived, &mt.timeouts, &mt.retryExhausted, &mt.acksSent,
                            &mt.naksSent, &mt.cnpsSent, &mt.cnpsReceived, &mt.payloadReceived,
                            &mt.payloadDiscarded, &mt.trimmedReceived})
    {
        *field = sums[k++];
    }
    merged.simulatedSeconds = PicoSeconds(simulated).GetSeconds();
    if (m_scenario.hasFailures)
    {
        m_failureLog.SetLostPerRow(std::move(failureLost));
    }
    m_figures = merged;
    std::sort(linkRows.begin(), linkRows.end());
    for (const auto& [key, text] : linkRows)
    {
        m_mergedLinks += text;
    }
}

void
ScenarioRun::EnablePcap(const std::filesystem::path& folder)
{
    m_pcap = true;
    m_pcapFolder = folder;
}

void
ScenarioRun::InstallPcaps()
{
    std::string failure;
    if (m_pcapFolder.empty())
    {
        // Another rank than 0: its captures wait here until rank 0 gathers them.
        std::error_code error;
        std::string pattern =
            (std::filesystem::temp_directory_path(error) / "ai-fabric-pcap.XXXXXX").string();
        if (error || !::mkdtemp(pattern.data()))
        {
            failure = "pcap: rank " + std::to_string(m_distribution.rank) +
                      " cannot create a temporary folder: " +
                      (error ? error.message() : std::string(std::strerror(errno)));
        }
        else
        {
            m_pcapFolder = pattern;
            m_pcapPrivate = true;
        }
    }
    // The staging folder stays flat: pcap-<node>-<peer>.pcap
    m_pcapHelper.SetSnapLength(m_scenario.pcap.snapLength);
    for (std::size_t i = 0; i < m_scenario.pcap.nodes.size() && failure.empty(); ++i)
    {
        try
        {
            m_pcapHelper.EnablePcap((m_pcapFolder / "pcap-").string(), m_network,
                                    m_scenario.pcap.nodes[i]);
        }
        catch (const std::invalid_argument& e)
        {
            failure = e.what(); // a file the results folder cannot take
        }
    }
    // Split over ranks, every rank stops if one cannot capture (none waits for it).
    const bool anyFailed = m_distribution.IsDistributed() ? MaxOverRanks(!failure.empty())
                                                          : !failure.empty();
    if (anyFailed)
    {
        throw ResultsWriteError(failure.empty() ? "pcap: another rank cannot write its captures"
                                                : failure);
    }
}

ScenarioRun::~ScenarioRun()
{
    if (m_pcapPrivate)
    {
        std::error_code ignored; // gathered, or the run stopped before: the folder goes
        std::filesystem::remove_all(m_pcapFolder, ignored);
    }
}

void
ScenarioRun::GatherPcaps()
{
    namespace fs = std::filesystem;
    // Each file as <name size><name><bytes size><bytes>, sizes as 8 raw bytes.
    const auto put = [](std::string& out, const std::string& text) {
        const uint64_t n = text.size();
        out.append(reinterpret_cast<const char*>(&n), sizeof(n));
        out += text;
    };
    std::string mine;
    int64_t unreadable = 0;
    if (m_pcapPrivate)
    {
        std::vector<fs::path> files;
        std::error_code error;
        for (fs::directory_iterator entry(m_pcapFolder, error), end; !error && entry != end;
             entry.increment(error))
        {
            files.push_back(entry->path());
        }
        unreadable = bool(error);
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files)
        {
            std::ifstream in(file, std::ios::binary);
            std::ostringstream bytes;
            bytes << in.rdbuf();
            unreadable = unreadable || !in;
            put(mine, file.filename().string());
            put(mine, bytes.str());
        }
    }
    // Every rank learns of a problem, so all stop alike instead of leaving rank 0 waiting.
    if (MaxOverRanks(unreadable))
    {
        throw ResultsWriteError("pcap: a rank could not read back its captures");
    }
    const std::vector<std::string> blobs =
        GatherAtRoot(mine, "pcap (capture fewer nodes or a shorter pcap.snap_length)");
    for (std::size_t proc = 1; proc < blobs.size(); ++proc)
    {
        const std::string& blob = blobs[proc];
        std::size_t at = 0;
        const auto take = [&blob, &at]() {
            uint64_t n = 0;
            std::memcpy(&n, blob.data() + at, sizeof(n));
            at += sizeof(n);
            std::string text = blob.substr(at, n);
            at += n;
            return text;
        };
        while (at < blob.size())
        {
            std::string name = take();
            m_rankPcaps.emplace_back(std::move(name), take());
        }
    }
}

void
ScenarioRun::InstallQueuePairFlows()
{
    Scenario& s = m_scenario;
    s.rdmaHelper.Install(m_network); // at flow level: the FlowNetwork, for messages too
    for (uint32_t id = 0; id < s.flows.size(); ++id)
    {
        const TrafficFlow& f = s.flows[id];
        Ptr<MessageQueuePair> qp =
            s.rdma ? s.rdmaHelper.ConnectMessages(m_network, f.src, f.dst).first
                   : s.sources.ConnectFlowLevel(m_network, f.src, f.dst);
        if (!qp)
        {
            continue; // the sender is another rank's host: that rank records the flow
        }
        Simulator::Schedule(f.start, [this, qp, id, f]() {
            m_stats.MessagePosted(id, f.src, f.dst, f.bytes);
            qp->PostSend(f.bytes, Callback<void, uint64_t, uint64_t>([this, id](uint64_t, uint64_t) {
                             m_stats.MessageAcknowledged(id);
                         }));
        });
    }
}

void
ScenarioRun::WriteResults(ResultsFolder& folder, const std::string& version) const
{
    const RunFigures& r = m_figures;
    // Utilization over the time traffic ran: the simulation itself may idle on a little after
    // the last delivery (the progress reporter's last check).
    const bool distributed = m_distribution.IsDistributed();
    folder.Write("links.csv", [&](std::ostream& f) {
        distributed ? void(f << FabricStatsHelper::LinksHeader() << m_mergedLinks)
                    : m_stats.WriteLinks(f, m_lastDelivery);
    });
    folder.Write("flows.csv", [&](std::ostream& f) { m_stats.WriteFlows(f); });
    for (const auto& [name, bytes] : m_rankPcaps)
    {
        folder.Write(name, [&bytes = bytes](std::ostream& f) { f << bytes; });
    }
    if (m_scenario.hasCollective)
    {
        folder.Write("collectives.csv", [&](std::ostream& f) { WriteCollectives(f); });
    }
    // The timeline needs every rank's steps; a distributed run gathers only their count.
    if (m_scenario.hasCollective && !distributed &&
        m_steps <= m_scenario.collective.timelineMaxSteps)
    {
        folder.Write("timeline.json", [&](std::ostream& f) { WriteTimeline(f); });
    }
    if (m_scenario.hasFailures)
    {
        folder.Write("failures.csv", [&](std::ostream& f) { m_failureLog.WriteCsv(f); });
    }
    if (m_scenario.training.chakraTraces)
    {
        // Files of their own, so the folder stays flat: trace-<job>.<rank>.et and the groups.
        for (const auto& job : m_jobs)
        {
            const std::string prefix = "trace-" + job->GetName();
            folder.Write(prefix + ".groups.json", [&job](std::ostream& f) {
                ChakraTrace::WriteGroups(f, TrainingJobHelper::TraceGroups(job));
            });
            for (uint32_t r = 0; r < job->GetNRanks(); ++r)
            {
                folder.Write(prefix + "." + std::to_string(r) + ".et", [&job, r](std::ostream& f) {
                    ChakraTrace::Write(f, TrainingJobHelper::TraceNodes(job, r), r);
                });
            }
        }
    }
    const BillOfMaterials bom = BillOfMaterials::FromTopology(m_scenario.topology, m_scenario.prices);
    folder.Write("bom.csv", [&](std::ostream& f) { bom.WriteCsv(f); });
    json summary = {
        {"scenario", m_scenario.document},
        {"name", m_scenario.name},
        {"seed", m_scenario.seed},
        {"version", version},
        {"wall_seconds", r.wallSeconds},
        {"simulated_seconds", r.simulatedSeconds},
        {"last_delivery_seconds", m_lastDelivery.GetSeconds()},
        {"events", r.events},
        {"hosts", m_scenario.topology.GetNHosts()},
        {"switches", m_scenario.topology.GetNNodes() - m_scenario.topology.GetNEndpoints()},
        {"links", m_scenario.topology.Links().size()},
        {"frames_forwarded", r.framesForwarded},
        {"frames_delivered", r.framesDelivered},
        {"payload_bytes_delivered", r.payloadDelivered},
        {"frames_dropped", r.framesDropped},
        {"frames_trimmed", r.framesTrimmed},
        {"flows", r.flows},
        {"flows_complete", r.flowsComplete},
        {"max_fct_us", r.maxFctUs},
        {"switch_buffer_peak_bytes", r.switchBufferPeak},
        {"bom_total_usd", bom.TotalCost()},
        {"random_streams", m_streams},
        {"mpi_ranks", m_distribution.ranks},
        {"peak_rss_kb_per_rank", m_peakRssKb},
    };
    if (const ServerPreset* server = m_scenario.server)
    {
        summary["server"] = {{"name", server->name},
                             {"description", server->description},
                             {"gpus_per_server", server->gpus},
                             {"nvswitch_chips", server->nvSwitches},
                             {"nvlinks_per_gpu", server->nvLinks},
                             {"nvlink_GBps_per_link", server->nvLinkGBps},
                             {"nic_Gbps", server->nicGbps},
                             {"hbm_TBps", server->hbmTBps},
                             {"peak_bf16_TFLOPs", server->peakBf16Tflops},
                             {"sources", server->sources}};
    }
    summary["fidelity"] = m_scenario.fidelity;
    if (Ptr<FlowNetwork> flows = m_network->GetObject<FlowNetwork>())
    {
        json notModelled = {"queues and buffer occupancy", "PFC pauses and head-of-line blocking",
                            "ECN marks and congestion control", "drops and retransmissions",
                            "bit errors", "traffic classes (every flow shares fairly)",
                            "the order a port serves its queue pairs in",
                            "frames (the frame, drop and buffer figures here are zero)",
                            "a queue pair's restart (timeout or NAK) after a link failure"};
        if (m_scenario.fidelity == "collective")
        {
            notModelled.push_back("the steps of pipelined collectives (each runs in its steady "
                                  "state: a flow per connection, and its critical path)");
        }
        // Frames, queues and queue-pair counters above are those of the unused packet model.
        summary["flow_level"] = {
            {"not_modelled", notModelled},
            {"queue_pairs_failed", flows->GetFlowsFailed()},
            {"rate_recomputations", flows->GetRecomputations()},
            {"data_frames", flows->GetDataFrames()},
            {"frame_hops", std::llround(flows->GetFrameHops())},
        };
    }
    if (r.rdma && !m_scenario.flowLevel)
    {
        // Every payload byte is sent once plus its retransmissions, and accepted once.
        const RdmaQpCounters& t = r.rdmaTotals;
        summary["rdma"] = {{"queue_pairs", r.queuePairs},
                           {"data_frames_sent", t.framesSent},
                           {"payload_sent_bytes", t.payloadSent},
                           {"payload_retransmitted_bytes", t.payloadRetransmitted},
                           {"payload_accepted_bytes", t.payloadReceived},
                           {"payload_discarded_bytes", t.payloadDiscarded},
                           {"trimmed_frames_received", t.trimmedReceived},
                           {"timeouts", t.timeouts},
                           {"queue_pairs_failed", t.retryExhausted},
                           {"naks_sent", t.naksSent},
                           {"cnps_sent", t.cnpsSent}};
    }
    if (distributed)
    {
        // What bounds the parallel speed-up: the busiest rank's events, and one synchronization
        // per lookahead of simulated time.
        summary["distributed"] = {
            {"ranks_by", m_distribution.ranksBy},
            {"cut_links", m_cutLinks},
            {"lookahead_ns", m_cutLinks ? m_lookahead.GetSeconds() * 1e9 : 0.0},
            {"events_per_rank", m_eventsPerRank},
        };
    }
    if (m_scenario.hasFailures)
    {
        summary["failures"] = m_failureLog.Summary();
    }
    if (m_monitor)
    {
        folder.Write("monitor-ports.csv", [&](std::ostream& f) { m_monitor->WritePorts(f); });
        folder.Write("monitor-qps.csv", [&](std::ostream& f) { m_monitor->WriteQueuePairs(f); });
        summary["monitor"] = {{"interval_us", m_monitor->GetInterval().GetSeconds() * 1e6},
                              {"rows", m_monitor->GetRows()},
                              {"truncated", m_monitor->IsTruncated()}};
    }
    if (m_scenario.hasCollective)
    {
        summary["collective"] = CollectiveSummary();
    }
    if (m_scenario.hasTraining)
    {
        summary["training"] = TrainingSummary();
        folder.Write("iterations.csv", [&](std::ostream& f) { WriteIterations(f); });
        folder.Write("ranks.csv", [&](std::ostream& f) { WriteRankIterations(f); });
        // As the collective's: a distributed run gathers only the spans' count.
        if (!distributed && m_nSpans <= m_scenario.training.timelineMaxSpans)
        {
            folder.Write("timeline.json", [&](std::ostream& f) { WriteJobTimeline(f); });
        }
    }
    folder.Write("summary.json", [&](std::ostream& f) { f << summary.dump(2) << '\n'; });
    folder.Commit();
}

} // namespace aifabric
