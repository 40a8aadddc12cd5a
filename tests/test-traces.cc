// The state trace sources people plot, connected through Config paths: each port's queued bytes
// per class and paused state, DCQCN's rate, a queue pair's frames in flight.  Each is checked
// against an independent account of the same run: the port's own counters, its paused time,
// DCQCN's cut rule and the queue pair's completion.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** What the traces of one port said. */
struct PortTrace
{
    std::array<uint64_t, 8> bytes{}; //!< per class, as the trace last left it
    uint64_t enqueued{0};            //!< sum of increases
    uint64_t dequeued{0};            //!< sum of decreases
    bool continuous{true};           //!< each change starts where the last one ended
    std::array<Time, 8> pausedSince{};
    std::array<bool, 8> paused{};
    Time pausedTotal;
    uint32_t pauses{0};
};

std::map<std::string, PortTrace> g_ports;

/** "/NodeList/N/DeviceList/D/$ns3::FabricNetDevice/Source" -> "N/D". */
std::string
PortOf(const std::string& context)
{
    const auto n = context.find("/NodeList/") + 10;
    const auto d = context.find("/DeviceList/");
    const auto end = context.find('/', d + 12);
    return context.substr(n, d - n) + "/" + context.substr(d + 12, end - d - 12);
}

void
OnQueueBytes(std::string context, uint8_t c, uint64_t before, uint64_t after)
{
    PortTrace& t = g_ports[PortOf(context)];
    t.continuous = t.continuous && t.bytes[c] == before;
    t.bytes[c] = after;
    (after > before ? t.enqueued : t.dequeued) += after > before ? after - before : before - after;
}

void
OnPaused(std::string context, uint8_t c, bool paused)
{
    PortTrace& t = g_ports[PortOf(context)];
    t.continuous = t.continuous && t.paused[c] != paused;
    t.paused[c] = paused;
    if (paused)
    {
        t.pausedSince[c] = Simulator::Now();
        ++t.pauses;
    }
    else
    {
        t.pausedTotal += Simulator::Now() - t.pausedSince[c];
    }
}
} // namespace

TEST(Traces, QueueBytesAndPausedAccountForEveryByteAndEveryPausedPicosecond)
{
    // An 8:1 incast of plain messages with PFC: queues build at the switch and pauses reach
    // the senders.
    g_ports.clear();
    const uint32_t senders = 8;
    Ptr<FabricNetwork> net = PausingIncast(senders);
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/QueueBytes",
                    MakeCallback(&OnQueueBytes));
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/Paused",
                    MakeCallback(&OnPaused));
    Simulator::Run();

    uint32_t ports = 0;
    uint32_t pauses = 0;
    const FabricTopology& topo = net->GetTopology();
    for (uint32_t l = 0; l < topo.Links().size(); ++l)
    {
        for (uint32_t node : {topo.GetLink(l).a, topo.GetLink(l).b})
        {
            Ptr<FabricNetDevice> port = net->GetPort(node, l);
            const std::string key =
                std::to_string(node) + "/" + std::to_string(port->GetIfIndex());
            const PortTrace& t = g_ports[key]; // a port that never queued has no entry
            const FabricPortCounters& c = port->GetCounters();
            // Every data frame a port sent passed through its class queues; PFC frames (64 B)
            // go by the control queue.
            const uint64_t pfcBytes = 64 * (c.pfcPauseSent + c.pfcResumeSent);
            EXPECT_TRUE(t.continuous) << key;
            EXPECT_EQ(t.enqueued, c.txBytes - pfcBytes) << key;
            EXPECT_EQ(t.dequeued, t.enqueued) << key;
            for (uint8_t cls = 0; cls < 8; ++cls)
            {
                EXPECT_EQ(t.bytes[cls], 0u) << key;
                EXPECT_FALSE(t.paused[cls]) << key;
            }
            EXPECT_EQ(t.pausedTotal, port->GetPausedTime()) << key;
            pauses += t.pauses;
            ++ports;
        }
    }
    EXPECT_EQ(ports, 2 * (senders + 1));
    EXPECT_GT(pauses, 0u); // PFC acted, so the paused trace was exercised
    Simulator::Destroy();
}

