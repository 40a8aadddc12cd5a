// FabricMonitor's time series against the trace sources it samples: every row holds the value
// the trace last reported at or before the row's time (recorded here independently, change by
// change), the bytes a port sent add up to its counters, and monitoring changes no result.
#include "fabric-fixture.h"
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** A value's history: (time, value after the change), in time order. */
template <typename T>
using History = std::vector<std::pair<Time, T>>;

/** The value \p h held after every change at or before \p t (\p initial before any). */
template <typename T>
T
At(const History<T>& h, Time t, T initial)
{
    T v = initial;
    for (const auto& [when, value] : h)
    {
        if (when > t)
        {
            break;
        }
        v = value;
    }
    return v;
}

std::vector<std::vector<std::string>>
Rows(const std::string& csv)
{
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
    {
        std::vector<std::string> cells;
        std::istringstream cellStream(line);
        std::string cell;
        while (std::getline(cellStream, cell, ','))
        {
            cells.push_back(cell);
        }
        rows.push_back(cells);
    }
    return rows;
}

using PortKey = std::tuple<std::string, std::string, unsigned>; // node, peer, class
std::map<PortKey, History<uint64_t>> g_bytes;
std::map<PortKey, History<bool>> g_paused;
std::map<PortKey, uint64_t> g_left; // bytes that left the queue

void
OnBytes(std::pair<std::string, std::string>* port, uint8_t c, uint64_t before, uint64_t after)
{
    const PortKey key{port->first, port->second, c};
    g_bytes[key].emplace_back(Simulator::Now(), after);
    if (after < before)
    {
        g_left[key] += before - after;
    }
}

void
OnPaused(std::pair<std::string, std::string>* port, uint8_t c, bool paused)
{
    g_paused[PortKey{port->first, port->second, c}].emplace_back(Simulator::Now(), paused);
}
} // namespace

TEST(Monitor, EachSampleIsTheQueueAndPauseStateAtItsTimeAndSentBytesAddUp)
{
    g_bytes.clear();
    g_paused.clear();
    g_left.clear();
    const uint32_t senders = 8;
    Ptr<FabricNetwork> net = PausingIncast(senders);
    Ptr<FabricMonitor> monitor = CreateObject<FabricMonitor>();
    monitor->SetAttribute("Interval", TimeValue(MicroSeconds(5)));
    monitor->SetAttribute("Ports", EnumValue(FabricMonitor::ALL_PORTS));
    monitor->Install(net);
    const FabricTopology& topo = net->GetTopology();
    std::vector<std::pair<std::string, std::string>> names;
    names.reserve(2 * topo.Links().size());
    for (uint32_t l = 0; l < topo.Links().size(); ++l)
    {
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t node = end ? topo.GetLink(l).b : topo.GetLink(l).a;
            const uint32_t peer = end ? topo.GetLink(l).a : topo.GetLink(l).b;
            names.emplace_back(topo.GetNode(node).name, topo.GetNode(peer).name);
            Ptr<FabricNetDevice> port = net->GetPort(node, l);
            port->TraceConnectWithoutContext("QueueBytes", MakeBoundCallback(&OnBytes, &names.back()));
            port->TraceConnectWithoutContext("Paused", MakeBoundCallback(&OnPaused, &names.back()));
        }
    }
    Simulator::Run();
    monitor->Finish(monitor->GetLastChange());
    std::ostringstream csv;
    monitor->WritePorts(csv);

    std::map<PortKey, uint64_t> sent;
    uint32_t rows = 0;
    uint32_t pausedRows = 0;
    uint64_t maxQueue = 0;
    for (const auto& r : Rows(csv.str()))
    {
        ASSERT_EQ(r.size(), 7u);
        const Time t = MicroSeconds(std::stod(r[0]));
        const PortKey key{r[1], r[2], std::stoul(r[3])};
        EXPECT_EQ(std::stoull(r[4]), At<uint64_t>(g_bytes[key], t, 0)) << r[0] << " " << r[1];
        EXPECT_EQ(r[5] == "1", At<bool>(g_paused[key], t, false)) << r[0] << " " << r[1];
        sent[key] += std::stoull(r[6]);
        pausedRows += r[5] == "1";
        maxQueue = std::max<uint64_t>(maxQueue, std::stoull(r[4]));
        ++rows;
    }
    EXPECT_EQ(monitor->GetRows(), rows);
    EXPECT_FALSE(monitor->IsTruncated());
    EXPECT_GT(pausedRows, 0u);
    EXPECT_GT(maxQueue, 1u << 20); // the switch's port toward the receiver queued megabytes
    // Samples run to the last change: every byte that left a queue is in some row.
    EXPECT_EQ(sent, g_left);
    Simulator::Destroy();
}

