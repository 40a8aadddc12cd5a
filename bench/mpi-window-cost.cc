// mpi-window-cost: what one synchronization window of ns-3's distributed engine costs here.
//
// Two hosts and a switch, the switch and one host on rank 0, the other host on rank 1, joined
// by one cut 30 m fibre (150 ns: the lookahead).  Each rank runs one no-op event per
// lookahead for --windows windows, so each window has next to nothing to simulate and the wall
// time per window is the cost of synchronizing.  bench/mpi-scaling projects more ranks with it.
//
//   mpirun -np 2 mpi-window-cost [--windows=20000]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"

#include <chrono>
#include <cstdio>

using namespace ns3;

namespace
{
void
Tick(Time period, Time until)
{
    if (Simulator::Now() + period <= until)
    {
        Simulator::Schedule(period, &Tick, period, until);
    }
}
} // namespace

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    MpiInterface::Enable(&argc, &argv);
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    uint32_t windows = 20000;
    CommandLine cmd;
    cmd.AddValue("windows", "synchronization windows to run", windows);
    cmd.Parse(argc, argv);
    if (MpiInterface::GetSize() != 2)
    {
        std::fprintf(stderr, "mpi-window-cost: error: run under mpirun -np 2 (got %u ranks)\n",
                     MpiInterface::GetSize());
        MpiInterface::Disable();
        return 2;
    }
    FabricTopology topology;
    const uint32_t h0 = topology.AddHost("h0", 0, 0);
    const uint32_t h1 = topology.AddHost("h1", 1, 0);
    const uint32_t leaf = topology.AddNode(FabricTopology::Role::Leaf, "leaf");
    topology.AddLink(h0, leaf, DataRate("400Gbps"), 1.0, FabricTopology::Medium::Copper);
    const uint32_t cut =
        topology.AddLink(h1, leaf, DataRate("400Gbps"), 30.0, FabricTopology::Medium::Optical);
    const Time lookahead = topology.GetLink(cut).Delay();
    FabricNetworkHelper network;
    std::vector<uint32_t> rankOfNode(topology.GetNNodes(), 0);
    rankOfNode[h1] = 1;
    network.SetPartition(rankOfNode, MpiInterface::GetSystemId());
    Ptr<FabricNetwork> net = network.Install(topology);
    Simulator::Schedule(Time(0), &Tick, lookahead, lookahead * int64_t(windows));
    const auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (MpiInterface::GetSystemId() == 0)
    {
        std::printf("{\"windows\": %u, \"lookahead_ns\": %.1f, \"wall_seconds\": %.6f, "
                    "\"us_per_window\": %.3f}\n",
                    windows, lookahead.GetSeconds() * 1e9, wall, wall / windows * 1e6);
    }
    Simulator::Destroy();
    MpiInterface::Disable();
    return 0;
}