TEST(Traces, DcqcnRateStartsWithTheFirstCutToHalfTheLineRateAndStaysInItsRange)
{
    // 8 DCQCN senders at line rate into one 100G port: the first CNP cuts Rc by alpha / 2 with
    // alpha = 1 (its initial value), to 50 Gb/s; no value leaves [MinRate, line rate].
    const uint32_t senders = 8;
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = DcqcnStar(senders, rdma);
    std::vector<std::vector<double>> rates(senders);
    std::vector<Ptr<RdmaQueuePair>> requesters;
    std::vector<std::vector<uint64_t>> inFlight(senders);
    for (uint32_t s = 0; s < senders; ++s)
    {
        auto [requester, responder] = rdma.Connect(net, s + 1, 0);
        requesters.push_back(requester);
        requester->GetCongestionControl()->TraceConnectWithoutContext(
            "Rate",
            MakeBoundCallback(+[](std::vector<double>* v, double, double now) { v->push_back(now); },
                              &rates[s]));
        requester->TraceConnectWithoutContext(
            "FramesInFlight",
            MakeBoundCallback(
                +[](std::vector<uint64_t>* v, uint64_t, uint64_t now) { v->push_back(now); },
                &inFlight[s]));
        requester->PostSend(4 << 20, MakeNullCallback<void, uint64_t, uint64_t>());
    }
    Simulator::Run();
    for (uint32_t s = 0; s < senders; ++s)
    {
        ASSERT_FALSE(rates[s].empty()) << "sender " << s << " was never cut";
        EXPECT_DOUBLE_EQ(rates[s].front(), 50e9) << "sender " << s;
        for (double r : rates[s])
        {
            EXPECT_GE(r, 1e9);
            EXPECT_LE(r, 100e9);
        }
        const double rate = requesters[s]->GetCongestionControl()->GetRate().GetBitRate();
        EXPECT_EQ(uint64_t(rates[s].back()), uint64_t(rate)); // what the QP is paced at
        // Frames in flight rise from 0 and end at 0 when the message is acknowledged.
        ASSERT_FALSE(inFlight[s].empty());
        EXPECT_EQ(inFlight[s].front(), 1u);
        EXPECT_EQ(inFlight[s].back(), 0u);
        EXPECT_LE(*std::max_element(inFlight[s].begin(), inFlight[s].end()), 1024u);
    }
    Simulator::Destroy();
}

TEST(Traces, TrimSinksSeeEachTrimmedFrameAsItCame)
{
    // A lossy 4:1 incast through a trimming switch: the Trim trace fires once per frame its
    // port counted, with the whole frame before the cut (its class's DSCP, its payload).
    FabricNetworkHelper helper;
    helper.SetMmuAttribute("PfcEnabled", BooleanValue(false));
    helper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("256KiB")));
    helper.SetSwitchAttribute("Trimming", BooleanValue(true));
    Ptr<FabricNetwork> net = helper.Install(Star(5, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionMode", EnumValue(RdmaQueuePair::SELECTIVE_REPEAT));
    rdma.Install(net);
    std::map<std::string, uint64_t> traced;
    uint64_t wrong = 0;
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/Trim",
                    MakeCallback(+[](std::map<std::string, uint64_t>* t,
                                     uint64_t* bad,
                                     std::string context,
                                     Ptr<const Packet> p) {
                        ++(*t)[PortOf(context)];
                        FrameInfo info;
                        const bool ok = roce::ParseDataFrame(*p, info);
                        *bad +=
                            !ok || info.trimmed || info.payloadBytes != 4096 || info.priority != 3;
                    }).Bind(&traced, &wrong));
    for (uint32_t s = 1; s <= 4; ++s)
    {
        rdma.Connect(net, s, 0).first->PostSend(1 << 20,
                                                MakeNullCallback<void, uint64_t, uint64_t>());
    }
    Simulator::Run();
    uint64_t counted = 0;
    for (uint32_t n = 0; n < net->GetTopology().GetNNodes(); ++n)
    {
        Ptr<Node> node = net->GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            const uint64_t c =
                DynamicCast<FabricNetDevice>(node->GetDevice(d))->GetCounters().trimmedFrames;
            counted += c;
            EXPECT_EQ(c, traced[std::to_string(n) + "/" + std::to_string(d)]);
        }
    }
    EXPECT_GT(counted, 0u);
    EXPECT_EQ(wrong, 0u);
    Simulator::Destroy();
}
