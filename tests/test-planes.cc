// Multi-plane fabrics (TopologyHelper's Planes): P copies of the switches and their cables at
// 1/P of the rate, each NIC a port into each; the bill of materials counts every plane; a
// sprayed queue pair uses every plane, and a plane's dead link takes its share and no more.
// (The NIC serves its planes' ports in turn: RdmaQueuePair::ChooseEntropy.)
#include "fabric-fixture.h"

#include <gtest/gtest.h>
#include <iostream>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** A 2-leaf leaf-spine of \p hostsPerLeaf single-GPU servers at 400G in \p planes planes. */
FabricTopology
LeafSpine(uint32_t hostsPerLeaf, uint32_t planes)
{
    LeafSpineTopologyHelper topology(2, hostsPerLeaf, 1);
    topology.SetAttribute("Planes", UintegerValue(planes));
    return topology.Build();
}

/**
 * Host 0 sends \p bytes to the last host of a 2-leaf, 2-host-per-leaf leaf-spine at 400G in 4
 * planes, its queue pair's Entropy \p mode (selective repeat, no congestion control), with
 * host 0's link into plane 2 down from the start (\p deadPlaneLink) and routing converging at
 * once (or, \p converged false, after the default 50 ms, later than the transfer ends).
 * Returns when the message completed.
 */
Time
Transfer(RdmaQueuePair::EntropyMode mode, uint64_t bytes, bool deadPlaneLink, bool converged = true)
{
    FabricNetworkHelper helper;
    helper.SetEcmpSeedBase(1);
    if (converged)
    {
        helper.SetRoutingAttribute("ConvergenceDelay", TimeValue(Time(0)));
    }
    Ptr<FabricNetwork> net = helper.Install(LeafSpine(2, 4));
    net->AssignStreams(0);
    if (deadPlaneLink)
    {
        const FabricTopology& topo = net->GetTopology();
        net->GetChannel(topo.GetNode(topo.HostNode(0)).links[2])->SetUp(false);
    }
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("Entropy", EnumValue(mode));
    rdma.SetQueuePairAttribute("RetransmissionMode", EnumValue(RdmaQueuePair::SELECTIVE_REPEAT));
    rdma.Install(net);
    Time done(-1);
    auto [requester, responder] = rdma.Connect(net, 0, 3);
    requester->PostSend(bytes, Callback<void, uint64_t, uint64_t>([&done](uint64_t, uint64_t) {
                            done = Simulator::Now();
                        }));
    Simulator::Run();
    Simulator::Destroy();
    return done;
}
} // namespace

TEST(Planes, EachPlaneIsACopyOfTheSwitchesAtAQuarterOfTheRate)
{
    const FabricTopology one = LeafSpine(4, 1);
    const FabricTopology four = LeafSpine(4, 4);
    using Role = FabricTopology::Role;
    EXPECT_EQ(four.GetNHosts(), one.GetNHosts());
    for (Role r : {Role::Leaf, Role::Spine})
    {
        EXPECT_EQ(four.Count(r), 4 * one.Count(r));
    }
    EXPECT_EQ(four.Links().size(), 4 * one.Links().size());
    // Each host: four NIC ports, one into each plane's copy of its leaf, at 100G.
    for (uint32_t h = 0; h < four.GetNHosts(); ++h)
    {
        const auto& host = four.GetNode(four.HostNode(h));
        ASSERT_EQ(host.links.size(), 4u);
        const uint32_t leaf = one.GetLink(one.GetNode(one.HostNode(h)).links[0]).b;
        for (uint32_t p = 0; p < 4; ++p)
        {
            const auto& link = four.GetLink(host.links[p]);
            EXPECT_EQ(link.rate, DataRate("100Gbps"));
            EXPECT_EQ(four.GetNode(link.b).name, one.GetNode(leaf).name + "_p" + std::to_string(p));
        }
    }
    // Every plane a fabric of its own: no link joins two planes.
    for (const auto& l : four.Links())
    {
        const std::string& a = four.GetNode(l.a).name;
        const std::string& b = four.GetNode(l.b).name;
        if (four.GetNode(l.a).role != Role::Host)
        {
            EXPECT_EQ(a.substr(a.find("_p")), b.substr(b.find("_p"))) << a << "-" << b;
        }
    }
    // Routing: four equal-cost ports from a host to a host of the other leaf.
    const auto tables =
        FabricRouting::ComputeTables(four, std::vector<bool>(four.Links().size(), true));
    EXPECT_EQ(tables[four.HostNode(0)].NextHops(4).size(), 4u);
}

TEST(Planes, MultiGpuServersKeepTheirNvlinksOnceAndTheirNicsSplit)
{
    // Rail-optimized, 2 servers of 4 GPUs at 400G in 2 planes: each GPU keeps one NVLink to
    // its NVSwitch and has two 200G ports, into its rail leaf's two copies.
    RailOptimizedTopologyHelper rail(2, 4, 2);
    rail.SetAttribute("Planes", UintegerValue(2));
    const FabricTopology two = rail.Build();
    const FabricTopology one = RailOptimizedTopologyHelper(2, 4, 2).Build();
    using Role = FabricTopology::Role;
    EXPECT_EQ(two.Count(Role::NvSwitch), one.Count(Role::NvSwitch));
    EXPECT_EQ(two.Count(Role::Leaf), 2 * one.Count(Role::Leaf));
    for (uint32_t h = 0; h < two.GetNHosts(); ++h)
    {
        uint32_t nvlinks = 0;
        std::vector<DataRate> nics;
        for (uint32_t l : two.GetNode(two.HostNode(h)).links)
        {
            if (two.GetLink(l).medium == FabricTopology::Medium::NvLink)
            {
                ++nvlinks;
            }
            else
            {
                nics.push_back(two.GetLink(l).rate);
            }
        }
        EXPECT_EQ(nvlinks, 1u);
        EXPECT_EQ(nics, (std::vector<DataRate>{DataRate("200Gbps"), DataRate("200Gbps")}));
    }
}

