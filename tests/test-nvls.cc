// NCCL's NVLS: the NVSwitch's engine reduces and multicasts.  The schedule's bytes per GPU
// against NVLS's own (D(N+1)/N each way for all-reduce; D and D/N for reduce-scatter and
// all-gather), the time on one 8-GPU server against the closed form of those bytes over
// NVLink at NCCL's efficiency, what it refuses, and the tuner's pick.
#include "collective-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ns3;
using namespace aifabric_test;

namespace
{

/** One server of \p gpus GPUs whose NVSwitch reduces (engine rank = gpus). */
CollectiveRequest
OneServer(uint32_t gpus, CollectiveOperation op, uint64_t bytes)
{
    CollectiveRequest r = ServersRequest(1, gpus, op, bytes);
    r.engineServers = {0};
    return r;
}

uint64_t
Bytes(const CollectiveSchedule& s, uint32_t rank, CollectiveStep::Kind kind)
{
    uint64_t bytes = 0;
    for (const CollectiveStep& step : s.GetSteps(rank))
    {
        bytes += step.kind == kind ? step.bytes : 0;
    }
    return bytes;
}

TEST(Nvls, EachGpuMovesNvlsBytes)
{
    const uint32_t n = 8;
    const uint64_t d = uint64_t(n) * 16 * 4 * 81920; // 327,680 B per owner and channel: 3 pieces
    Ptr<CollectiveAlgorithm> nvls = CollectiveAlgorithm::Create("nvls");
    const struct
    {
        CollectiveOperation op;
        uint64_t out;
        uint64_t in;
    } cases[] = {{ALL_REDUCE, d + d / n, d + d / n},
                 {REDUCE_SCATTER, d, d / n},
                 {ALL_GATHER, d / n, d}};
    for (const auto& c : cases)
    {
        const CollectiveSchedule s = nvls->Build(OneServer(n, c.op, d));
        ASSERT_EQ(s.GetNRanks(), n + 1);
        for (uint32_t rank = 0; rank < n; ++rank)
        {
            EXPECT_EQ(Bytes(s, rank, CollectiveStep::SEND), c.out) << CollectiveOperationName(c.op);
            EXPECT_EQ(Bytes(s, rank, CollectiveStep::RECV), c.in) << CollectiveOperationName(c.op);
        }
        // The engine takes in what the GPUs send and sends what they take in.
        EXPECT_EQ(Bytes(s, n, CollectiveStep::RECV), n * c.out);
        EXPECT_EQ(Bytes(s, n, CollectiveStep::SEND), n * c.in);
    }
}

// On one 8-GPU server at NVLink's 370.8 GB/s with multimem at NCCL's 0.85 of it, in NCCL's
// form latency + bytes / bandwidth, the latency NVLS's 25 us: reduce-scatter sends D per GPU
// and all-gather receives D, so each takes 25 us + D / (0.85 x 370.8 GB/s), within 3%
// (framing, the fill of a pipeline of 64 KiB pieces).  All-reduce runs both halves at once,
// each GPU's NVLink carrying D(N+1)/N each way: 25 us + D(N+1)/N / 315.2 GB/s at least (busbw
// 2(N-1)/(N+1) x 315.2 = 490.3 GB/s at most); it takes at most 1/0.93 of that (a piece's
// broadcast waits for every GPU's part of it, so the two halves do not keep both directions
// busy all the time), and its busbw is at least 1.2 x the ring's 370.8.
TEST(Nvls, OneServerRunsAtItsClosedForms)
{
    const uint32_t n = 8;
    const uint64_t d = 256 << 20;
    const double nvlink = 0.85 * 370.8e9;
    const double latency = 25e-6;
    const auto seconds = [&](CollectiveOperation op) {
        const CollectiveRun run =
            RunCollective(RailOptimizedTopologyHelper(1, n).Build(), "nvls", op, d, n);
        EXPECT_FALSE(run.result.failed);
        EXPECT_EQ(run.framesDropped, 0u);
        return run.result.Duration().GetSeconds();
    };
    EXPECT_NEAR(seconds(REDUCE_SCATTER) / (latency + d / nvlink), 1.0, 0.03);
    EXPECT_NEAR(seconds(ALL_GATHER) / (latency + d / nvlink), 1.0, 0.03);
    const double t = seconds(ALL_REDUCE);
    const double bound = latency + d * (n + 1.0) / n / nvlink;
    EXPECT_GE(t, bound);
    EXPECT_LE(t, bound / 0.93) << t * 1e6 << " us, closed form " << bound * 1e6;
    EXPECT_GE(2.0 * (n - 1) / n * d / t, 1.2 * 370.8e9);
}

// NVLS-tree over 4 servers of 4 GPUs: every GPU's NVLink carries what NVLS's does (to and
// from its engine, D + D/G each way); a GPU sends to other servers only to its rail-mates
// (the heads of its slice); and the trees move each slice up and down once per edge: 2(S-1) D
// over the network in all.
TEST(Nvls, TreeKeepsNvlsBytesAndEachHeadOnItsRail)
{
    const uint32_t servers = 4;
    const uint32_t g = 4;
    const uint64_t d = uint64_t(g) * 16 * 4 * 50000; // 200,000 B per head and channel: 4 pieces
    CollectiveRequest r = ServersRequest(servers, g, ALL_REDUCE, d);
    r.engineServers = {0, 1, 2, 3};
    const CollectiveSchedule s = CollectiveAlgorithm::Create("nvls_tree")->Build(r);
    ASSERT_EQ(s.GetNRanks(), r.ranks + servers);
    uint64_t network = 0;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        const uint32_t engine = r.ranks + rank / g;
        uint64_t toEngine = 0;
        uint64_t fromEngine = 0;
        for (const CollectiveStep& step : s.GetSteps(rank))
        {
            if (step.kind == CollectiveStep::SEND && step.peer == engine)
            {
                toEngine += step.bytes;
            }
            else if (step.kind == CollectiveStep::RECV && step.peer == engine)
            {
                fromEngine += step.bytes;
            }
            else if (step.kind == CollectiveStep::SEND)
            {
                ASSERT_LT(step.peer, r.ranks);
                EXPECT_NE(step.peer / g, rank / g);
                EXPECT_EQ(step.peer % g, rank % g) << rank << " -> " << step.peer;
                network += step.bytes;
            }
        }
        EXPECT_EQ(toEngine, d + d / g) << rank;
        EXPECT_EQ(fromEngine, d + d / g) << rank;
    }
    EXPECT_EQ(network, 2 * (servers - 1) * d);
    // Multimem messages (to and from an engine) go at NCCL's efficiency; the heads' network
    // messages as the protocol has them.
    EXPECT_EQ(s.WireBytes(85000, 0, r.ranks), 100000u);
    EXPECT_EQ(s.WireBytes(85000, r.ranks, 0), 100000u);
    EXPECT_EQ(s.WireBytes(85000, 0, g), 85000u);
}

