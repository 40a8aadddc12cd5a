// An nccl-tests-style sweep of the ring all-reduce over 8 hosts of one 400 Gb/s leaf: each
// size on a fresh fabric, its time, algorithm and bus bandwidth (busbw = algbw x 2(n-1)/n),
// beside the alpha-beta bound of a ring at line rate.
//
//   allreduce-sweep [--algorithm=ring] [--minbytes=65536] [--maxbytes=16777216]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cstdio>

using namespace ns3;

namespace
{
CollectiveResult
RunOnce(const std::string& algorithm, uint64_t bytes)
{
    LeafSpineTopologyHelper leaf(1, 8, 8);
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(leaf.Build());
    RdmaHelper rdma;
    rdma.Install(net);
    Ptr<CollectiveGroup> group =
        CollectiveHelper().Install(net, rdma, {0, 1, 2, 3, 4, 5, 6, 7});
    CollectiveResult result;
    struct Sink
    {
        CollectiveResult* out;
        void Done(const CollectiveResult& r) { *out = r; }
    } sink{&result};
    group->Run(CollectiveAlgorithm::Create(algorithm), group->MakeRequest(ALL_REDUCE, bytes),
               MakeCallback(&Sink::Done, &sink));
    Simulator::Run();
    Simulator::Destroy();
    return result;
}
} // namespace

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    std::string algorithm = "ring";
    uint64_t minBytes = 64 << 10;
    uint64_t maxBytes = 16 << 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("algorithm", "ring, tree, halving-doubling, recursive-doubling, ...", algorithm);
    cmd.AddValue("minbytes", "first size", minBytes);
    cmd.AddValue("maxbytes", "last size", maxBytes);
    cmd.Parse(argc, argv);

    const uint32_t n = 8;
    std::printf("%12s %12s %10s %10s %10s\n", "bytes", "time_us", "algbw", "busbw", "bound");
    for (uint64_t bytes = minBytes; bytes <= maxBytes; bytes *= 4)
    {
        const CollectiveResult r = RunOnce(algorithm, bytes);
        if (r.failed)
        {
            std::printf("%12llu failed\n", static_cast<unsigned long long>(bytes));
            return 1;
        }
        const double seconds = r.Duration().GetSeconds();
        const double algbw = bytes / seconds / 1e9;
        // A ring moves 2(n-1)/n of the buffer through each NIC: at 400 Gb/s, busbw <= 50 GB/s.
        std::printf("%12llu %12.2f %10.2f %10.2f %10.2f\n", static_cast<unsigned long long>(bytes),
                    seconds * 1e6, algbw, algbw * BusBandwidthFactor(ALL_REDUCE, n), 400e9 / 8 / 1e9);
    }
    return 0;
}
