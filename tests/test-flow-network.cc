// The flow-level fabric: max-min fair rates against their closed forms (bottleneck shares,
// ACK load on the reverse path, a send rate limiter), a message's time against its closed form
// and against the packet-level queue pair, and the route a flow takes against its frames'.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
constexpr double kFrameWire = roce::WireBytesForPayload(4096); // 4182
constexpr double kAckWire = roce::WireBytesForFrame(roce::kAckFrameBytes); // 90

/**
 * After its last byte leaves a star's sender: the last frame of \p lastWire bytes through the
 * switch to the receiver and its ACK back (2 m cables, \p bitRate links).
 */
double
StarDelays(Ptr<FabricNetwork> net, double bitRate, double lastWire)
{
    const double forwarding = net->GetSwitch(net->GetNHosts())->GetForwardingLatency().GetSeconds();
    return 4 * 10e-9 + 2 * forwarding + lastWire * 8 / bitRate + 2 * kAckWire * 8 / bitRate;
}

struct Completions
{
    std::vector<Time> done;
    void Record(uint64_t, uint64_t) { done.push_back(Simulator::Now()); }
};

/** A star of \p hosts at \p rate with 2 m cables, its RDMA at \p flow level. */
Ptr<FabricNetwork>
StarNetwork(uint32_t hosts, const char* rate, bool flow, RdmaHelper& rdma)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(hosts, DataRate(rate), 2));
    rdma.SetFlowLevel(flow);
    rdma.Install(net);
    return net;
}

} // namespace

TEST(FlowNetwork, MessageTakesItsWireBytesAtLineRatePlusThePathAndAckDelays)
{
    const uint64_t bytes = (64ull << 20) + 100; // a short last frame
    Time times[2];
    for (bool flow : {false, true})
    {
        RdmaHelper rdma;
        Ptr<FabricNetwork> net = StarNetwork(2, "400Gbps", flow, rdma);
        auto [a, b] = rdma.ConnectMessages(net, 0, 1);
        uint64_t received = 0;
        b->SetReceiveCallback(
            Callback<void, uint64_t>([&received](uint64_t n) { received += n; }));
        Completions c;
        a->PostSend(bytes, MakeCallback(&Completions::Record, &c));
        const double delays = StarDelays(net, 400e9, roce::WireBytesForPayload(100));
        Simulator::Run();
        ASSERT_EQ(c.done.size(), 1u);
        EXPECT_EQ(received, bytes);
        times[flow] = c.done[0];
        Simulator::Destroy();
        if (flow)
        {
            // Closed form: the wire bytes at 400G, then the last frame (100 B of payload)
            // forwarded and serialized once more, then its ACK over both links.
            const double wire = 16384 * kFrameWire + roce::WireBytesForPayload(100);
            EXPECT_NEAR(c.done[0].GetSeconds(), wire * 8 / 400e9 + delays, 4e-12);
        }
    }
    // The packet model paces the same frames; they differ by its per-frame pipeline effects.
    EXPECT_NEAR(times[1].GetSeconds() / times[0].GetSeconds(), 1.0, 0.002)
        << times[0].GetSeconds() << " packet, " << times[1].GetSeconds() << " flow";
}

TEST(FlowNetwork, IncastSharesTheReceiversLinkEqually)
{
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = StarNetwork(4, "100Gbps", true, rdma);
    Completions c;
    for (uint32_t s = 1; s <= 3; ++s)
    {
        rdma.ConnectMessages(net, s, 0).first->PostSend(1 << 20,
                                                        MakeCallback(&Completions::Record, &c));
    }
    Ptr<FlowNetwork> flows = net->GetObject<FlowNetwork>();
    Simulator::Stop(NanoSeconds(1));
    Simulator::Run();
    for (uint32_t f = 0; f < 6; f += 2) // each connection's first end is flow 0, 2, 4
    {
        EXPECT_NEAR(flows->GetRate(f) / (100e9 / 8 / 3), 1.0, 1e-12) << f;
    }
    Simulator::Run();
    ASSERT_EQ(c.done.size(), 3u);
    // All three end together: three messages' wire bytes through one 100G link.
    const double wire = 256 * kFrameWire;
    EXPECT_NEAR(c.done[2].GetSeconds(), 3 * wire * 8 / 100e9 + StarDelays(net, 100e9, kFrameWire),
                4e-12);
    EXPECT_EQ(c.done[0], c.done[2]);
    Simulator::Destroy();
}

