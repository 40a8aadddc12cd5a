// ECMP: flows spread over equal-cost uplinks; equal seeds polarize; spraying balances bytes.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** Frames sent by \p node on each of its links toward a node with \p role. */
std::vector<uint64_t>
UplinkFrames(Ptr<FabricNetwork> net, uint32_t node, FabricTopology::Role role)
{
    const FabricTopology& topo = net->GetTopology();
    std::vector<uint64_t> out;
    for (uint32_t l : topo.GetNode(node).links)
    {
        const auto& link = topo.GetLink(l);
        const uint32_t peer = link.a == node ? link.b : link.a;
        if (topo.GetNode(peer).role == role)
        {
            out.push_back(net->GetPort(node, l)->GetCounters().txFrames);
        }
    }
    return out;
}

double
ChiSquare(const std::vector<uint64_t>& counts)
{
    double total = 0;
    for (auto c : counts)
    {
        total += double(c);
    }
    const double expected = total / counts.size();
    double chi = 0;
    for (auto c : counts)
    {
        chi += (double(c) - expected) * (double(c) - expected) / expected;
    }
    return chi;
}
} // namespace

TEST(Ecmp, ManyFlowsSpreadOverAllUplinks)
{
    // 2 leaves x 8 hosts, 8 spines: 800 single-frame flows from leaf 0 to leaf 1.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(
        LeafSpineTopologyHelper(2, 8, 1).Build());
    MessageSourceHelper sources;
    for (uint32_t f = 0; f < 800; ++f)
    {
        sources.Install(net, f % 8, 8 + (f / 8) % 8, 1000, MicroSeconds(f));
    }
    Simulator::Run();
    const uint32_t leaf0 = net->GetTopology().GetNHosts();
    const auto up = UplinkFrames(net, leaf0, FabricTopology::Role::Spine);
    Simulator::Destroy();
    ASSERT_EQ(up.size(), 8u);
    for (auto c : up)
    {
        EXPECT_GT(c, 0u);
    }
    // 7 degrees of freedom: P(chi2 > 24.3) = 0.001 for a uniform hash.
    EXPECT_LT(ChiSquare(up), 24.3);
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
