// Entropy per frame (RdmaQueuePair's Entropy): a sprayed queue pair's frames spread over every
// path as independent draws do, its ACKs return on their frames' ports, and recycling keeps
// the ports of unmarked frames: on an unloaded path it stops drawing, and it moves a flow off
// a path that runs at a quarter rate, where spraying is held to twice that path's rate.
#include "fabric-fixture.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <set>

using namespace ns3;
using namespace aifabric_test;

using checks::UplinkFrames;

namespace
{
struct EntropyRun
{
    std::vector<uint64_t> uplinks; //!< frames up each spine uplink of leaf 0
    std::set<uint16_t> dataPorts;  //!< UDP source ports of the data frames delivered
    std::set<uint16_t> ackPorts;   //!< and of the ACKs and NAKs delivered
    std::vector<Time> done;        //!< each flow's completion
    RdmaQpCounters requesters;     //!< summed (packet level)
    RdmaQpCounters responders;     //!< summed (packet level)
    Time baseRtt;                  //!< a full frame's and its ACK's, without queueing
    uint64_t markedData{0};        //!< data frames delivered CE-marked
    uint64_t echoingAcks{0};       //!< ACKs and NAKs delivered with the BECN bit
    uint64_t acks{0};              //!< ACKs and NAKs delivered
    uint64_t data{0};              //!< data frames delivered
};

/**
 * A 2-leaf leaf-spine (non-blocking, \p hostsPerLeaf hosts per leaf at 100G, flow-hash
 * switches, PFC, no congestion control, selective repeat): host i of leaf 0 sends \p bytes to
 * host i of leaf 1 for i < \p flows, under Entropy \p mode.  The link from the last spine to
 * leaf 1 runs at \p slowLink of its rate.  \p flowLevel: the flow-level model instead.
 * \p kmin: the ports' ECN marking threshold per 25G, bytes (0: the default; the ramp to
 * every frame marked ends at twice it).  Each flow's bytes go as \p messages messages;
 * done records the last's completion.
 */
EntropyRun
Spread(RdmaQueuePair::EntropyMode mode,
       uint32_t hostsPerLeaf,
       uint32_t flows,
       uint64_t bytes,
       double slowLink = 1.0,
       bool flowLevel = false,
       uint64_t kmin = 0,
       uint32_t messages = 1)
{
    FabricNetworkHelper helper;
    helper.SetEcmpSeedBase(1); // the hashes whatever the run's seed
    if (kmin)
    {
        helper.SetDeviceAttribute("EcnKminPer25G",
                                  QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, kmin)));
        helper.SetDeviceAttribute("EcnKmaxPer25G",
                                  QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, 2 * kmin)));
    }
    LeafSpineTopologyHelper topology(2, hostsPerLeaf, 1);
    topology.SetAttribute("NicRate", DataRateValue(DataRate("100Gbps")));
    Ptr<FabricNetwork> net = helper.Install(topology.Build());
    net->AssignStreams(0);
    const FabricTopology& topo = net->GetTopology();
    const uint32_t leaf0 = topo.GetNHosts();
    const uint32_t leaf1 = leaf0 + 1;
    if (slowLink < 1.0)
    {
        uint32_t last = 0;
        for (uint32_t l : topo.GetNode(leaf1).links)
        {
            const auto& link = topo.GetLink(l);
            if (topo.GetNode(link.a == leaf1 ? link.b : link.a).role == FabricTopology::Role::Spine)
            {
                last = l;
            }
        }
        net->GetChannel(last)->DegradeRate(slowLink, true);
    }
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("Entropy", EnumValue(mode));
    rdma.SetQueuePairAttribute("RetransmissionMode", EnumValue(RdmaQueuePair::SELECTIVE_REPEAT));
    rdma.SetFlowLevel(flowLevel);
    rdma.Install(net);
    EntropyRun r;
    r.done.assign(flows, Time(-1));
    r.baseRtt = net->GetLargestBaseRtt();
    auto seen = [&r](const FrameInfo& info) {
        if (info.opcode == BthHeader::CNP)
        {
            return; // sent to every congestion control; none here reads them
        }
        const bool ack = info.opcode == BthHeader::RC_ACKNOWLEDGE;
        (ack ? r.ackPorts : r.dataPorts).insert(info.udpSrcPort);
        ++(ack ? r.acks : r.data);
        r.echoingAcks += ack && info.ecnEcho;
        r.markedData += !ack && info.ecn == Ipv4Header::ECN_CE;
    };
    std::vector<std::pair<Ptr<MessageQueuePair>, Ptr<MessageQueuePair>>> qps;
    for (uint32_t f = 0; f < flows; ++f)
    {
        for (uint32_t h : {f, hostsPerLeaf + f})
        {
            net->GetEndpoint(h)->TraceConnectWithoutContext("Deliver",
                                                            Callback<void, const FrameInfo&>(seen));
        }
        qps.push_back(rdma.ConnectMessages(net, f, hostsPerLeaf + f));
        for (uint32_t m = 0; m < messages; ++m)
        {
            qps.back().first->PostSend(
                bytes / messages,
                Callback<void, uint64_t, uint64_t>(
                    [&r, f](uint64_t, uint64_t) { r.done[f] = Simulator::Now(); }));
        }
    }
    Simulator::Run();
    for (const auto& [requester, responder] : qps)
    {
        if (auto rq = DynamicCast<RdmaQueuePair>(requester))
        {
            r.requesters += rq->GetCounters();
            r.responders += DynamicCast<RdmaQueuePair>(responder)->GetCounters();
        }
    }
    r.uplinks = UplinkFrames(net, leaf0, FabricTopology::Role::Spine);
    Simulator::Destroy();
    return r;
}

