// An 8:1 incast at 100 Gb/s through one switch, as a user's own program writes it against the
// installed module: prints when the last byte arrived against the time to drain the 8 MiB at
// line rate; exits 0 when every message arrived whole (PFC keeps the incast lossless).
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    CommandLine cmd(__FILE__);
    cmd.Parse(argc, argv);

    // One leaf, nine hosts: host 0 receives, hosts 1..8 each send 1 MiB.
    LeafSpineTopologyHelper leafSpine(1, 9, 9);
    ClusterHelper cluster(9, 1);
    cluster.SetNicRate(DataRate("100Gbps"));
    leafSpine.SetCluster(cluster);
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(leafSpine.Build());

    MessageSourceHelper sources;
    for (uint32_t h = 1; h < 9; ++h)
    {
        sources.Install(net, h, 0, 1 << 20, Seconds(0));
    }
    FabricStatsHelper stats;
    stats.Install(net, sources);
    Simulator::Run();
    uint32_t complete = 0;
    for (const auto& flow : stats.Flows())
    {
        complete += flow.Complete() ? 1 : 0;
    }
    std::cout << complete << " of 8 messages complete; last byte at "
              << stats.GetLastDelivery().As(Time::US) << " (8 MiB at 100 Gb/s: "
              << Seconds(8.0 * 8 * (1 << 20) / 100e9).As(Time::US) << ")\n";
    Simulator::Destroy();
    return complete == 8 ? 0 : 1;
}
