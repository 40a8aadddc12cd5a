// A rail-optimized cluster of S servers x 8 GPUs: prints its bill of materials and the path a
// cross-rail packet takes (rail-optimized: through a spine; rail-only: NVLink first).
//
//   rail-optimized-bom [--servers=32] [--railOnly=false]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    uint32_t servers = 32;
    bool railOnly = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("servers", "servers of 8 GPUs", servers);
    cmd.AddValue("railOnly", "no spines: cross-rail traffic crosses NVLink first", railOnly);
    cmd.Parse(argc, argv);

    RailOptimizedTopologyHelper rail(servers, 8);
    rail.SetRailOnly(railOnly);
    const FabricTopology topo = rail.Build();
    BillOfMaterials::FromTopology(topo).WriteCsv(std::cout);

    // Follow the first next hop from GPU 0 of server 0 to GPU 1 of server 1.
    const auto tables = FabricRouting::ComputeTables(topo, std::vector<bool>(topo.Links().size(), true));
    const uint32_t dst = 8 + 1;
    uint32_t at = topo.HostNode(0);
    std::cout << "path:";
    while (at != topo.HostNode(dst))
    {
        std::cout << ' ' << topo.GetNode(at).name;
        const auto& hops = tables[at].NextHops(dst);
        const auto& link = topo.GetLink(topo.GetNode(at).links[hops.front()]);
        at = link.a == at ? link.b : link.a;
    }
    std::cout << ' ' << topo.GetNode(at).name << '\n';
    return 0;
}
