// Eight pod-to-pod RDMA transfers across a k=4 fat-tree while an edge-aggregation link flaps
// three times (down 20 us, up 30 us, from 40 us); routing reconverges 20 us after each change.
// Prints when each transfer completed, the bytes go-back-N resent and how often routing
// recomputed: every byte still arrives.
//
//   link-flap [--flaps=3] [--bytes=8388608]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    uint32_t flaps = 3;
    uint64_t bytes = 8 << 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("flaps", "downs of the flapping link", flaps);
    cmd.AddValue("bytes", "bytes per transfer", bytes);
    cmd.Parse(argc, argv);

    FabricNetworkHelper network;
    network.SetRoutingAttribute("ConvergenceDelay", TimeValue(MicroSeconds(20)));
    FatTreeTopologyHelper fatTree(4);
    fatTree.SetAttribute("NicRate", DataRateValue(DataRate("100Gbps")));
    Ptr<FabricNetwork> net = network.Install(fatTree.Build());
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(50)));
    rdma.Install(net);

    // The first uplink of host 0's edge switch flaps: about half of its traffic crosses it.
    const FabricTopology& topo = net->GetTopology();
    const auto role = [&topo](uint32_t node) { return topo.GetNode(node).role; };
    uint32_t victim = 0;
    while (!(role(topo.GetLink(victim).a) == FabricTopology::Role::Leaf &&
             role(topo.GetLink(victim).b) == FabricTopology::Role::Spine) &&
           !(role(topo.GetLink(victim).b) == FabricTopology::Role::Leaf &&
             role(topo.GetLink(victim).a) == FabricTopology::Role::Spine))
    {
        ++victim;
    }
    FailureHelper failures;
    failures.AddInjection("link", topo.LinkName(victim), ComponentFailureProcess::FLAP,
                          MicroSeconds(40), Time::Max(),
                          {{"FlapCount", std::to_string(flaps)},
                           {"FlapDownTime", "20us"},
                           {"FlapUpTime", "30us"}});
    failures.Install(topo, net, 0);

    struct Clock
    {
        uint32_t host;
        void Done(uint64_t, uint64_t)
        {
            std::cout << "host " << host << " -> " << host + 8 << " complete at "
                      << Simulator::Now().As(Time::US) << "\n";
        }
    };
    std::vector<Clock> clocks(8);
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    for (uint32_t h = 0; h < 8; ++h)
    {
        clocks[h].host = h;
        qps.push_back(rdma.Connect(net, h, h + 8)); // pod to pod, across the core
        qps.back().first->PostSend(bytes, MakeCallback(&Clock::Done, &clocks[h]));
    }
    Simulator::Run();

    RdmaQpCounters sent;
    uint64_t delivered = 0;
    for (const auto& [requester, responder] : qps)
    {
        sent += requester->GetCounters();
        delivered += responder->GetCounters().payloadReceived;
    }
    std::cout << "link " << topo.LinkName(victim) << " flapped " << flaps
              << " times; routing recomputed "
              << net->GetRouting()->GetNRecomputations() << " times; go-back-N resent "
              << sent.payloadRetransmitted << " B; " << delivered << " of " << 8 * bytes
              << " B delivered\n";
    Simulator::Destroy();
    return delivered == 8 * bytes ? 0 : 1;
}
