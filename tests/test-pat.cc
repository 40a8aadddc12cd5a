// NCCL's PAT: each rank sends and reduces what the ring does, a piece travels at most
// log2(n) hops (small all-gathers far faster than the ring's n - 1), large ones as fast as the
// ring on a star; the tuner's PAT time is NCCL's formula and it picks PAT only with one GPU
// per server.
#include "collective-fixture.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace ns3;
using namespace aifabric_test;

namespace
{

/**
 * Whose piece each of \p s's all-gather messages carries, by following the data: a SEND
 * without dependencies carries its rank's own piece, one that waits for a RECV forwards that
 * RECV's piece, and the k-th RECV of b from a on a channel carries what a's k-th SEND to b
 * on it did.  Per rank, the owners of the pieces it received, in any order.
 */
std::vector<std::multiset<uint32_t>>
ReceivedOwners(const CollectiveSchedule& s)
{
    const uint32_t n = s.GetNRanks();
    std::vector<std::vector<uint32_t>> owner(n);
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> sent, received;
    for (uint32_t r = 0; r < n; ++r)
    {
        owner[r].assign(s.GetSteps(r).size(), UINT32_MAX);
        for (uint32_t i = 0; i < s.GetSteps(r).size(); ++i)
        {
            const CollectiveStep& step = s.GetSteps(r)[i];
            if (step.kind == CollectiveStep::SEND)
            {
                sent[{r, step.peer, step.channel}].push_back(i);
            }
            else if (step.kind == CollectiveStep::RECV)
            {
                received[{step.peer, r, step.channel}].push_back(i);
            }
        }
    }
    for (bool changed = true; changed;)
    {
        changed = false;
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t i = 0; i < s.GetSteps(r).size(); ++i)
            {
                const StepDeps deps = s.GetDeps(r, i);
                if (s.GetSteps(r)[i].kind != CollectiveStep::SEND || owner[r][i] != UINT32_MAX)
                {
                    continue;
                }
                const uint32_t from = deps.empty() ? r : owner[r][*deps.begin()];
                if (from != UINT32_MAX)
                {
                    owner[r][i] = from;
                    changed = true;
                }
            }
        }
        for (const auto& [key, sends] : sent)
        {
            const auto& [a, b, channel] = key;
            const auto& recvs = received[key];
            for (uint32_t k = 0; k < sends.size() && k < recvs.size(); ++k)
            {
                if (owner[b][recvs[k]] == UINT32_MAX && owner[a][sends[k]] != UINT32_MAX)
                {
                    owner[b][recvs[k]] = owner[a][sends[k]];
                    changed = true;
                }
            }
        }
    }
    std::vector<std::multiset<uint32_t>> got(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t i = 0; i < s.GetSteps(r).size(); ++i)
        {
            if (s.GetSteps(r)[i].kind == CollectiveStep::RECV)
            {
                got[r].insert(owner[r][i]);
            }
        }
    }
    return got;
}

TEST(Pat, EveryRankGetsEveryOtherRanksPieceOnceByFollowingTheData)
{
    for (uint32_t n : {2u, 5u, 8u, 13u, 16u})
    {
        // One chunk of one element a rank, so each message is one piece.
        const CollectiveSchedule s =
            CollectiveAlgorithm::Create("pat")->Build(Request(ALL_GATHER, 4 * n, n));
        const auto got = ReceivedOwners(s);
        for (uint32_t r = 0; r < n; ++r)
        {
            std::multiset<uint32_t> others;
            for (uint32_t o = 0; o < n; ++o)
            {
                if (o != r)
                {
                    others.insert(o);
                }
            }
            EXPECT_EQ(got[r], others) << n << " ranks, rank " << r;
        }
    }
}

TEST(Pat, MessagesAreNcclsChunks)
{
    // 8 ranks, 1 MiB a rank on one channel: all-gather halves 512 KiB while 32 chunks exceed
    // 8 MiB (256 KiB), reduce-scatter while 16 do (512 KiB).
    for (const auto& [op, chunk] : {std::pair{ALL_GATHER, 256u << 10}, {REDUCE_SCATTER, 512u << 10}})
    {
        const CollectiveSchedule s =
            CollectiveAlgorithm::Create("pat")->Build(Request(op, 8 << 20, 8));
        for (const CollectiveStep& step : s.GetSteps(0))
        {
            if (step.kind == CollectiveStep::SEND)
            {
                EXPECT_EQ(step.bytes, chunk) << CollectiveOperationName(op);
            }
        }
    }
}

TEST(Pat, EachRankSendsAndReducesWhatTheRingDoes)
{
    for (uint32_t n : {2u, 5u, 8u, 13u})
    {
        const uint64_t piece = 3 * 64 * 1024;
        for (const CollectiveOperation op : {ALL_GATHER, REDUCE_SCATTER})
        {
            const CollectiveSchedule s =
                CollectiveAlgorithm::Create("pat")->Build(Request(op, n * piece, n));
            for (uint32_t r = 0; r < n; ++r)
            {
                EXPECT_EQ(s.GetBytesSent(r), (n - 1) * piece) << n << " ranks, rank " << r;
                EXPECT_EQ(StepBytes(s, r, CollectiveStep::REDUCE),
                          op == REDUCE_SCATTER ? (n - 1) * piece : 0)
                    << n << " ranks, rank " << r;
            }
        }
    }
    // Over 2 channels, each half of every piece (96 KiB) in NCCL's chunks: 64 KiB here, since
    // 32 larger ones would exceed the 8 ranks' 768 KiB per channel.
    Ptr<CollectiveAlgorithm> two = CollectiveAlgorithm::Create("pat");
    two->SetAttribute("Channels", UintegerValue(2));
    const CollectiveSchedule s = two->Build(Request(ALL_GATHER, 8 * 3 * 64 * 1024, 8));
    EXPECT_EQ(s.GetBytesSent(0), 7u * 3 * 64 * 1024);
    // Per channel the pairs at distance 1, 2 and 4: 8 + 8 + 4 (distance 4 is its own mirror).
    EXPECT_EQ(s.GetConnections().size(), 2u * (8 + 8 + 4));
}