TEST(FlowNetwork, OppositeFlowsLeaveRoomForEachOthersAcks)
{
    // Each direction of each link carries one flow's data and the other's ACKs: r (1 + a) = C
    // with a = one ACK frame per data frame.
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = StarNetwork(2, "100Gbps", true, rdma);
    auto [a, b] = rdma.ConnectMessages(net, 0, 1);
    a->PostSend(1 << 20);
    b->PostSend(1 << 20);
    Simulator::Stop(NanoSeconds(1));
    Simulator::Run();
    Ptr<FlowNetwork> flows = net->GetObject<FlowNetwork>();
    const double share = 100e9 / 8 / (1 + kAckWire / kFrameWire);
    EXPECT_NEAR(flows->GetRate(0) / share, 1.0, 1e-12);
    EXPECT_NEAR(flows->GetRate(1) / share, 1.0, 1e-12);
    Simulator::Destroy();
}

TEST(FlowNetwork, LimitedFlowKeepsItsLimitAndTheOtherTakesTheRest)
{
    // Max-min with two bottlenecks: the limiter holds flow 1 -> 0 to 40 Gb/s of payload; the
    // flow 2 -> 0 beside it on host 0's link gets the rest of the link, not half.
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = StarNetwork(3, "100Gbps", true, rdma);
    Ptr<MessageQueuePair> limited = rdma.ConnectMessages(net, 1, 0).first;
    Ptr<MessageQueuePair> free = rdma.ConnectMessages(net, 2, 0).first;
    limited->SetSendRateLimiter(Create<SendRateLimiter>(DataRate("40Gbps")));
    limited->PostSend(1 << 20);
    free->PostSend(1 << 20);
    Simulator::Stop(NanoSeconds(1));
    Simulator::Run();
    Ptr<FlowNetwork> flows = net->GetObject<FlowNetwork>();
    const double limitedWire = 40e9 / 8 * kFrameWire / 4096;
    EXPECT_NEAR(flows->GetRate(0) / limitedWire, 1.0, 1e-12);
    EXPECT_NEAR(flows->GetRate(2) / (100e9 / 8 - limitedWire), 1.0, 1e-12);
    Simulator::Destroy();
}

TEST(FlowNetwork, MessagesOnOneConnectionArriveAndCompleteInOrder)
{
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = StarNetwork(2, "100Gbps", true, rdma);
    auto [a, b] = rdma.ConnectMessages(net, 0, 1);
    std::vector<uint64_t> arrived;
    b->SetReceiveCallback(
        Callback<void, uint64_t>([&arrived](uint64_t n) { arrived.push_back(n); }));
    std::vector<uint64_t> completed;
    // Last frames that shrink (4096 then 1 byte, 1 MiB then 0) must not let the later message
    // overtake the earlier one.
    for (uint64_t bytes : {4096ull, 1ull, 4097ull, 1ull << 20, 0ull})
    {
        a->PostSend(bytes, Callback<void, uint64_t, uint64_t>(
                               [&completed](uint64_t, uint64_t n) { completed.push_back(n); }));
    }
    Simulator::Run();
    const std::vector<uint64_t> sent{4096, 1, 4097, 1 << 20, 0};
    EXPECT_EQ(arrived, sent);
    EXPECT_EQ(completed, sent);
    Simulator::Destroy();
}