TEST(Nvls, RefusesWhatItCannotRun)
{
    Ptr<CollectiveAlgorithm> nvls = CollectiveAlgorithm::Create("nvls");
    CollectiveRequest spans = OneServer(8, ALL_REDUCE, 1 << 20);
    spans.placement[7].server = 1;
    EXPECT_THROW(nvls->Build(spans), std::invalid_argument);
    CollectiveRequest noEngine = OneServer(8, ALL_REDUCE, 1 << 20);
    noEngine.engineServers.clear();
    EXPECT_THROW(nvls->Build(noEngine), std::invalid_argument);
    EXPECT_THROW(nvls->Build(OneServer(8, ALL_TO_ALL, 1 << 20)), std::invalid_argument);
    Ptr<CollectiveAlgorithm> tree = CollectiveAlgorithm::Create("nvls_tree");
    EXPECT_THROW(tree->Build(OneServer(8, ALL_REDUCE, 1 << 20)), std::invalid_argument);
    CollectiveRequest uneven = OneServer(8, ALL_REDUCE, 1 << 20);
    uneven.placement[7].server = 1;
    uneven.engineServers = {0, 1};
    EXPECT_THROW(tree->Build(uneven), std::invalid_argument);
}

uint64_t
LargestSend(const CollectiveSchedule& s, uint32_t rank)
{
    uint64_t most = 0;
    for (const CollectiveStep& step : s.GetSteps(rank))
    {
        most = std::max(most, step.kind == CollectiveStep::SEND ? step.bytes : 0);
    }
    return most;
}

