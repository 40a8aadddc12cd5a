// Switch load balancing beyond ECMP: adaptive routing evens out flows that ECMP's hash piles
// onto one uplink, and with a hysteresis no queue reaches it is ECMP exactly; flowlets keep a
// flow on one path until it pauses, then move it.
#include "fabric-fixture.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using namespace aifabric_test;

using checks::UplinkFrames;

namespace
{
/** Frames on each spine uplink of leaf 0, and when the last message finished. */
struct Spread
{
    std::vector<uint64_t> uplinks;
    Time finish;
    FabricTotals totals;
};

/**
 * A 2-leaf, 4-spine fabric (400G) under \p lb (\p hysteresis for Adaptive): leaf 0's four
 * hosts each send two flows of 4 MiB to a host of leaf 1: 8 flows over 4 uplinks.
 */
Spread
FourFlows(FabricSwitch::LoadBalancing lb, uint64_t hysteresis, bool firstUplinkDown = false)
{
    FabricNetworkHelper helper;
    helper.SetEcmpSeedBase(1); // the hashes whatever the run's seed
    helper.SetSwitchAttribute("LoadBalancing", EnumValue(lb));
    helper.SetSwitchAttribute("AdaptiveHysteresis", UintegerValue(hysteresis));
    Ptr<FabricNetwork> net = helper.Install(LeafSpineTopologyHelper(2, 4, 1).Build());
    const FabricTopology& topo = net->GetTopology();
    const uint32_t leaf0 = topo.GetNHosts();
    if (firstUplinkDown)
    {
        // Down from the start; routing still lists it until it converges (50 ms).
        for (uint32_t l : topo.GetNode(leaf0).links)
        {
            const auto& link = topo.GetLink(l);
            if (topo.GetNode(link.a == leaf0 ? link.b : link.a).role == FabricTopology::Role::Spine)
            {
                net->GetChannel(l)->SetUp(false);
                break;
            }
        }
    }
    MessageSourceHelper sources;
    for (uint32_t f = 0; f < 8; ++f)
    {
        sources.Install(net, f % 4, 4 + f % 4, 4 << 20, Time(0));
    }
    Time finish(0);
    auto done = [&finish](const FrameInfo&) { finish = Simulator::Now(); };
    for (uint32_t h = 4; h < 8; ++h)
    {
        net->GetEndpoint(h)->TraceConnectWithoutContext("Deliver",
                                                        Callback<void, const FrameInfo&>(done));
    }
    Simulator::Stop(MilliSeconds(10));
    Simulator::Run();
    Spread s{UplinkFrames(net, leaf0, FabricTopology::Role::Spine), finish, Totals(net)};
    Simulator::Destroy();
    return s;
}

double
Imbalance(const std::vector<uint64_t>& frames)
{
    const auto [lo, hi] = std::minmax_element(frames.begin(), frames.end());
    return double(*hi - *lo) / double(*hi);
}
} // namespace

TEST(LoadBalancing, AdaptiveRoutingEvensOutFlowsThatEcmpPilesUp)
{
    const Spread ecmp = FourFlows(FabricSwitch::FLOW_HASH, 0);
    const Spread adaptive = FourFlows(FabricSwitch::ADAPTIVE, 0);
    ASSERT_EQ(ecmp.uplinks.size(), 4u);
    // The hash put three or more of the eight flows on one uplink (the test's premise).
    ASSERT_GE(*std::max_element(ecmp.uplinks.begin(), ecmp.uplinks.end()), 3 * 1024u)
        << "the hash spread the flows evenly: nothing to even out";
    EXPECT_LE(Imbalance(adaptive.uplinks), 0.02);
    // Three or more flows of half a NIC each on one uplink take at least 1.5x as long as the
    // NICs allow (five here: 430 us against 173 us); adaptive routing runs every NIC at line
    // rate.
    EXPECT_LT(adaptive.finish.GetSeconds(), 0.75 * ecmp.finish.GetSeconds());
}

