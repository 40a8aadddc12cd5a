// ECMP: flows spread over equal-cost uplinks; equal seeds polarize; spraying balances bytes.
// The spread check is shared with the module's ai-fabric-ecmp ns-3 suite.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ns3;
using namespace aifabric_test;

using checks::ChiSquare;
using checks::UplinkFrames;

TEST(Ecmp, ManyFlowsSpreadOverAllUplinks)
{
    // The check the module's ai-fabric-ecmp ns-3 suite runs too.
    const checks::SpreadCheck c = checks::EcmpSpread();
    ASSERT_EQ(c.uplinkFrames.size(), 8u);
    for (auto f : c.uplinkFrames)
    {
        EXPECT_GT(f, 0u);
    }
    EXPECT_LT(c.chiSquare, c.bound);
}

namespace
{
/** Largest / smallest frames over the core uplinks of pod 0's aggregation switches. */
double
CoreUplinkImbalance(bool commonSeed)
{
    FabricNetworkHelper helper;
    helper.SetCommonEcmpSeed(commonSeed);
    Ptr<FabricNetwork> net = helper.Install(FatTreeTopologyHelper(4).Build());
    MessageSourceHelper sources;
    for (uint32_t f = 0; f < 400; ++f)
    {
        sources.Install(net, f % 4, 4 + f % 12, 1000, MicroSeconds(f));
    }
    Simulator::Run();
    const FabricTopology& topo = net->GetTopology();
    std::vector<uint64_t> up;
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (topo.GetNode(n).role == FabricTopology::Role::Spine && topo.GetNode(n).group == 0)
        {
            for (auto c : UplinkFrames(net, n, FabricTopology::Role::Core))
            {
                up.push_back(c);
            }
        }
    }
    Simulator::Destroy();
    const auto [lo, hi] = std::minmax_element(up.begin(), up.end());
    return double(*hi) / std::max<double>(1.0, double(*lo));
}
} // namespace

TEST(Ecmp, EqualSeedsPolarizeDistinctSeedsDoNot)
{
    // Same hash at edge and aggregation: a flow's aggregation switch already fixes its core
    // uplink, so each aggregation switch uses one of its two core links.
    EXPECT_GT(CoreUplinkImbalance(true), 10.0);
    EXPECT_LT(CoreUplinkImbalance(false), 1.6);
}

TEST(Ecmp, PacketSprayingBalancesBytesWithinOnePercent)
{
    FabricNetworkHelper helper;
    helper.SetSwitchAttribute("LoadBalancing", EnumValue(FabricSwitch::PACKET_SPRAY));
    Ptr<FabricNetwork> net = helper.Install(LeafSpineTopologyHelper(2, 4, 1).Build());
    MessageSourceHelper sources;
    sources.Install(net, 0, 4, 16 << 20, Time(0));
    Simulator::Run();
    const uint32_t leaf0 = net->GetTopology().GetNHosts();
    const auto up = UplinkFrames(net, leaf0, FabricTopology::Role::Spine);
    Simulator::Destroy();
    ASSERT_EQ(up.size(), 4u);
    const auto [lo, hi] = std::minmax_element(up.begin(), up.end());
    EXPECT_LE(double(*hi - *lo) / double(*hi), 0.01);
}
