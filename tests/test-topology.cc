// Topology formulas and bills of materials.
#include "fabric-fixture.h"

#include "ns3/boolean.h"

#include <gtest/gtest.h>

using namespace ns3;
using Role = FabricTopology::Role;

class FatTreeFormulas : public testing::TestWithParam<uint32_t>
{
};

TEST_P(FatTreeFormulas, HostsSwitchesLinks)
{
    const uint32_t k = GetParam();
    const FabricTopology t = FatTreeTopologyHelper(k).Build();
    EXPECT_EQ(t.GetNHosts(), k * k * k / 4);
    EXPECT_EQ(t.Count(Role::Leaf) + t.Count(Role::Spine) + t.Count(Role::Core), 5 * k * k / 4);
    EXPECT_EQ(t.Links().size(), 3 * k * k * k / 4);
    for (const auto& n : t.Nodes())
    {
        if (n.role != Role::Host)
        {
            EXPECT_EQ(n.links.size(), k) << n.name; // every switch has radix k
        }
    }
    const BillOfMaterials bom = BillOfMaterials::FromTopology(t);
    EXPECT_EQ(bom.Quantity("cable", "copper"), k * k * k / 4);
    EXPECT_EQ(bom.Quantity("cable", "optical"), k * k * k / 2);
    EXPECT_EQ(bom.Quantity("transceiver", "optical"), k * k * k);
    EXPECT_GT(bom.TotalCost(), 0);
    // Every equal-cost path: k^2/4 between pods.
    const auto tables = FabricRouting::ComputeTables(t, std::vector<bool>(t.Links().size(), true));
    const uint32_t edge0 = t.GetNHosts(); // first switch added
    EXPECT_EQ(tables[edge0].NextHops(t.GetNHosts() - 1).size(), k / 2);
    // Table compression: an edge switch stores one port set per attached host, the uplink
    // set, and the empty set, however many hosts there are.
    EXPECT_EQ(tables[edge0].GetNDistinctSets(), k / 2 + 2);
}

INSTANTIATE_TEST_SUITE_P(K, FatTreeFormulas, testing::Values(4u, 6u, 8u));

TEST(Topology, LeafSpineOversubscription)
{
    for (uint32_t ratio : {1u, 2u, 4u})
    {
        const FabricTopology t = LeafSpineTopologyHelper(4, 16, ratio).Build();
        EXPECT_EQ(t.GetNHosts(), 64u);
        EXPECT_EQ(t.Count(Role::Leaf), 4u);
        EXPECT_EQ(t.Count(Role::Spine), 16u / ratio);
        EXPECT_EQ(t.Links().size(), 64u + 4 * 16 / ratio);
    }
    EXPECT_THROW(LeafSpineTopologyHelper(4, 16, 3).Build(), std::invalid_argument);
    EXPECT_THROW(FatTreeTopologyHelper(5).Build(), std::invalid_argument);
}

TEST(Topology, RailOptimizedAndRailOnly)
{
    // 8 servers x 8 GPUs: 8 rail leaves, 8 spines, an NVSwitch per server with its NVLS engine
    // (endpoints after the hosts, on a link as fast as the server's eight NVLinks).
    const FabricTopology t = RailOptimizedTopologyHelper(8, 8).Build();
    EXPECT_EQ(t.GetNHosts(), 64u);
    EXPECT_EQ(t.GetNEndpoints(), 72u);
    EXPECT_EQ(t.Count(Role::Leaf), 8u);
    EXPECT_EQ(t.Count(Role::Spine), 8u);
    EXPECT_EQ(t.Count(Role::NvSwitch), 8u);
    EXPECT_EQ(t.Count(Role::NvlsEngine), 8u);
    EXPECT_EQ(t.Links().size(), 64u /*nvlink*/ + 64 /*nic*/ + 64 /*leaf-spine*/ + 8 /*engine*/);
    for (uint32_t server = 0; server < 8; ++server)
    {
        const uint32_t engine = t.HostNode(*t.NvlsEngineOf(server));
        EXPECT_EQ(t.GetNode(engine).name, "s" + std::to_string(server) + "nvse");
        EXPECT_EQ(t.GetLink(t.GetNode(engine).links.at(0)).rate, DataRate("23731.2Gbps"));
    }
    RailOptimizedTopologyHelper without(8, 8);
    without.SetAttribute("Nvls", BooleanValue(false));
    EXPECT_EQ(without.Build().Links().size(), 192u);
    EXPECT_FALSE(without.Build().NvlsEngineOf(0));
    for (const auto& n : t.Nodes())
    {
        if (n.role == Role::Host)
        {
            // NIC i of every server is on rail i.
            const auto& nic = t.GetLink(n.links[1]);
            EXPECT_EQ(t.GetNode(nic.b).name, "g0r" + std::to_string(n.localIndex));
        }
    }
    // Two groups of 4 servers, 2:1 oversubscribed: 16 leaves with 2 uplinks each.
    RailOptimizedTopologyHelper two(8, 8, 4);
    two.SetOversubscription(2);
    const FabricTopology t2 = two.Build();
    EXPECT_EQ(t2.Count(Role::Leaf), 16u);
    EXPECT_EQ(t2.Count(Role::Spine), 2u);

    RailOptimizedTopologyHelper railOnly(8, 8);
    railOnly.SetRailOnly(true);
    const FabricTopology r = railOnly.Build();
    EXPECT_EQ(r.Count(Role::Spine), 0u);
    EXPECT_TRUE(r.HostsAreTransit());
    // Cross-rail: GPU 0 of server 0 reaches GPU 1 of server 1 over one rail switch, crossing
    // NVLink at the source (to GPU 1, as NCCL's PXN does) or at the destination: two equal
    // paths, one through each of the two ports.
    const auto tables = FabricRouting::ComputeTables(r, std::vector<bool>(r.Links().size(), true));
    const uint32_t src = r.HostNode(0);
    const uint32_t dst = 1 * 8 + 1;
    const auto& hops = tables[src].NextHops(dst);
    ASSERT_EQ(hops.size(), 2u);
    EXPECT_EQ(r.GetLink(r.GetNode(src).links[hops[0]]).medium, FabricTopology::Medium::NvLink);
    // The GPU on the destination's rail relays it straight to its rail switch.
    const uint32_t relay = r.HostNode(1);
    const auto& relayHops = tables[relay].NextHops(dst);
    ASSERT_EQ(relayHops.size(), 1u);
    EXPECT_EQ(r.GetLink(r.GetNode(relay).links[relayHops[0]]).medium,
              FabricTopology::Medium::Copper);
}