TEST(Monitor, QueuePairRowsAreTheReportedRateAndFramesInFlightAndMaxRowsTruncatesJoinedSeriesToo)
{
    const uint32_t senders = 8;
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = DcqcnStar(senders, rdma);
    Ptr<FabricMonitor> monitor = CreateObject<FabricMonitor>();
    monitor->SetAttribute("Interval", TimeValue(MicroSeconds(5)));
    monitor->Install(net); // before the queue pairs exist: it follows their creation
    std::map<std::string, History<double>> rates;      // by node name
    std::map<std::string, History<uint64_t>> inFlight; // by node name
    const FabricTopology& topo = net->GetTopology();
    for (uint32_t s = 1; s <= senders; ++s)
    {
        auto [requester, responder] = rdma.Connect(net, s, 0);
        const std::string name = topo.GetNode(topo.HostNode(s)).name;
        requester->GetCongestionControl()->TraceConnectWithoutContext(
            "Rate",
            MakeBoundCallback(+[](History<double>* h, double, double v) {
                h->emplace_back(Simulator::Now(), v);
            }, &rates[name]));
        requester->TraceConnectWithoutContext(
            "FramesInFlight",
            MakeBoundCallback(+[](History<uint64_t>* h, uint64_t, uint64_t v) {
                h->emplace_back(Simulator::Now(), v);
            }, &inFlight[name]));
        requester->PostSend(2 << 20, MakeNullCallback<void, uint64_t, uint64_t>());
    }
    Simulator::Run();
    monitor->Finish(monitor->GetLastChange());
    std::ostringstream csv;
    monitor->WriteQueuePairs(csv);
    std::set<std::string> nodes;
    uint32_t cut = 0;
    for (const auto& r : Rows(csv.str()))
    {
        ASSERT_EQ(r.size(), 6u);
        const Time t = MicroSeconds(std::stod(r[0]));
        nodes.insert(r[1]);
        EXPECT_EQ(r[3], topo.GetNode(topo.HostNode(0)).name);
        EXPECT_NEAR(std::stod(r[4]), At<double>(rates[r[1]], t, 100e9) / 1e9, 1e-3) << r[0];
        EXPECT_EQ(std::stoull(r[5]), At<uint64_t>(inFlight[r[1]], t, 0)) << r[0];
        cut += std::stod(r[4]) < 100;
    }
    EXPECT_EQ(nodes.size(), senders); // requesters only: responders have nothing in flight
    EXPECT_GT(cut, 0u);               // DCQCN acted
    const uint64_t all = monitor->GetRows();
    const std::string series = monitor->Serialize();
    Simulator::Destroy();

    // A monitor of the same interval with room for half the rows, on \p net.
    const auto halfMonitor = [all](Ptr<FabricNetwork> net) {
        Ptr<FabricMonitor> m = CreateObject<FabricMonitor>();
        m->SetAttribute("Interval", TimeValue(MicroSeconds(5)));
        m->SetAttribute("MaxRows", UintegerValue(all / 2));
        m->Install(net);
        return m;
    };
    // The same run with room for half the rows stops recording and says so.
    RdmaHelper rdma2;
    Ptr<FabricNetwork> again = DcqcnStar(senders, rdma2);
    Ptr<FabricMonitor> small = halfMonitor(again);
    for (uint32_t s = 1; s <= senders; ++s)
    {
        rdma2.Connect(again, s, 0).first->PostSend(2 << 20,
                                                   MakeNullCallback<void, uint64_t, uint64_t>());
    }
    Simulator::Run();
    small->Finish(small->GetLastChange());
    EXPECT_TRUE(small->IsTruncated());
    EXPECT_LE(small->GetRows(), all / 2);
    EXPECT_GT(small->GetRows(), 0u);
    Simulator::Destroy();

    // The whole series joined (as rank 0 joins another rank's) into a monitor that saw nothing,
    // with room for half the rows: the series up to the last sample that fits them all.
    RdmaHelper rdma3;
    Ptr<FabricMonitor> joined = halfMonitor(DcqcnStar(senders, rdma3));
    joined->Finish(Seconds(0));
    EXPECT_EQ(joined->GetRows(), 0u);
    joined->Merge({series});
    EXPECT_TRUE(joined->IsTruncated());
    std::ostringstream qps;
    std::ostringstream ports;
    joined->WriteQueuePairs(qps);
    joined->WritePorts(ports);
    std::ostringstream fullPorts;
    monitor->WritePorts(fullPorts);
    // A prefix of each table, cut where the next sample would pass MaxRows.
    EXPECT_EQ(csv.str().rfind(qps.str(), 0), 0u);
    EXPECT_EQ(fullPorts.str().rfind(ports.str(), 0), 0u);
    const auto fullQpRows = Rows(csv.str());
    const auto fullPortRows = Rows(fullPorts.str());
    const auto keptQp = Rows(qps.str()).size();
    const auto keptPort = Rows(ports.str()).size();
    EXPECT_EQ(joined->GetRows(), keptQp + keptPort);
    EXPECT_LE(joined->GetRows(), all / 2);
    ASSERT_LT(keptQp, fullQpRows.size());
    const double next = std::stod(fullQpRows[keptQp][0]); // the first sample dropped
    std::size_t upToNext = 0;
    for (const auto* table : {&fullQpRows, &fullPortRows})
    {
        for (const auto& r : *table)
        {
            upToNext += std::stod(r[0]) <= next;
        }
    }
    EXPECT_GT(upToNext, all / 2);
    Simulator::Destroy();
}