/** The expected number of distinct values among \p n uniform draws of \p k. */
double
ExpectedDistinct(double n, double k)
{
    return k * (1 - std::pow(1 - 1 / k, n));
}
} // namespace

TEST(Entropy, FixedKeepsAQueuePairOnOnePathAndSprayingSpreadsItAsIndependentDraws)
{
    const uint64_t frames = 4096; // 16 MiB at the 4 KiB MTU
    const EntropyRun fixed = Spread(RdmaQueuePair::FIXED_ENTROPY, 4, 1, frames * 4096);
    const EntropyRun spray = Spread(RdmaQueuePair::SPRAY_ENTROPY, 4, 1, frames * 4096);
    ASSERT_EQ(fixed.uplinks.size(), 4u);
    EXPECT_EQ(fixed.dataPorts.size(), 1u);
    EXPECT_EQ(*std::max_element(fixed.uplinks.begin(), fixed.uplinks.end()), frames);
    // Each uplink a binomial share: 1024 +- 5 standard deviations (27.7 each).
    for (uint64_t n : spray.uplinks)
    {
        EXPECT_NEAR(double(n), frames / 4.0, 5 * std::sqrt(frames * 0.25 * 0.75)) << n;
    }
    // Draws from the 16,384 ports of the dynamic range repeat as independent draws do
    // (3,624 distinct expected of 4,096 draws).
    EXPECT_NEAR(double(spray.dataPorts.size()), ExpectedDistinct(frames, 16384), 60);
    std::cout << "Spray: uplinks";
    for (uint64_t n : spray.uplinks)
    {
        std::cout << " " << n;
    }
    std::cout << ", " << spray.dataPorts.size() << " distinct ports\n";
    // Each ACK leaves with its frame's port (an ACK per frame: the same ports).
    EXPECT_EQ(spray.ackPorts, spray.dataPorts);
    // One flow at line rate either way; nothing lost, nothing resent.
    EXPECT_EQ(spray.requesters.payloadRetransmitted, 0u);
    EXPECT_NEAR(spray.done[0].GetSeconds(),
                fixed.done[0].GetSeconds(),
                0.01 * fixed.done[0].GetSeconds());
}

