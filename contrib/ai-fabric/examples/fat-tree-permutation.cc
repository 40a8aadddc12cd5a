// A k-ary fat-tree at 100 Gb/s; every host sends one message to the host half the cluster
// away.  Prints each message's completion time and the fabric's drop and PFC totals.
//
//   fat-tree-permutation [--k=4] [--bytes=1048576] [--spray=false]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    uint32_t k = 4;
    uint64_t bytes = 1 << 20;
    bool spray = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("bytes", "message size per host", bytes);
    cmd.AddValue("spray", "spray packets over equal-cost paths instead of ECMP flow hashing", spray);
    cmd.Parse(argc, argv);

    FatTreeTopologyHelper fatTree(k);
    ClusterHelper cluster(k * k * k / 4, 1);
    cluster.SetNicRate(DataRate("100Gbps"));
    fatTree.SetCluster(cluster);

    FabricNetworkHelper network;
    if (spray)
    {
        network.SetSwitchAttribute("LoadBalancing", EnumValue(FabricSwitch::PACKET_SPRAY));
    }
    Ptr<FabricNetwork> net = network.Install(fatTree.Build());

    MessageSourceHelper sources;
    const uint32_t hosts = net->GetNHosts();
    for (uint32_t h = 0; h < hosts; ++h)
    {
        sources.Install(net, h, (h + hosts / 2) % hosts, bytes, Time(0));
    }
    FabricStatsHelper stats;
    stats.Install(net, sources);
    Simulator::Run();

    const double ideal = double(bytes) / 4096 * roce::WireBytesForPayload(4096) * 8 / 100e9;
    std::cout << "# one message alone at line rate would take " << ideal * 1e6 << " us\n";
    stats.WriteFlows(std::cout);
    Simulator::Destroy();
    return 0;
}
