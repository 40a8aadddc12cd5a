// NCCL's tuning model against the values worked out by hand from NCCL 2.30's source for DGX
// H100 servers (contrib/ai-fabric/doc/nccl-facts.md section 1.6): graph, bus bandwidths and
// latencies per algorithm and protocol, the pick per size, and auto building what it picked.
#include "ns3/ai-fabric-module.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
using Model = NcclTuningModel;

/** \p servers x 8 GPUs, NVLink at NCCL's H100 figure (18 links x 20.6 GB/s), 400G NICs. */
CollectiveRequest
Dgx(uint32_t servers, CollectiveOperation op = ALL_REDUCE, uint64_t bytes = 1 << 20)
{
    CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    r.ranks = 8 * servers;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        r.placement.push_back({rank / 8, rank % 8});
    }
    r.nicRate = DataRate("400Gbps");
    r.nvLinkRate = DataRate(uint64_t(370.8e9 * 8));
    return r;
}

TEST(NcclTuningModel, GraphAsNcclsSearchFindsIt)
{
    const Model::Graph one = Model::MakeGraph(Dgx(1));
    EXPECT_EQ(one.channels, 12u); // 6 x 60 GB/s in 370.8, doubled at 30
    EXPECT_DOUBLE_EQ(one.speed, 30);
    EXPECT_EQ(one.ctas, 24u);
    const Model::Graph four = Model::MakeGraph(Dgx(4));
    EXPECT_EQ(four.nodes, 4u);
    EXPECT_EQ(four.channels, 8u); // one per NIC at 48 GB/s: not doubled (below 50, more than 4)
    EXPECT_DOUBLE_EQ(four.speed, 48);
    EXPECT_EQ(four.ctas, 16u);
}

TEST(NcclTuningModel, OneServerBandwidthsAndLatencies)
{
    const Model m(Model::MakeGraph(Dgx(1)));
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::RING, Model::LL), 141.0, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::RING, Model::LL128), 331.2, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::RING, Model::SIMPLE), 360.0, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::TREE, Model::SIMPLE), 331.2, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::RING, Model::LL), 15.0, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::RING, Model::LL128), 40.6, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::RING, Model::SIMPLE), 56.0, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::TREE, Model::SIMPLE), 64.4, 1e-9);
    EXPECT_EQ(m.BusBandwidth(ALL_GATHER, Model::TREE, Model::SIMPLE), 0); // all-reduce only
}

TEST(NcclTuningModel, TwoServerBandwidthsAndLatencies)
{
    const Model m(Model::MakeGraph(Dgx(2)));
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::RING, Model::SIMPLE), 384.0, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::RING, Model::LL128), 293.6, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::RING, Model::LL), 39.0, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::TREE, Model::SIMPLE), 281.52, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::TREE, Model::LL128), 249.56, 1e-9);
    EXPECT_NEAR(m.BusBandwidth(ALL_REDUCE, Model::TREE, Model::LL), 33.15, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::RING, Model::SIMPLE), 131.6, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::RING, Model::LL128), 75.2, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::TREE, Model::SIMPLE), 92.4, 1e-9);
    EXPECT_NEAR(m.Latency(ALL_REDUCE, Model::TREE, Model::LL128), 48.5, 1e-9);
}

// Time = latency + bytes / algorithm bandwidth (bus x n / 2(n-1) for a ring all-reduce, x 1/2
// for a tree, whose bandwidth NCCL corrects per size: x 0.6 for Simple at 64 KiB).
TEST(NcclTuningModel, TimeIsLatencyPlusBytesOverAlgorithmBandwidth)
{
    const Model m(Model::MakeGraph(Dgx(1)));
    const uint64_t n = 1 << 30;
    EXPECT_NEAR(m.Time(ALL_REDUCE, Model::RING, Model::SIMPLE, n),
                56.0 + n / (1000 * 360.0 * 8 / 14), 1e-6);
    EXPECT_NEAR(m.Time(ALL_REDUCE, Model::TREE, Model::SIMPLE, 64 << 10),
                64.4 + (64 << 10) / (1000 * 331.2 * 0.5 * 0.6), 1e-6);
    EXPECT_NEAR(m.Time(ALL_GATHER, Model::RING, Model::SIMPLE, n),
                8.4 + 7 * 3.4 + n / (1000 * 360.0 * 8 / 7), 1e-6);
}

// The picks nccl-facts.md 1.6 derives (without NVLS): one server, ring/LL for small sizes and
// ring/Simple for large; two servers, tree/LL then tree/LL128; channels drop for small sizes.
TEST(NcclTuningModel, PicksPerSize)
{
    const Model one(Model::MakeGraph(Dgx(1)));
    EXPECT_EQ(one.Choose(ALL_REDUCE, 64 << 10).algorithm, "ring");
    EXPECT_EQ(one.Choose(ALL_REDUCE, 64 << 10).protocol, "ll");
    EXPECT_EQ(one.Choose(ALL_REDUCE, 64 << 10).channels, 2u); // 64 KiB < nc x 512 x 8 x 8 B
    EXPECT_EQ(one.Choose(ALL_REDUCE, uint64_t(1) << 30).protocol, "simple");
    EXPECT_EQ(one.Choose(ALL_REDUCE, uint64_t(1) << 30).channels, 24u);
    const Model two(Model::MakeGraph(Dgx(2)));
    EXPECT_EQ(two.Choose(ALL_REDUCE, 16 << 10).algorithm, "tree");
    EXPECT_EQ(two.Choose(ALL_REDUCE, 16 << 10).protocol, "ll");
    EXPECT_EQ(two.Choose(ALL_REDUCE, 1 << 20).algorithm, "tree");
    EXPECT_EQ(two.Choose(ALL_REDUCE, 1 << 20).protocol, "ll128");
    EXPECT_EQ(two.Choose(ALL_GATHER, 1 << 20).algorithm, "ring");
    EXPECT_EQ(two.Choose(ALL_TO_ALL, 1 << 20).algorithm, "pxn");
}

TEST(NcclTuningModel, AutoBuildsThePickAndRecordsIt)
{
    Ptr<CollectiveAlgorithm> automatic = CollectiveAlgorithm::Create("auto");
    const CollectiveSchedule s = automatic->Build(Dgx(2, ALL_REDUCE, 1 << 20));
    EXPECT_EQ(s.GetAlgorithm(), "auto:tree/ll128/16ch");
    EXPECT_EQ(s.GetProtocol()->GetShortName(), "ll128");
    const CollectiveSchedule big = automatic->Build(Dgx(1, ALL_REDUCE, uint64_t(1) << 30));
    EXPECT_EQ(big.GetAlgorithm(), "auto:ring/simple/24ch");
    // The model's prediction travels with the schedule (collectives.csv's nccl_model_us).
    const CollectiveRequest r = Dgx(2, ALL_REDUCE, 1 << 20);
    const double predicted = Model(Model::MakeGraph(r)).Choose(ALL_REDUCE, 1 << 20).timeUs;
    EXPECT_NEAR(s.GetPredictedTime().GetSeconds() * 1e6, predicted, 1e-6);
    EXPECT_GT(predicted, 0);
    const CollectiveSchedule a2a = automatic->Build(Dgx(2, ALL_TO_ALL, 1 << 20));
    EXPECT_TRUE(a2a.GetPredictedTime().IsZero());
}

} // namespace