TEST(Entropy, RecyclingOnAnUnloadedPathDrawsOnlyInTheFirstRoundTrip)
{
    // Every ACK comes back unmarked, so once ACKs flow each frame reuses a port an ACK
    // returned: the ports drawn are the frames sent in the first base round trip (5.03 us, 16
    // frames at 100G), whatever the message's length, give or take a send that finds the
    // cache just emptied.
    const EntropyRun shorter = Spread(RdmaQueuePair::RECYCLE_ENTROPY, 4, 1, 1024 * 4096);
    const EntropyRun longer = Spread(RdmaQueuePair::RECYCLE_ENTROPY, 4, 1, 16384 * 4096);
    const double frameSeconds = roce::WireBytesForPayload(4096) * 8 / 100e9;
    const auto firstRoundTrip =
        static_cast<std::size_t>(std::ceil(longer.baseRtt.GetSeconds() / frameSeconds));
    EXPECT_GE(longer.dataPorts.size(), firstRoundTrip);
    EXPECT_LE(longer.dataPorts.size(), firstRoundTrip + 2);
    EXPECT_EQ(longer.dataPorts.size(), shorter.dataPorts.size());
    std::cout << "Recycle, unloaded: " << shorter.dataPorts.size() << " ports for 1,024 frames, "
              << longer.dataPorts.size() << " for 16,384; the first round trip holds "
              << firstRoundTrip << " frames\n";
    EXPECT_EQ(longer.ackPorts, longer.dataPorts);
    EXPECT_EQ(longer.requesters.payloadRetransmitted, 0u);
}

TEST(Entropy, RecyclingFillsAQuarterRatePathToItsRateWhereHashingAndSprayingAreHeldBelow)
{
    // Two spines; the second's link down to leaf 1 runs at 25G, and the flow hashes onto it.
    // Hashed, the flow runs at 25G.  Sprayed, half its frames take the slow path, so it runs
    // at twice that rate at most (here less: the slow path's frames arrive past the reorder
    // threshold and are resent needlessly).  Recycling reuses the ports of the frames no queue
    // marked: the flow runs at the NIC's 100G and the slow path carries a quarter of it, its
    // rate.
    const uint64_t bytes = 64ull << 20;
    const EntropyRun fixed = Spread(RdmaQueuePair::FIXED_ENTROPY, 2, 1, bytes, 0.25);
    const EntropyRun spray = Spread(RdmaQueuePair::SPRAY_ENTROPY, 2, 1, bytes, 0.25);
    const EntropyRun recycle = Spread(RdmaQueuePair::RECYCLE_ENTROPY, 2, 1, bytes, 0.25);
    const double wire = double(bytes) / 4096 * roce::WireBytesForPayload(4096) * 8; // bits
    const auto rate = [wire](const EntropyRun& r) { return wire / r.done[0].GetSeconds(); };
    ASSERT_EQ(fixed.uplinks, (std::vector<uint64_t>{0, bytes / 4096})) << "hashed elsewhere";
    EXPECT_NEAR(rate(fixed), 25e9, 0.01 * 25e9);
    EXPECT_LE(rate(spray), 50e9);
    EXPECT_GT(rate(spray), 1.2 * rate(fixed));
    // Sprayed, each spine took half the frames sent (resends included), within 5 sigma.
    const double sent = double(spray.uplinks[0] + spray.uplinks[1]);
    EXPECT_NEAR(double(spray.uplinks[1]), sent / 2, 5 * std::sqrt(sent / 4));
    EXPECT_GT(rate(recycle), 0.98 * 100e9);
    EXPECT_EQ(recycle.requesters.payloadRetransmitted, 0u);
    // No queue reached the marking threshold: ports return at the rate their path delivers
    // frames (the ACK clock), so each path's share of the reuses is its share of the rate.
    EXPECT_EQ(recycle.markedData, 0u);
    const double slowShare = double(recycle.uplinks[1]) / double(bytes / 4096);
    std::cout << "Quarter-rate path: hashed " << rate(fixed) / 1e9 << " Gb/s, sprayed "
              << rate(spray) / 1e9 << " Gb/s (" << spray.requesters.payloadRetransmitted
              << " bytes resent), recycled " << rate(recycle) / 1e9 << " Gb/s, the slow path "
              << 100 * slowShare << "% of its frames\n";
    EXPECT_NEAR(slowShare, 0.25, 0.01);
}

