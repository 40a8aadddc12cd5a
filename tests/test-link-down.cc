// A link failure: frames toward it are lost until routing converges, then traffic reroutes.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
struct Probe
{
    Ptr<FabricNetwork> net;
    uint32_t leaf0{0};
    uint32_t failedLink{UINT32_MAX};
    Time lastDrop;
    void FailBusiestUplink()
    {
        const FabricTopology& topo = net->GetTopology();
        uint64_t best = 0;
        for (uint32_t l : topo.GetNode(leaf0).links)
        {
            const auto& link = topo.GetLink(l);
            const uint32_t peer = link.a == leaf0 ? link.b : link.a;
            const uint64_t tx = net->GetPort(leaf0, l)->GetCounters().txFrames;
            if (topo.GetNode(peer).role == FabricTopology::Role::Spine && tx > best)
            {
                best = tx;
                failedLink = l;
            }
        }
        net->GetChannel(failedLink)->SetUp(false);
    }
    void Dropped(Ptr<const Packet>, DropReason) { lastDrop = Simulator::Now(); }
};
} // namespace

TEST(LinkDown, TrafficReroutesAfterConvergenceAndOnlyInBetweenIsLost)
{
    const Time convergence = MicroSeconds(20);
    const Time failAt = MicroSeconds(50);
    FabricNetworkHelper helper;
    helper.SetRoutingAttribute("ConvergenceDelay", TimeValue(convergence));
    Probe probe;
    probe.net = helper.Install(LeafSpineTopologyHelper(2, 2, 1).Build());
    probe.leaf0 = probe.net->GetTopology().GetNHosts();
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/Drop",
                                  MakeCallback(&Probe::Dropped, &probe));
    MessageSourceHelper sources;
    const uint64_t bytes = 32 << 20; // ~700 us at the default 400 G
    sources.Install(probe.net, 0, 2, bytes, Time(0));
    FabricStatsHelper stats;
    stats.Install(probe.net, sources);
    Simulator::Schedule(failAt, &Probe::FailBusiestUplink, &probe);
    Simulator::Run();

    const FabricTotals t = Totals(probe.net);
    const auto linkDown = t.dropsByReason[static_cast<std::size_t>(DropReason::LinkDown)];
    EXPECT_GT(linkDown, 0u);
    EXPECT_EQ(t.framesDropped, linkDown); // nothing lost for any other reason
    EXPECT_EQ(t.hostDataFramesSent, stats.GetFramesDelivered() + t.framesDropped);
    EXPECT_EQ(t.hostDataFramesSent, bytes / 4096);
    // Losses stop once tables converge (plus the last frame in the pipeline).
    EXPECT_LE(probe.lastDrop, failAt + convergence + MicroSeconds(1));
    // At most the frames the source sent during convergence, plus those queued and in flight.
    const double gbps = probe.net->GetTopology().GetLink(0).rate.GetBitRate() / 1e9;
    const double framesPerUs = gbps * 1e3 / 8 / roce::WireBytesForPayload(4096);
    EXPECT_LE(double(linkDown), framesPerUs * 21 + 10);
    EXPECT_EQ(probe.net->GetRouting()->GetNRecomputations(), 2u);
    // The source's frames after convergence all used the surviving spine.
    EXPECT_GT(stats.GetFramesDelivered(), bytes / 4096 - linkDown - 1);
    Simulator::Destroy();
}