TEST(LoadBalancing, AdaptiveRoutingAvoidsALinkThatIsDownBeforeRoutingConverges)
{
    // The dead uplink's queues are empty, but it takes nothing: every frame arrives.
    const Spread ecmp = FourFlows(FabricSwitch::FLOW_HASH, 0, true);
    const Spread adaptive = FourFlows(FabricSwitch::ADAPTIVE, 0, true);
    ASSERT_GT(ecmp.totals.framesDropped, 0u) << "no flow hashed onto the dead uplink";
    EXPECT_EQ(adaptive.totals.framesDropped, 0u);
    EXPECT_GT(adaptive.finish, Time(0));
}

TEST(LoadBalancing, AdaptiveRoutingWithAHysteresisNoQueueReachesIsEcmp)
{
    const Spread ecmp = FourFlows(FabricSwitch::FLOW_HASH, 0);
    const Spread sticky = FourFlows(FabricSwitch::ADAPTIVE, 1ull << 40);
    EXPECT_EQ(sticky.uplinks, ecmp.uplinks);
    EXPECT_EQ(sticky.finish, ecmp.finish);
}

namespace
{
/**
 * One flow (one five-tuple) from host 0 to host 4 in 8 bursts of 256 KiB, 100 us apart (about
 * 95 us idle between bursts at 400G), through flowlet switches with \p gap: the spine uplinks of
 * leaf 0 that carried frames, and whether the receiver saw any burst's frames out of order.
 */
std::pair<std::size_t, bool>
Bursts(Time gap)
{
    FabricNetworkHelper helper;
    helper.SetSwitchAttribute("LoadBalancing", EnumValue(FabricSwitch::FLOWLET));
    helper.SetSwitchAttribute("FlowletGap", TimeValue(gap));
    Ptr<FabricNetwork> net = helper.Install(LeafSpineTopologyHelper(2, 4, 1).Build());
    // One five-tuple (the UDP source port set); each burst its own message id (BTH DestQP),
    // its PSNs from 0.
    MessageSourceHelper sources;
    sources.SetAttribute("UdpSourcePort", UintegerValue(50000));
    for (uint32_t b = 0; b < 8; ++b)
    {
        sources.Install(net, 0, 4, 256 << 10, MicroSeconds(100 * b));
    }
    bool reordered = false;
    std::map<uint32_t, int64_t> lastPsn; // by message
    auto check = [&](const FrameInfo& info) {
        auto [it, first] = lastPsn.emplace(info.destQp, info.psn);
        reordered = reordered || (!first && int64_t(info.psn) < it->second);
        it->second = info.psn;
    };
    net->GetEndpoint(4)->TraceConnectWithoutContext("Deliver",
                                                    Callback<void, const FrameInfo&>(check));
    Simulator::Run();
    const auto up = UplinkFrames(net, net->GetTopology().GetNHosts(), FabricTopology::Role::Spine);
    Simulator::Destroy();
    // A burst is 64 frames: an uplink that carried part of one split a flowlet.
    for (uint64_t frames : up)
    {
        EXPECT_EQ(frames % 64, 0u) << "a burst split over uplinks";
    }
    return {std::size_t(std::count_if(up.begin(), up.end(), [](uint64_t f) { return f > 0; })),
            reordered};
}
} // namespace

TEST(LoadBalancing, FlowletsMoveAFlowOnlyWhenItPauses)
{
    // Pauses of 95 us end a flowlet of a 50 us gap: the bursts take different uplinks.
    const auto [moving, reorderedMoving] = Bursts(MicroSeconds(50));
    EXPECT_GE(moving, 2u);
    EXPECT_FALSE(reorderedMoving);
    // Pauses shorter than the gap: one flowlet, one uplink.
    const auto [staying, reorderedStaying] = Bursts(MicroSeconds(200));
    EXPECT_EQ(staying, 1u);
    EXPECT_FALSE(reorderedStaying);
}
