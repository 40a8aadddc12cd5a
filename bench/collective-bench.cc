// collective-bench: ring all-reduce on rail-optimized clusters of 8-GPU servers, at packet level.
//
// The cases the collectives issue names: 128 GPUs (16 servers) all-reducing 256 MiB and
// 1,024 GPUs (128 servers) all-reducing 64 MiB, one flat ring over every GPU in host order
// (NVLink inside a server, a 400G NIC between servers).  Each case runs in its own child
// process so that its peak RSS is its own.
//
// Larger counts (4,096) run the 1,024-GPU case's 64 MiB.  --bytes gives every case one size
// instead, so that a case's message size (bytes / GPUs per ring step) can be held constant
// across GPU counts.  --stop-us stops each case at that simulated time (packets then cover that
// part; sim_us is the stop unless the collective finished first), for memory at counts whose
// whole run would take hours: the ring's state in flight is much the same all along.  Wall time
// includes building the cluster and the schedule, so a short stop understates the packet rate.
//
//   collective-bench [--cases=128,1024] [--bytes=N] [--stop-us=T]
//                    [--simulator=ns3::FabricSimulatorImpl]
#include "bench-run.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <chrono>
#include <cmath>
#include <sstream>

using namespace ns3;
using aifabric_bench::DataFramesSent;
using aifabric_bench::Finish;
using aifabric_bench::InChild;
using aifabric_bench::Result;

namespace
{
struct Case
{
    uint32_t gpus;
    uint64_t bytes;
};

Result
RunRing(const Case& c, double stopUs)
{
    Time::SetResolution(Time::PS);
    const auto start = std::chrono::steady_clock::now();
    const uint32_t servers = c.gpus / 8;
    RailOptimizedTopologyHelper rail(servers, 8, 0);
    rail.SetCluster(ClusterHelper(servers, 8));
    FabricNetworkHelper network;
    // At 1,024 GPUs each rail is one switch of 256 ports, whose per-queue reserves and PFC
    // headroom alone take 36 MB: more than the default 32 MiB buffer holds.  64 MiB per 128
    // servers, then (the reserves grow with the ports).
    const uint32_t buffer = 64 * ((servers + 127) / 128);
    network.SetMmuAttribute("BufferSize",
                            QueueSizeValue(QueueSize(std::to_string(buffer) + "MiB")));
    Ptr<FabricNetwork> net = network.Install(rail.Build());
    RdmaHelper rdma;
    rdma.Install(net);
    std::vector<uint32_t> hosts(c.gpus);
    for (uint32_t r = 0; r < c.gpus; ++r)
    {
        hosts[r] = r;
    }
    Ptr<CollectiveGroup> group = CollectiveHelper().Install(net, rdma, hosts);
    group->Run(CollectiveAlgorithm::Create("ring"), group->MakeRequest(ALL_REDUCE, c.bytes));
    if (stopUs > 0)
    {
        Simulator::Stop(MicroSeconds(stopUs));
    }
    Simulator::Run();
    double finish = 0;
    bool done = true;
    for (uint32_t rank = 0; rank < c.gpus; ++rank)
    {
        finish = std::max(finish, group->GetApplication(rank)->GetFinishTime().GetSeconds());
        done = done && !group->GetApplication(rank)->IsBusy();
    }
    return Finish(start, DataFramesSent(net), done ? finish : Simulator::Now().GetSeconds());
}
} // namespace

int
main(int argc, char** argv)
{
    std::string cases = "128,1024";
    uint64_t bytes = 0;
    std::string stop = "0";
    CommandLine cmd;
    cmd.AddValue("cases", "comma-separated GPU counts (multiples of 8)", cases);
    cmd.AddValue("bytes",
                 "all-reduce size of every case (0: 256 MiB below 1,024 GPUs, 64 MiB from it)",
                 bytes);
    cmd.AddValue("stop-us", "stop each case at this simulated time, in us (0: at its end)", stop);
    std::string core = "ns3::FabricSimulatorImpl";
    cmd.AddValue("simulator",
                 "the simulator core (ns3::FabricSimulatorImpl, ai-fabric-run's, or "
                 "ns3::DefaultSimulatorImpl)",
                 core);
    cmd.Parse(argc, argv);
    // Before the simulation allocates: the heap on huge pages (not with --HugePageHeap=0).
    UseHugePageHeap();
    double stopUs = -1;
    std::size_t used = 0;
    try
    {
        stopUs = std::stod(stop, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used != stop.size() || !(stopUs >= 0) || std::isinf(stopUs))
    {
        std::fprintf(stderr, "collective-bench: --stop-us: '%s' is not a number of us >= 0\n",
                     stop.c_str());
        return 2;
    }
    // ai-fabric-run's event scheduler.
    if (!aifabric_bench::UseSimulator("collective-bench", core, "ns3::FabricScheduler"))
    {
        return 2;
    }
    std::printf("collective-bench: ring all-reduce, rail-optimized, 8 GPUs per server, 400G NICs\n");
    std::printf("%6s %10s %12s %12s %9s %12s %9s %11s %10s\n", "gpus", "bytes", "packets",
                "events", "wall_s", "packets/s", "rss_MiB", "rss_KiB/gpu", "sim_us");
    std::stringstream list(cases);
    std::string item;
    while (std::getline(list, item, ','))
    {
        const uint32_t gpus = static_cast<uint32_t>(std::stoul(item));
        const Case c{gpus,
                     bytes != 0     ? bytes
                     : gpus >= 1024 ? uint64_t(64) << 20
                                    : uint64_t(256) << 20};
        if (c.gpus < 16 || c.gpus % 8 != 0)
        {
            std::fprintf(stderr, "collective-bench: --cases: %u is not a multiple of 8 >= 16\n", c.gpus);
            return 2;
        }
        const Result r = InChild([&]() { return RunRing(c, stopUs); }, item.c_str());
        std::printf("%6u %10lu %12lu %12lu %9.1f %12.0f %9.1f %11.1f %10.1f\n", c.gpus,
                    static_cast<unsigned long>(c.bytes), static_cast<unsigned long>(r.packets),
                    static_cast<unsigned long>(r.events), r.wallSeconds, r.packets / r.wallSeconds,
                    r.peakRssKb / 1024.0, static_cast<double>(r.peakRssKb) / c.gpus,
                    r.simSeconds * 1e6);
        std::fflush(stdout);
    }
    return 0;
}