// A sender keeps the route it chose (FabricEndpoint::Route) between frames; a new forwarding
// table must make it choose again.  Host 0 has two links, one to each of two switches that
// both reach host 1: when the one its queue pair uses dies, the queue pair's resends must
// leave by the other once routing converges, and its message complete.
TEST(LinkDown, ADualHomedHostLeavesByItsOtherLinkOnceRoutingConverges)
{
    using Role = FabricTopology::Role;
    using Medium = FabricTopology::Medium;
    FabricTopology topo;
    const uint32_t h0 = topo.AddHost("h0", 0, 0);
    const uint32_t h1 = topo.AddHost("h1", 1, 0);
    const uint32_t s0 = topo.AddNode(Role::Leaf, "s0");
    const uint32_t s1 = topo.AddNode(Role::Leaf, "s1");
    const DataRate rate("400Gbps");
    const uint32_t first = topo.AddLink(h0, s0, rate, 2, Medium::Copper);
    const uint32_t second = topo.AddLink(h0, s1, rate, 2, Medium::Copper);
    topo.AddLink(h1, s0, rate, 2, Medium::Copper);
    topo.AddLink(h1, s1, rate, 2, Medium::Copper);
    FabricNetworkHelper helper;
    helper.SetRoutingAttribute("ConvergenceDelay", TimeValue(MicroSeconds(20)));
    Ptr<FabricNetwork> net = helper.Install(topo);
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(50)));
    rdma.Install(net);
    auto [requester, responder] = rdma.Connect(net, 0, 1);
    const uint64_t bytes = 8 << 20; // ~170 us at 400 G
    uint32_t completed = 0;
    struct Count
    {
        uint32_t* n;
        uint64_t peakQueued{0};
        void Done(uint64_t, uint64_t) { ++*n; }
        void Queued(uint8_t, uint64_t, uint64_t now) { peakQueued = std::max(peakQueued, now); }
    } count{&completed};
    requester->PostSend(bytes, MakeCallback(&Count::Done, &count));
    uint32_t other = UINT32_MAX;
    Simulator::Schedule(MicroSeconds(50), [&]() {
        const bool onFirst = net->GetPort(h0, first)->GetCounters().txFrames > 0;
        other = onFirst ? second : first;
        net->GetChannel(onFirst ? first : second)->SetUp(false);
        net->GetPort(h0, other)->TraceConnectWithoutContext("QueueBytes",
                                                            MakeCallback(&Count::Queued, &count));
    });
    Simulator::Run();
    EXPECT_EQ(completed, 1u);
    EXPECT_EQ(responder->GetCounters().payloadReceived, bytes);
    EXPECT_GT(requester->GetCounters().timeouts, 0u);
    EXPECT_GT(net->GetPort(h0, other)->GetCounters().txFrames, 0u);
    // The queue pair waits on the port it now leaves by, as it did on the first: a frame or
    // two queued there, not the rest of its message at once.
    EXPECT_LE(count.peakQueued, 2u * roce::WireBytesForPayload(4096));
    Simulator::Destroy();
}

// A link this process has no channel for (both ends another MPI rank's) is taken down and
// released in routing's view with FabricChannel::SetUp's counting of causes: one
// recomputation when it goes down, none while a second cause holds it, one when the last is
// released; a link that has a channel here is refused.
TEST(LinkDown, RoutingCountsTheCausesOfALinkItHasNoChannelFor)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(checks::Star(4, DataRate("100Gbps"), 2));
    std::vector<Ptr<FabricChannel>> channels;
    std::vector<Ptr<FabricSwitch>> switches;
    std::vector<Ptr<FabricEndpoint>> endpoints;
    const FabricTopology& topo = net->GetTopology();
    for (uint32_t l = 0; l < topo.Links().size(); ++l)
    {
        channels.push_back(l == 0 ? nullptr : net->GetChannel(l));
    }
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        switches.push_back(net->GetSwitch(n));
        endpoints.push_back(topo.GetNode(n).role == FabricTopology::Role::Host
                                ? net->GetEndpoint(topo.HostIdOf(n))
                                : nullptr);
    }
    auto routing = CreateObjectWithAttributes<FabricRouting>("ConvergenceDelay",
                                                             TimeValue(NanoSeconds(100)));
    routing->Install(&topo, switches, endpoints, channels);
    EXPECT_EQ(routing->GetNRecomputations(), 1u);
    Simulator::Schedule(MicroSeconds(1), &FabricRouting::SetRemoteLinkUp, routing, 0, false);
    Simulator::Schedule(MicroSeconds(2), &FabricRouting::SetRemoteLinkUp, routing, 0, false);
    Simulator::Schedule(MicroSeconds(3), &FabricRouting::SetRemoteLinkUp, routing, 0, true);
    Simulator::Run();
    EXPECT_EQ(routing->GetNRecomputations(), 2u); // still down: one cause holds it
    Simulator::Schedule(MicroSeconds(1), &FabricRouting::SetRemoteLinkUp, routing, 0, true);
    Simulator::Schedule(MicroSeconds(2), &FabricRouting::SetRemoteLinkUp, routing, 0, true);
    Simulator::Run();
    EXPECT_EQ(routing->GetNRecomputations(), 3u); // up; a release too many changes nothing
    Simulator::Destroy();
}