namespace
{
/**
 * When 0 -> 1's 64 KiB completed and when the connection failed (zero: never), at \p flow
 * level or packet level, with host 1's link down at 1 us and up again at \p upAt (never if
 * zero; the routes converge at 50 ms with none to host 1).
 */
std::pair<Time, Time>
DeadPath(bool flow, Time upAt)
{
    // Timeouts of 10, 20 and 40 us: the queue pair resends at the first two and fails at the
    // third, 70 us after it last made progress.
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(10)));
    rdma.SetQueuePairAttribute("RetryCount", UintegerValue(2));
    Ptr<FabricNetwork> net = StarNetwork(2, "100Gbps", flow, rdma);
    const FabricTopology& topo = net->GetTopology();
    uint32_t link = 0;
    while (topo.Links()[link].a != topo.HostNode(1) && topo.Links()[link].b != topo.HostNode(1))
    {
        ++link;
    }
    Ptr<FabricChannel> ch = net->GetChannel(link);
    auto [a, b] = rdma.ConnectMessages(net, 0, 1);
    Time done;
    Time failed;
    a->SetErrorCallback(Callback<void>([&failed]() { failed = Simulator::Now(); }));
    a->PostSend(64 << 10, Callback<void, uint64_t, uint64_t>(
                              [&done](uint64_t, uint64_t) { done = Simulator::Now(); }));
    Simulator::Schedule(MicroSeconds(1), &FabricChannel::SetUp, ch, false);
    if (upAt.IsStrictlyPositive())
    {
        Simulator::Schedule(upAt, &FabricChannel::SetUp, ch, true);
    }
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    Simulator::Destroy();
    return {done, failed};
}
} // namespace

TEST(FlowNetwork, AQueuePairOnADeadPathSpendsItsRetriesAsTheRdmaOneDoes)
{
    // The 64 KiB (5.4 us at 100G) loses its path at 1 us.  The queue pair resends at 11 and
    // 31 us (a 4.4 us burst of what is left, the last one to 35.4 us) and fails at 71 us.  A
    // path back before the last burst has gone out lets it complete; after it, or never (the
    // routes then converge on none), it fails: at both fidelities alike.
    const double left = (16 * kFrameWire - 100e9 / 8 * 1e-6) * 8 / 100e9;
    for (const auto& [upUs, completes] :
         std::vector<std::pair<int, bool>>{{20, true}, {33, true}, {50, false}, {0, false}})
    {
        const auto [packetDone, packetFailed] = DeadPath(false, MicroSeconds(upUs));
        const auto [done, failed] = DeadPath(true, MicroSeconds(upUs));
        EXPECT_EQ(!packetDone.IsZero(), completes) << "packet, back at " << upUs << " us";
        EXPECT_EQ(!packetFailed.IsZero(), !completes) << "packet, back at " << upUs << " us";
        EXPECT_EQ(!done.IsZero(), completes) << "flow, back at " << upUs << " us";
        if (completes)
        {
            // At flow level it goes on the moment the path is back (the packet level waits
            // for its next timeout or NAK).
            EXPECT_TRUE(failed.IsZero());
            EXPECT_NEAR(done.GetSeconds(), upUs * 1e-6 + left, 1.5e-6) << upUs; // + the path
        }
        else
        {
            EXPECT_EQ(failed, MicroSeconds(71)) << upUs;
        }
    }
}

TEST(FlowNetwork, AConnectionMadeWithoutARouteWaitsAndGivesUp)
{
    // Every link of the star fails at 1 us; the routes converge 50 ms later with none.  A
    // queue pair connected after that has no route: it waits on no capacity (not an error),
    // resends nothing, and fails after its budget: 10 + 20 + 40 us.
    RdmaHelper rdma;    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(10)));
    rdma.SetQueuePairAttribute("RetryCount", UintegerValue(2));
    Ptr<FabricNetwork> net = StarNetwork(2, "100Gbps", true, rdma);
    for (uint32_t l = 0; l < net->GetTopology().Links().size(); ++l)
    {
        Simulator::Schedule(MicroSeconds(1), &FabricChannel::SetUp, net->GetChannel(l), false);
    }
    Time failed;
    bool done = false;
    Simulator::Schedule(MilliSeconds(60), [&]() {
        Ptr<MessageQueuePair> a = rdma.ConnectMessages(net, 0, 1).first;
        a->SetErrorCallback(Callback<void>([&failed]() { failed = Simulator::Now(); }));
        a->PostSend(4096, Callback<void, uint64_t, uint64_t>(
                              [&done](uint64_t, uint64_t) { done = true; }));
    });
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_FALSE(done);
    EXPECT_EQ(failed, MilliSeconds(60) + MicroSeconds(70));
}