TEST(Entropy, RecyclingForgetsThePortsOfMarkedFrames)
{
    // The same quarter-rate path, marking from 8 KB queued per 25G (8 KB at the slow port, two
    // frames): every ACK or NAK echoes the mark of the one frame that brought it, and the ports
    // of marked frames are not reused, so the slow path carries less than its rate's share
    // (25%, what the ACK clock alone gives it above).
    const uint64_t bytes = 64ull << 20;
    const EntropyRun recycle =
        Spread(RdmaQueuePair::RECYCLE_ENTROPY, 2, 1, bytes, 0.25, false, 8000);
    EXPECT_EQ(recycle.acks, recycle.data);
    EXPECT_GT(recycle.markedData, 0u);
    EXPECT_EQ(recycle.echoingAcks, recycle.markedData);
    const double slowShare = double(recycle.uplinks[1]) / double(bytes / 4096);
    EXPECT_LT(slowShare, 0.25);
    const double wire = double(bytes) / 4096 * roce::WireBytesForPayload(4096) * 8; // bits
    EXPECT_GT(wire / recycle.done[0].GetSeconds(), 0.98 * 100e9);
    std::cout << "Quarter-rate path marking at 8 KB: " << recycle.markedData
              << " frames marked, the slow path " << 100 * slowShare << "% of the frames\n";
}

TEST(Entropy, AGapThatFillsAcrossMessageEndsIsAcknowledgedOnce)
{
    // Sprayed 2-frame messages arrive out of order over four spines: gaps fill across
    // message ends, and each arriving frame still brings one ACK or NAK, so a recycled port
    // comes back once per frame.
    const EntropyRun r =
        Spread(RdmaQueuePair::RECYCLE_ENTROPY, 4, 4, 16ull << 20, 1.0, false, 0, 2048);
    EXPECT_GT(r.responders.naksSent, 0u) << "nothing arrived out of order";
    EXPECT_EQ(r.acks, r.data);
    EXPECT_EQ(r.responders.payloadReceived, 4 * (16ull << 20));
}

TEST(Entropy, ASprayingQueuePairOnARailOnlyFabricPacesAtItsNicNotItsNvlink)
{
    // Rail-only: a frame to another server's GPU on another rail may cross NVLink first or
    // last (equal cost), but a sprayed queue pair's rate and frames are its NIC's.
    RailOptimizedTopologyHelper rail(2, 2, 2);
    rail.SetRailOnly(true);
    rail.SetAttribute("NicRate", DataRateValue(DataRate("400Gbps")));
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(rail.Build());
    ASSERT_EQ(net->GetEndpoint(0)->NextHops(3).size(), 2u) << "no NVLink route beside the NIC's";
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("Entropy", EnumValue(RdmaQueuePair::SPRAY_ENTROPY));
    rdma.Install(net);
    Ptr<RdmaQueuePair> qp = rdma.Connect(net, 0, 3).first;
    EXPECT_EQ(qp->GetCongestionControl()->GetLineRate(), DataRate("400Gbps"));
    Simulator::Destroy();
}

TEST(Entropy, FlowLevelSplitsASprayedQueuePairEvenlyAsItsFramesDo)
{
    // Four flows over four spines: hashed, some share an uplink; sprayed, each runs at line
    // rate at both levels.
    const uint64_t bytes = 16ull << 20;
    const EntropyRun packet = Spread(RdmaQueuePair::SPRAY_ENTROPY, 4, 4, bytes);
    const EntropyRun flow = Spread(RdmaQueuePair::SPRAY_ENTROPY, 4, 4, bytes, 1.0, true);
    const EntropyRun hashed = Spread(RdmaQueuePair::FIXED_ENTROPY, 4, 4, bytes, 1.0, true);
    const auto last = [](const EntropyRun& r) {
        return std::max_element(r.done.begin(), r.done.end())->GetSeconds();
    };
    // The fluid split is exact; the frames' draws queue briefly where they collide.
    EXPECT_NEAR(last(flow) / last(packet), 1.0, 0.03);
    EXPECT_GT(last(hashed), 1.5 * last(flow)) << "the hash spread the flows evenly";
}