TEST(Planes, TheTunerReadsTheNicAsItsPortsTogether)
{
    RailOptimizedTopologyHelper rail(2, 4, 2);
    rail.SetAttribute("Planes", UintegerValue(2));
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(rail.Build());
    RdmaHelper rdma;
    rdma.Install(net);
    Ptr<CollectiveGroup> group = CollectiveHelper().Install(net, rdma, {0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(group->MakeRequest(ALL_REDUCE, 1 << 20).nicRate, DataRate("400Gbps"));
    Simulator::Destroy();
}

TEST(Planes, ASprayingQueuePairsCongestionControlRunsAtTheWholeNic)
{
    // DCQCN's line rate (its start and recovery target) is the four plane ports' 400G when
    // the queue pair sprays, one port's 100G when it keeps to one plane.
    for (auto [mode, rate] : {std::pair{RdmaQueuePair::SPRAY_ENTROPY, "400Gbps"},
                              std::pair{RdmaQueuePair::FIXED_ENTROPY, "100Gbps"}})
    {
        Ptr<FabricNetwork> net = FabricNetworkHelper().Install(LeafSpine(2, 4));
        RdmaHelper rdma = RdmaRunning(DcqcnCongestionControl::GetTypeId());
        rdma.SetQueuePairAttribute("Entropy", EnumValue(mode));
        rdma.Install(net);
        Ptr<RdmaQueuePair> qp = rdma.Connect(net, 0, 3).first;
        EXPECT_EQ(qp->GetCongestionControl()->GetLineRate(), DataRate(rate));
        EXPECT_EQ(qp->GetCongestionControl()->GetRate(), DataRate(rate));
        Simulator::Destroy();
    }
}

TEST(Planes, ANicIsOneComponentWithAPortInEveryPlane)
{
    // A NIC fails as one part: every plane's port; a link or transceiver fails in its plane.
    const FabricTopology four = LeafSpine(4, 4);
    const auto nics = FailureHelper::Components(four, "nic");
    ASSERT_EQ(nics.size(), four.GetNHosts());
    for (const auto& nic : nics)
    {
        EXPECT_EQ(nic.links.size(), 4u) << nic.name;
    }
    for (const auto& link : FailureHelper::Components(four, "link"))
    {
        EXPECT_EQ(link.links.size(), 1u);
    }
}

TEST(Planes, TheBillOfMaterialsCountsEveryPlane)
{
    // Four planes at a quarter of the rate: four times the switches and cables, the same
    // switch ports' and transceivers' cost per Gb/s, four times the fibre.
    const BomPrices prices;
    const BillOfMaterials one = BillOfMaterials::FromTopology(LeafSpine(4, 1), prices);
    const BillOfMaterials four = BillOfMaterials::FromTopology(LeafSpine(4, 4), prices);
    EXPECT_EQ(four.Quantity("switch", "leaf 8-port"), 4 * one.Quantity("switch", "leaf 8-port"));
    EXPECT_EQ(four.Quantity("switch", "spine 2-port"), 4 * one.Quantity("switch", "spine 2-port"));
    EXPECT_EQ(four.Quantity("cable", "copper"), 4 * one.Quantity("cable", "copper"));
    EXPECT_EQ(four.Quantity("cable", "optical"), 4 * one.Quantity("cable", "optical"));
    EXPECT_EQ(four.Quantity("cable", "fibre metres"), 4 * one.Quantity("cable", "fibre metres"));
    EXPECT_EQ(four.Quantity("transceiver", "optical"), 4 * one.Quantity("transceiver", "optical"));
    const double fibre = prices.fibrePerMetre * double(one.Quantity("cable", "fibre metres"));
    EXPECT_NEAR(four.TotalCost() - one.TotalCost(), 3 * fibre, 1e-6 * one.TotalCost());
}

TEST(Planes, ASprayedQueuePairUsesEveryPlaneAndADeadPlaneLinkTakesOnlyItsShare)
{
    // 64 MiB from host 0 to host 3.  Closed forms: the frames' wire bits at 400G sprayed over
    // the four planes, at 100G on the one plane a fixed port hashes to, at 300G with one of
    // host 0's four plane links dead (routing converged).
    const uint64_t bytes = 64ull << 20;
    const double wire = double(bytes) / 4096 * roce::WireBytesForPayload(4096) * 8;
    const double sprayed = Transfer(RdmaQueuePair::SPRAY_ENTROPY, bytes, false).GetSeconds();
    const double fixed = Transfer(RdmaQueuePair::FIXED_ENTROPY, bytes, false).GetSeconds();
    const double degraded = Transfer(RdmaQueuePair::SPRAY_ENTROPY, bytes, true).GetSeconds();
    // Before routing converges the NIC still skips its own dead port.
    const double early = Transfer(RdmaQueuePair::SPRAY_ENTROPY, bytes, true, false).GetSeconds();
    std::cout << "4 planes of 100G: sprayed " << wire / sprayed / 1e9 << " Gb/s, fixed "
              << wire / fixed / 1e9 << " Gb/s, sprayed with a plane link dead "
              << wire / degraded / 1e9 << " Gb/s (before routing converges " << wire / early / 1e9
              << ")\n";
    EXPECT_NEAR(wire / fixed, 100e9, 0.01 * 100e9);
    EXPECT_GT(wire / sprayed, 0.99 * 400e9);
    EXPECT_GT(wire / degraded, 0.99 * 300e9);
    EXPECT_GT(wire / early, 0.99 * 300e9);
}