// NCCL's pieces (src/enqueue.cc): NVLS 128 KiB, cut to 64/32/16 KiB below 64/8/2 x 16
// channels x 8 GPUs x the piece; NVLS-tree on 4 servers 64 KiB, cut to 32 KiB below 1 x.  And
// NCCL's own NVLS latencies in place of the rings': no launch latency, 25 us over a piece's
// engine messages (4 for all-reduce, 2 for reduce-scatter), 20.9 us per network hop.
TEST(Nvls, RunsNcclsPiecesAndLatencies)
{
    Ptr<CollectiveAlgorithm> nvls = CollectiveAlgorithm::Create("nvls");
    const struct
    {
        uint64_t bytes;
        uint64_t piece;
    } cases[] = {{1ULL << 30, 128 << 10}, {(1ULL << 30) - (1 << 20), 64 << 10},
                 {64 << 20, 64 << 10},    {(64 << 20) - (1 << 20), 32 << 10},
                 {8 << 20, 32 << 10},     {(8 << 20) - (1 << 20), 16 << 10}};
    for (const auto& c : cases)
    {
        // Pieces split their slice evenly: the largest within (piece/2, piece].
        const uint64_t largest = LargestSend(nvls->Build(OneServer(8, ALL_REDUCE, c.bytes)), 0);
        EXPECT_LE(largest, c.piece) << c.bytes;
        EXPECT_GT(largest, c.piece / 2) << c.bytes;
    }
    Ptr<CollectiveAlgorithm> tree = CollectiveAlgorithm::Create("nvls_tree");
    const auto fourServers = [](uint64_t bytes) {
        CollectiveRequest r = ServersRequest(4, 8, ALL_REDUCE, bytes);
        r.engineServers = {0, 1, 2, 3};
        return r;
    };
    EXPECT_EQ(LargestSend(tree->Build(fourServers(8 << 20)), 0), 64u << 10);
    const uint64_t below = LargestSend(tree->Build(fourServers((8 << 20) - (1 << 20))), 0);
    EXPECT_LE(below, 32u << 10);
    EXPECT_GT(below, 16u << 10);

    const CollectiveSchedule ar = nvls->Build(OneServer(8, ALL_REDUCE, 1 << 20));
    EXPECT_EQ(ar.GetLaunchLatency(), Time(0));
    EXPECT_EQ(ar.GetHopLatency(8, 0), NanoSeconds(6250));
    EXPECT_EQ(ar.GetHopLatency(0, 8), NanoSeconds(6250));
    EXPECT_EQ(nvls->Build(OneServer(8, REDUCE_SCATTER, 1 << 20)).GetHopLatency(0, 8),
              NanoSeconds(12500));
    const CollectiveSchedule t = tree->Build(fourServers(1 << 20));
    EXPECT_EQ(t.GetLaunchLatency(), Time(0));
    EXPECT_EQ(t.GetHopLatency(32, 0), NanoSeconds(6250));
    EXPECT_EQ(t.GetHopLatency(0, 8), NanoSeconds(20900));
    // The ideal protocol adds no latency, NVLS's neither.
    Ptr<CollectiveAlgorithm> ideal = CollectiveAlgorithm::Create("nvls");
    ideal->SetAttribute("Protocol", TypeIdValue(IdealProtocol::GetTypeId()));
    const CollectiveSchedule free = ideal->Build(OneServer(8, ALL_REDUCE, 1 << 20));
    EXPECT_EQ(free.GetLaunchLatency(), Time(0));
    EXPECT_EQ(free.GetHopLatency(0, 8), Time(0));
    // Other algorithms keep the protocol's (rings' NVLink 3.4 us, network 14 us, launch 8.4).
    const CollectiveSchedule ring =
        CollectiveAlgorithm::Create("ring")->Build(ServersRequest(2, 8, ALL_REDUCE, 1 << 20));
    EXPECT_EQ(ring.GetLaunchLatency(), NanoSeconds(8400));
    EXPECT_EQ(ring.GetHopLatency(0, 1), NanoSeconds(3400));
    EXPECT_EQ(ring.GetHopLatency(0, 8), NanoSeconds(14000));
}