TEST(Monitor, ThroughTheRunnerItWritesItsFilesAndChangesNoResult)
{
    // The shipped DCQCN incast with and without a monitor section: the same flows, links and
    // summary figures; the monitored run adds its two files and a summary block.
    namespace fs = std::filesystem;
    const fs::path dir = Scratch("monitor");
    const std::string base = std::string(AI_FABRIC_SCENARIO_DIR) + "/incast-16to1-dcqcn.json";
    std::string text = ReadFile(base);
    const auto brace = text.rfind('}');
    text = text.substr(0, brace) + ", \"monitor\": {\"interval\": \"50us\", \"ports\": \"all\"}}";
    std::ofstream(dir / "monitored.json") << text;
    Outcome plain = RunProgram(AI_FABRIC_RUN_BINARY,
                               "--scenario=" + base + " --out=" + (dir / "plain").string(), dir);
    ASSERT_EQ(plain.exitCode, 0) << plain.stderrText;
    Outcome watched = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "monitored.json").string() +
                                     " --out=" + (dir / "watched").string(),
                                 dir);
    ASSERT_EQ(watched.exitCode, 0) << watched.stderrText;
    for (const char* file : {"links.csv", "flows.csv", "bom.csv"})
    {
        EXPECT_EQ(ReadFile(dir / "plain" / file), ReadFile(dir / "watched" / file)) << file;
    }
    const auto ports = ReadCsv(dir / "watched" / "monitor-ports.csv");
    const auto qps = ReadCsv(dir / "watched" / "monitor-qps.csv");
    EXPECT_GT(ports.size(), 0u);
    EXPECT_GT(qps.size(), 0u);
    const std::string summary = ReadFile(dir / "watched" / "summary.json");
    EXPECT_NE(summary.find("\"rows\": " + std::to_string(ports.size() + qps.size())),
              std::string::npos);
    EXPECT_NE(summary.find("\"truncated\": false"), std::string::npos);
    // Without link failures every dequeued byte was sent: every host's data and ACK/CNP.
    uint64_t sent = 0;
    for (const auto& row : ports)
    {
        sent += std::stoull(row.at("dequeued_bytes"));
    }
    uint64_t dataBytes = 0;
    for (const auto& row : ReadCsv(dir / "watched" / "links.csv"))
    {
        dataBytes += std::stoull(row.at("tx_bytes")) -
                     64 * (std::stoull(row.at("pfc_pause_sent")) + std::stoull(row.at("pfc_resume_sent")));
    }
    EXPECT_EQ(sent, dataBytes);

    // A bad value names the key.
    std::ofstream(dir / "bad.json")
        << text.substr(0, text.rfind("\"50us\"")) + "\"0s\", \"ports\": \"all\"}}";
    const Outcome bad = RunProgram(AI_FABRIC_RUN_BINARY,
                                   "--scenario=" + (dir / "bad.json").string() +
                                       " --out=" + (dir / "bad").string(),
                                   dir);
    ExpectRefusedAsBadInput(bad, dir / "bad", "monitor.interval");
    fs::remove_all(dir);
}

// A distributed run's flows.csv: the sender's process starts a message, the receiver's counts
// its bytes; joined, the row is the one a single process writes.
TEST(FlowsTable, MergeFlowsJoinsTheSendersStartAndTheReceiversBytes)
{
    FabricStatsHelper sender;
    sender.MessagePosted(0, 1, 2, 1000); // at time 0
    sender.MessagePosted(1, 2, 1, 500);  // never delivered
    FabricStatsHelper::FlowRecord received;
    received.flowId = 0;
    received.src = 1;
    received.dst = 2;
    received.bytes = 1000;
    received.delivered = 1000;
    received.lastArrival = MicroSeconds(5);
    received.counted = true;
    sender.MergeFlows({received, FabricStatsHelper::FlowRecord{}}); // and an empty record
    std::ostringstream csv;
    sender.WriteFlows(csv);
    EXPECT_EQ(csv.str(),
              "flow_id,src,dst,bytes,delivered_bytes,start_us,finish_us,fct_us,complete\n"
              "0,1,2,1000,1000,0.000000,5.000000,5.000000,1\n"
              "1,2,1,500,0,0.000000,,,0\n");
    // The other way round: the receiver's process (rank 0) takes the sender's start.
    FabricStatsHelper receiver;
    FabricStatsHelper::FlowRecord sent = received;
    sent.delivered = 0;
    sent.lastArrival = Time(0);
    sent.start = MicroSeconds(2);
    sent.started = true;
    sent.counted = false;
    receiver.MergeFlows({received});
    receiver.MergeFlows({sent});
    std::ostringstream joined;
    receiver.WriteFlows(joined);
    EXPECT_EQ(joined.str(),
              "flow_id,src,dst,bytes,delivered_bytes,start_us,finish_us,fct_us,complete\n"
              "0,1,2,1000,1000,2.000000,5.000000,3.000000,1\n");
    Simulator::Destroy();
}