// Issue 17: host links were copper at any length; a direct-attach copper cable reaches a few
// metres (IEEE 802.3cd: 3 m), so longer host links are fibre with transceivers.
TEST(Topology, CableMediumFollowsItsLength)
{
    auto count = [](const FabricTopology& t, FabricTopology::Medium m) {
        uint32_t n = 0;
        for (const auto& l : t.Links())
        {
            n += l.medium == m;
        }
        return n;
    };
    LeafSpineTopologyHelper racked(2, 8, 1);
    const FabricTopology near = racked.Build(); // 3 m host links, 30 m to the spines
    EXPECT_EQ(count(near, FabricTopology::Medium::Copper), 16u);
    EXPECT_EQ(count(near, FabricTopology::Medium::Optical), 16u);
    LeafSpineTopologyHelper remote(2, 8, 1);
    remote.SetCableLengths(30, 2, 100); // end-of-row hosts, spines in the same rack
    const FabricTopology far = remote.Build();
    EXPECT_EQ(count(far, FabricTopology::Medium::Copper), 16u);
    EXPECT_EQ(count(far, FabricTopology::Medium::Optical), 16u);
    for (const auto& l : far.Links())
    {
        const bool hostLink = far.GetNode(l.a).role == FabricTopology::Role::Host ||
                              far.GetNode(l.b).role == FabricTopology::Role::Host;
        EXPECT_EQ(l.medium,
                  hostLink ? FabricTopology::Medium::Optical : FabricTopology::Medium::Copper);
    }
}

// Issue 18: links are named by their ends, in either order, and found by name.
TEST(Topology, LinksAreNamedByTheirEnds)
{
    FatTreeTopologyHelper fatTree(4);
    const FabricTopology t = fatTree.Build();
    for (uint32_t l = 0; l < t.Links().size(); ++l)
    {
        const auto& link = t.GetLink(l);
        const std::string a = t.GetNode(link.a).name;
        const std::string b = t.GetNode(link.b).name;
        const std::string name = t.LinkName(l);
        EXPECT_TRUE(name == a + "-" + b || name == b + "-" + a) << name;
        ASSERT_TRUE(t.FindLink(a + "-" + b).has_value()) << name;
        EXPECT_EQ(*t.FindLink(a + "-" + b), l);
        EXPECT_EQ(*t.FindLink(b + "-" + a), l);
    }
    EXPECT_FALSE(t.FindLink("s0g0-c0").has_value()); // a host and a core are not joined
    EXPECT_FALSE(t.FindLink("nosuch-c0").has_value());
    EXPECT_FALSE(t.FindLink("s0g0").has_value());
    FabricTopology bad;
    EXPECT_THROW(bad.AddNode(FabricTopology::Role::Leaf, "leaf-1"), std::invalid_argument);
    EXPECT_THROW(bad.AddNode(FabricTopology::Role::Leaf, ""), std::invalid_argument);
}