// NCCL's model on a DGX H100 (doc/nccl-facts.md section 1.6): NVLS all-reduce 8 search
// channels x 40 x 0.85 x 7/8 x 2 = 476 GB/s, picked from 2 MiB on; without the engine, ring.
TEST(Nvls, TunerPicksNvlsOnOneServer)
{
    CollectiveRequest r = OneServer(8, ALL_REDUCE, 1 << 30);
    r.nvLinkRate = DataRate("2966.4Gbps");
    r.nicRate = DataRate("400Gbps");
    const NcclTuningModel model(NcclTuningModel::MakeGraph(r));
    EXPECT_NEAR(model.BusBandwidth(ALL_REDUCE, NcclTuningModel::NVLS, NcclTuningModel::SIMPLE),
                476.0, 0.01);
    const auto pick = model.Choose(ALL_REDUCE, 1 << 30);
    EXPECT_EQ(pick.algorithm, "nvls");
    EXPECT_EQ(pick.channels, 16u);
    EXPECT_EQ(model.Choose(ALL_REDUCE, 1 << 20).algorithm, "ring");
    EXPECT_EQ(model.Choose(ALL_REDUCE, 2 << 20).algorithm, "nvls");
    // NCCL converts all-gather's bus bandwidth to algorithm bandwidth for the ring only
    // (tuning.cc, "Convert bus BW to algorithm BW"): NVLS's time is latency + bytes / busbw.
    const uint64_t n = 1 << 30;
    EXPECT_NEAR(model.Time(ALL_GATHER, NcclTuningModel::NVLS, NcclTuningModel::SIMPLE, n),
                model.Latency(ALL_GATHER, NcclTuningModel::NVLS, NcclTuningModel::SIMPLE) +
                    n / (1000 * model.BusBandwidth(ALL_GATHER, NcclTuningModel::NVLS,
                                                   NcclTuningModel::SIMPLE)),
                1e-6);
    r.engineServers.clear();
    EXPECT_EQ(NcclTuningModel(NcclTuningModel::MakeGraph(r)).Choose(ALL_REDUCE, 1 << 30).algorithm,
              "ring");
}

// Across servers (nccl-facts section 1.6): NVLS-tree 8 x min(59.5, 96, 57.7) = 461.6 GB/s on 2
// servers and 8 x 45.5 = 364 on 4, with latency 25 + 2 log2(S) x 20.9 us; picked at 16 MiB on 2.
TEST(Nvls, TunerModelsNvlsTreeAcrossServers)
{
    for (const auto& [servers, busbw] : {std::pair<uint32_t, double>{2, 461.6}, {4, 364.0}})
    {
        CollectiveRequest r = ServersRequest(servers, 8, ALL_REDUCE, 0);
        for (uint32_t server = 0; server < servers; ++server)
        {
            r.engineServers.push_back(server);
        }
        r.nvLinkRate = DataRate("2966.4Gbps");
        r.nicRate = DataRate("400Gbps");
        const NcclTuningModel model(NcclTuningModel::MakeGraph(r));
        EXPECT_NEAR(model.BusBandwidth(ALL_REDUCE, NcclTuningModel::NVLS_TREE,
                                       NcclTuningModel::SIMPLE),
                    busbw, 0.01)
            << servers;
        EXPECT_NEAR(model.Latency(ALL_REDUCE, NcclTuningModel::NVLS_TREE, NcclTuningModel::SIMPLE),
                    25 + 2 * (servers == 2 ? 1 : 2) * 20.9, 1e-9);
        EXPECT_EQ(model.BusBandwidth(ALL_REDUCE, NcclTuningModel::NVLS, NcclTuningModel::SIMPLE), 0);
        if (servers == 2)
        {
            EXPECT_EQ(model.Choose(ALL_REDUCE, 16 << 20).algorithm, "nvls_tree");
        }
    }
}

} // namespace