TEST(Pat, APieceTravelsLogNHopsWhereTheRingsTravelsNMinusOne)
{
    // 16 ranks on a star at 400G, 16 x 4 KiB: latency-bound.  PAT's pieces are at most 4 hops
    // from their owners, the ring's 15: over the star's links hop by hop PAT takes under half
    // the ring's time.  At 64 MiB both move the same bytes through each NIC: within 5%.
    const double patSmall =
        RunOnStar("pat", ALL_GATHER, 16 * 4096, 16).result.Duration().GetSeconds();
    const double ringSmall =
        RunOnStar("ring", ALL_GATHER, 16 * 4096, 16).result.Duration().GetSeconds();
    std::cout << "16 x 4 KiB all-gather: pat " << patSmall * 1e6 << " us, ring "
              << ringSmall * 1e6 << " us\n";
    EXPECT_LT(patSmall, ringSmall / 2);
    const uint64_t big = 64 << 20;
    const double patBig = RunOnStar("pat", ALL_GATHER, big, 16).result.Duration().GetSeconds();
    const double ringBig = RunOnStar("ring", ALL_GATHER, big, 16).result.Duration().GetSeconds();
    std::cout << "64 MiB all-gather: pat " << patBig * 1e6 << " us, ring " << ringBig * 1e6
              << " us\n";
    EXPECT_NEAR(patBig / ringBig, 1.0, 0.05);
    const double rsBig =
        RunOnStar("pat", REDUCE_SCATTER, big, 16).result.Duration().GetSeconds();
    const double ringRs =
        RunOnStar("ring", REDUCE_SCATTER, big, 16).result.Duration().GetSeconds();
    EXPECT_NEAR(rsBig / ringRs, 1.0, 0.05);
}

TEST(Pat, RefusesProtocolsOtherThanSimple)
{
    Ptr<CollectiveAlgorithm> pat = CollectiveAlgorithm::Create("pat");
    pat->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::Ll128Protocol")));
    EXPECT_THROW(pat->Build(Request(ALL_GATHER, 8 << 20, 8)), std::invalid_argument);
    EXPECT_THROW(CollectiveAlgorithm::Create("pat")->Build(Request(ALL_REDUCE, 8 << 20, 8)),
                 std::invalid_argument);
}

TEST(Pat, TunerTakesNcclsPatModelWithOneGpuPerServer)
{
    // 16 single-GPU servers at 400G: PAT's time is NCCL's 8 us + log2(16) x 14 us / 3.5 +
    // 2.8 us x 16 plus the bytes at 0.75 of the channels' speed, not converted to algorithm
    // bandwidth (tuning.cc; doc/nccl-facts.md 1.3 and 5a).
    CollectiveRequest r = Request(ALL_GATHER, 1 << 20, 16);
    for (uint32_t rank = 0; rank < 16; ++rank)
    {
        r.placement.push_back({rank, 0});
    }
    r.nicRate = DataRate("400Gbps");
    const NcclTuningModel::Graph g = NcclTuningModel::MakeGraph(r);
    const NcclTuningModel model(g);
    for (uint64_t bytes : {uint64_t(64) << 10, uint64_t(16) << 20})
    {
        const double expected =
            8.0 + 4 * 14.0 / 3.5 + 2.8 * 16 + bytes / (1000 * g.channels * g.speed * 0.75);
        EXPECT_NEAR(model.Time(ALL_GATHER, NcclTuningModel::PAT, NcclTuningModel::SIMPLE, bytes),
                    expected, 1e-9);
    }
    EXPECT_LT(model.Time(REDUCE_SCATTER, NcclTuningModel::PAT, NcclTuningModel::LL, 1 << 20), 0);
    EXPECT_LT(model.Time(ALL_REDUCE, NcclTuningModel::PAT, NcclTuningModel::SIMPLE, 1 << 20), 0);
    // It wins somewhere between latency and bandwidth and loses to the ring at 1 GiB.
    bool picked = false;
    for (uint64_t bytes = 1024; bytes <= (uint64_t(1) << 30); bytes *= 2)
    {
        picked = picked || model.Choose(ALL_GATHER, bytes).algorithm == "pat";
    }
    EXPECT_TRUE(picked);
    EXPECT_EQ(model.Choose(ALL_GATHER, uint64_t(1) << 30).algorithm, "ring");
    // Two GPUs a server: never PAT (NCCL's auto needs one GPU per node).
    CollectiveRequest pairs = r;
    for (uint32_t rank = 0; rank < 16; ++rank)
    {
        pairs.placement[rank] = {rank / 2, rank % 2};
    }
    const NcclTuningModel shared(NcclTuningModel::MakeGraph(pairs));
    for (uint64_t bytes = 1024; bytes <= (uint64_t(1) << 30); bytes *= 2)
    {
        EXPECT_NE(shared.Choose(ALL_GATHER, bytes).algorithm, "pat") << bytes;
    }
}

} // namespace
