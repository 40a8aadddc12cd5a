// Collective schedules without a network: each algorithm moves the bytes its cost model says,
// every schedule validates, and bad requests and broken schedules are refused.
#include "collective-fixture.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

using namespace ns3;
using aifabric_test::Request;
using aifabric_test::StepBytes;

namespace
{
uint64_t
TotalSent(const CollectiveSchedule& s)
{
    uint64_t total = 0;
    for (uint32_t r = 0; r < s.GetNRanks(); ++r)
    {
        total += s.GetBytesSent(r);
    }
    return total;
}

/** Bytes all ranks together send, from each algorithm's cost model (n bytes, p ranks). */
struct VolumeCase
{
    const char* algorithm;
    CollectiveOperation op;
    bool powerOfTwoOnly;
    std::function<double(double n, double p)> totalSent;
};

class ScheduleVolume : public ::testing::TestWithParam<VolumeCase>
{
};

TEST_P(ScheduleVolume, SendsWhatTheCostModelSays)
{
    const VolumeCase c = GetParam();
    for (uint32_t p : {2u, 3u, 4u, 5u, 8u, 12u, 16u})
    {
        if (c.powerOfTwoOnly && (p & (p - 1)) != 0)
        {
            continue;
        }
        const uint64_t n = uint64_t(p) * 4 * 4096; // whole elements in every piece
        const CollectiveSchedule s = CollectiveAlgorithm::Create(c.algorithm)->Build(Request(c.op, n, p));
        EXPECT_EQ(s.Validate(), "");
        EXPECT_DOUBLE_EQ(double(TotalSent(s)), c.totalSent(double(n), double(p)))
            << c.algorithm << " " << CollectiveOperationName(c.op) << " p=" << p;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms,
    ScheduleVolume,
    ::testing::Values(
        VolumeCase{"ring", ALL_REDUCE, false, [](double n, double p) { return 2 * (p - 1) * n; }},
        VolumeCase{"ring", REDUCE_SCATTER, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"ring", ALL_GATHER, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"ring", BROADCAST, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"ring", REDUCE, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"tree", ALL_REDUCE, false, [](double n, double p) { return 2 * (p - 1) * n; }},
        VolumeCase{"halving-doubling", ALL_REDUCE, true,
                   [](double n, double p) { return 2 * (p - 1) * n; }},
        VolumeCase{"halving-doubling", REDUCE_SCATTER, true,
                   [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"halving-doubling", ALL_GATHER, true,
                   [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"recursive-doubling", ALL_REDUCE, true,
                   [](double n, double p) { return p * std::log2(p) * n; }},
        VolumeCase{"recursive-doubling", ALL_GATHER, true,
                   [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"binomial", BROADCAST, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"binomial", REDUCE, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"pairwise", ALL_TO_ALL, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"pxn", ALL_TO_ALL, false, [](double n, double p) { return (p - 1) * n; }},
        VolumeCase{"pxn", ALL_GATHER, false, [](double n, double p) { return (p - 1) * n; }}),
    [](const auto& info) {
        std::string name = std::string(info.param.algorithm) + "_" +
                           CollectiveOperationName(info.param.op);
        for (char& ch : name)
        {
            ch = ch == '-' ? '_' : ch;
        }
        return name;
    });

TEST(ScheduleVolume, RingAllReduceReducesOneBlockPerStep)
{
    const CollectiveSchedule s =
        CollectiveAlgorithm::Create("ring")->Build(Request(ALL_REDUCE, 8 << 20, 8));
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(s.GetBytesSent(r), 2u * 7 * (1 << 20)); // 2(p-1)/p n per rank
        EXPECT_EQ(StepBytes(s, r, CollectiveStep::REDUCE), 7u * (1 << 20)); // (p-1)/p n per rank
    }
}

TEST(ScheduleVolume, UnevenBlocksStillCoverTheBuffer)
{
    // 1000 floats over 7 ranks: blocks of 143 and 142 elements; every byte is reduced once.
    const CollectiveSchedule s =
        CollectiveAlgorithm::Create("ring")->Build(Request(ALL_REDUCE, 4000, 7));
    uint64_t reduced = 0;
    for (uint32_t r = 0; r < 7; ++r)
    {
        reduced += StepBytes(s, r, CollectiveStep::REDUCE);
    }
    EXPECT_EQ(reduced, 6u * 4000); // each block is reduced p-1 times, once per hop
}

TEST(ScheduleVolume, HierarchicalSplitsNvLinkAndRails)
{
    // 4 servers x 8 GPUs: NVLink reduce-scatter + all-gather, per-rail ring of n/8.
    CollectiveRequest r = Request(ALL_REDUCE, 32 << 20, 32);
    for (uint32_t rank = 0; rank < 32; ++rank)
    {
        r.placement.push_back({rank / 8, rank % 8});
    }
    const CollectiveSchedule s = CollectiveAlgorithm::Create("hierarchical")->Build(r);
    const double n = 32 << 20;
    const double perRank = 2 * 7.0 / 8 * n + 2 * 3.0 / 4 * (n / 8);
    for (uint32_t rank = 0; rank < 32; ++rank)
    {
        EXPECT_DOUBLE_EQ(double(s.GetBytesSent(rank)), perRank);
        for (const auto& step : s.GetSteps(rank))
        {
            if (step.kind == CollectiveStep::SEND && step.peer / 8 != rank / 8)
            {
                EXPECT_EQ(step.peer % 8, rank % 8) << "inter-server traffic stays on its rail";
            }
        }
    }
}

TEST(ScheduleVolume, HierarchicalCutsPiecesOnlyWhereTheyPayForTheirLatency)
{
    // Each piece's rail ring runs after the previous piece's on the same connections, paying
    // the ring's latency again: a small buffer is one piece, a large one Pipeline pieces.
    auto steps = [](uint64_t bytes, uint32_t pipeline) {
        CollectiveRequest r = Request(ALL_REDUCE, bytes, 32);
        for (uint32_t rank = 0; rank < 32; ++rank)
        {
            r.placement.push_back({rank / 8, rank % 8});
        }
        Ptr<CollectiveAlgorithm> a = CollectiveAlgorithm::Create("hierarchical");
        a->SetAttribute("Pipeline", UintegerValue(pipeline));
        return a->Build(r).GetNSteps();
    };
    EXPECT_EQ(steps(64 << 10, 16), steps(64 << 10, 1));         // below MinPieceBytes
    EXPECT_EQ(steps(2 << 20, 16), 4 * steps(512 << 10, 1));    // 4 pieces of 512 KiB
    EXPECT_EQ(steps(64 << 20, 16), 16 * steps(4 << 20, 1));    // Pipeline caps the count
}

// NCCL's trees over 14 nodes (src/graph/trees.cc's own example, doc/nccl-facts.md section 5):
// tree 0 is 0 -> 8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13, every odd node a leaf; tree 1 is its
// mirror image, so every node that is a leaf in one tree is inner in the other.
TEST(TreeShape, NcclBinaryTreesOverFourteenNodes)
{
    using Tree = DoubleBinaryTreeCollectiveAlgorithm;
    const uint32_t none = UINT32_MAX;
    EXPECT_EQ(Tree::BinaryTree(14, 0, 0).parent, none);
    EXPECT_EQ(Tree::BinaryTree(14, 0, 0).children, std::vector<uint32_t>({8}));
    EXPECT_EQ(Tree::BinaryTree(14, 8, 0).children, std::vector<uint32_t>({4, 12}));
    EXPECT_EQ(Tree::BinaryTree(14, 12, 0).children, std::vector<uint32_t>({10, 13}));
    EXPECT_EQ(Tree::BinaryTree(14, 13, 0).parent, 12u);
    EXPECT_EQ(Tree::BinaryTree(14, 6, 0).parent, 4u);
    EXPECT_EQ(Tree::BinaryTree(14, 13, 1).children, std::vector<uint32_t>({5})); // mirror of 0
    for (const uint32_t n : {2u, 5u, 14u, 15u, 32u})
    {
        uint32_t edges = 0;
        uint32_t leafInBoth = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t t = 0; t < 2; ++t)
            {
                const auto node = Tree::BinaryTree(n, r, t);
                edges += node.parent != none;
                for (const uint32_t child : node.children)
                {
                    EXPECT_EQ(Tree::BinaryTree(n, child, t).parent, r) << n << " " << t;
                }
            }
            leafInBoth += Tree::BinaryTree(n, r, 0).children.empty() &&
                          Tree::BinaryTree(n, r, 1).children.empty();
        }
        EXPECT_EQ(edges, 2 * (n - 1)) << n; // two spanning trees
        EXPECT_LE(leafInBoth, 1u) << n;
    }
}

// On 4 servers x 8 GPUs, channel c's tree chains each server's GPUs from GPU c, so every
// message between servers joins two GPUs c (rail c); chunks are the protocol's steps.
TEST(TreeShape, ChannelsCrossServersOnTheirOwnRail)
{
    CollectiveRequest r = Request(ALL_REDUCE, 16 << 20, 32);
    for (uint32_t rank = 0; rank < 32; ++rank)
    {
        r.placement.push_back({rank / 8, rank % 8});
    }
    Ptr<CollectiveAlgorithm> tree = CollectiveAlgorithm::Create("tree");
    tree->SetAttribute("Channels", UintegerValue(16));
    const CollectiveSchedule s = tree->Build(r);
    uint32_t crossings = 0;
    for (uint32_t rank = 0; rank < 32; ++rank)
    {
        for (const auto& step : s.GetSteps(rank))
        {
            if (step.kind == CollectiveStep::SEND && step.peer / 8 != rank / 8)
            {
                EXPECT_EQ(rank % 8, step.channel % 8);
                EXPECT_EQ(step.peer % 8, step.channel % 8);
                EXPECT_EQ(step.bytes, 512u << 10); // 1 MiB per channel: two 512 KiB steps
                ++crossings;
            }
        }
    }
    // Per channel and chunk, 3 tree edges between servers, each crossed up and down.
    EXPECT_EQ(crossings, 16u * 2 * 3 * 2);
}

TEST(ScheduleEmbed, OneJoinStandsBetweenManyEndsAndManyStarts)
{
    // A phase of 3 sends and 3 receives per rank, none waiting: 6 first and 6 last steps.
    CollectiveSchedule phase(ALL_REDUCE, 24, 2);
    for (uint32_t r = 0; r < 2; ++r)
    {
        for (uint32_t k = 0; k < 3; ++k)
        {
            phase.Send(r, 1 - r, 8, {});
            phase.Recv(r, 1 - r, 8, {});
        }
    }
    CollectiveSchedule s(ALL_REDUCE, 48, 2);
    auto ends = s.Embed(phase, {0, 1}, {{}, {}});
    ASSERT_EQ(s.GetSteps(0).size(), 6u); // nothing to wait for: no join
    ASSERT_EQ(ends[0].size(), 6u);
    ends = s.Embed(phase, {0, 1}, ends);
    ASSERT_EQ(s.GetSteps(0).size(), 13u);
    const uint32_t join = 6;
    EXPECT_EQ(s.GetSteps(0)[join].kind, CollectiveStep::JOIN);
    const StepDeps joinDeps = s.GetDeps(0, join);
    EXPECT_EQ(std::vector<uint32_t>(joinDeps.begin(), joinDeps.end()),
              (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
    for (uint32_t i = join + 1; i < 13; ++i)
    {
        const StepDeps deps = s.GetDeps(0, i);
        EXPECT_EQ(std::vector<uint32_t>(deps.begin(), deps.end()), std::vector<uint32_t>{join});
    }
    EXPECT_EQ(s.Validate(), "");
    // One end to wait for: the first steps wait on it directly.
    CollectiveSchedule direct(ALL_REDUCE, 24, 2);
    const uint32_t a = direct.Reduce(0, 8, {});
    const uint32_t b = direct.Reduce(1, 8, {});
    direct.Embed(phase, {0, 1}, {{a}, {b}});
    EXPECT_EQ(direct.GetSteps(0).size(), 7u);
    EXPECT_EQ(direct.GetDeps(0, 1).size(), 1u);
}

TEST(ScheduleKeep, APartBuiltAloneEqualsThatPartOfTheWhole)
{
    // What a process of a distributed run builds: its ranks' steps, every connection.
    for (const char* algorithm : {"ring", "tree", "hierarchical", "pairwise", "pxn"})
    {
        const bool p2p = algorithm == std::string("pairwise") || algorithm == std::string("pxn");
        CollectiveRequest r = Request(p2p ? ALL_TO_ALL : ALL_REDUCE, 4 << 20, 16);
        for (uint32_t rank = 0; rank < 16; ++rank)
        {
            r.placement.push_back({rank / 4, rank % 4});
        }
        const CollectiveSchedule whole = CollectiveAlgorithm::Create(algorithm)->Build(r);
        r.simulatedRanks.assign(16, false);
        r.simulatedRanks[0] = r.simulatedRanks[1] = r.simulatedRanks[9] = true;
        const CollectiveSchedule part = CollectiveAlgorithm::Create(algorithm)->Build(r);
        EXPECT_EQ(part.GetConnections(), whole.GetConnections()) << algorithm;
        EXPECT_EQ(part.Validate(), "") << algorithm;
        for (uint32_t rank = 0; rank < 16; ++rank)
        {
            if (!r.simulatedRanks[rank])
            {
                EXPECT_TRUE(part.GetSteps(rank).empty()) << algorithm << " rank " << rank;
                continue;
            }
            ASSERT_EQ(part.GetSteps(rank).size(), whole.GetSteps(rank).size()) << algorithm;
            for (uint32_t i = 0; i < whole.GetSteps(rank).size(); ++i)
            {
                const CollectiveStep& a = part.GetSteps(rank)[i];
                const CollectiveStep& b = whole.GetSteps(rank)[i];
                EXPECT_EQ(std::tie(a.kind, a.peer, a.channel, a.bytes),
                          std::tie(b.kind, b.peer, b.channel, b.bytes));
                const StepDeps da = part.GetDeps(rank, i);
                const StepDeps db = whole.GetDeps(rank, i);
                EXPECT_EQ(std::vector<uint32_t>(da.begin(), da.end()),
                          std::vector<uint32_t>(db.begin(), db.end()));
            }
        }
    }
    CollectiveRequest wrong = Request(ALL_REDUCE, 4 << 20, 16);
    wrong.simulatedRanks.assign(8, true);
    EXPECT_THROW(CollectiveAlgorithm::Create("ring")->Build(wrong), std::invalid_argument);
}

// The ring computes an all-reduce's, reduce-scatter's and all-gather's steps from their index
// (StoreSteps false, the default); stored, the same algorithm appends them one by one, and the
// stored schedule validates.  Both must be the same schedule: every step, every dependency,
// every connection in the same order, over rank counts with and without a remainder, several
// channels and slices, rail-aligned and rank-order rings, and a process's kept ranks.
TEST(GeneratedRing, MatchesTheStoredSteps)
{
    uint64_t compared = 0;
    uint64_t depsTotal = 0;
    uint64_t dependentsTotal = 0;
    uint32_t maxSlices = 0;
    for (CollectiveOperation op : {ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER})
    {
        for (uint32_t p : {2u, 3u, 5u, 8u, 12u})
        {
            for (const char* protocol : {"ns3::SimpleProtocol", "ns3::LlProtocol"})
            {
                for (uint32_t channels : {1u, 3u})
                {
                    // 327,683 elements per rank (odd, so pieces over channels and slices differ
                    // by an element; an all-reduce's blocks too, with p - 1 more): about
                    // 1.25 MiB, which Simple cuts into several slices.
                    const uint64_t bytes =
                        uint64_t(p) * 4 * 327683 + (op == ALL_REDUCE ? 4 * (p - 1) : 0);
                    CollectiveRequest r = Request(op, bytes, p);
                    if (p % 4 == 0)
                    {
                        for (uint32_t rank = 0; rank < p; ++rank)
                        {
                            r.placement.push_back({rank / 4, rank % 4});
                        }
                    }
                    const auto build = [&](bool store, const CollectiveRequest& request) {
                        Ptr<CollectiveAlgorithm> ring = CollectiveAlgorithm::Create("ring");
                        ring->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName(protocol)));
                        ring->SetAttribute("Channels", UintegerValue(channels));
                        ring->SetAttribute("StoreSteps", BooleanValue(store));
                        return ring->Build(request);
                    };
                    CollectiveRequest part = r;
                    part.simulatedRanks.assign(p, false);
                    part.simulatedRanks[p / 2] = true;
                    for (const CollectiveRequest& request : {r, part})
                    {
                        const CollectiveSchedule stored = build(true, request);
                        const CollectiveSchedule generated = build(false, request);
                        const std::string where = std::string(CollectiveOperationName(op)) +
                                                  " p=" + std::to_string(p) + " " + protocol +
                                                  " channels=" + std::to_string(channels) +
                                                  (request.simulatedRanks.empty() ? "" : " part");
                        ASSERT_FALSE(stored.IsGenerated());
                        ASSERT_TRUE(generated.IsGenerated());
                        EXPECT_EQ(generated.Validate(), "") << where;
                        EXPECT_EQ(generated.GetConnections(), stored.GetConnections()) << where;
                        ASSERT_EQ(generated.GetNSteps(), stored.GetNSteps()) << where;
                        const uint32_t perStep = op == ALL_REDUCE       ? 5
                                                 : op == REDUCE_SCATTER ? 3
                                                                        : 2;
                        maxSlices =
                            std::max(maxSlices,
                                     stored.GetNSteps(p / 2) / (channels * (p - 1) * perStep));
                        for (uint32_t rank = 0; rank < p; ++rank)
                        {
                            ASSERT_EQ(generated.GetNSteps(rank), stored.GetNSteps(rank)) << where;
                            EXPECT_EQ(generated.GetSinks(rank), stored.GetSinks(rank)) << where;
                            EXPECT_EQ(generated.GetPeers(rank), stored.GetPeers(rank)) << where;
                            // The steps that start at launch: each slice's first SEND.
                            const std::vector<uint32_t> start = stored.GetStartSteps(rank);
                            EXPECT_EQ(generated.GetStartSteps(rank), start) << where;
                            if (stored.GetNSteps(rank) > 0)
                            {
                                EXPECT_EQ(start.size() % channels, 0u) << where;
                                EXPECT_GE(start.size(), channels) << where;
                            }
                            for (uint32_t i = 0; i < stored.GetNSteps(rank); ++i)
                            {
                                const CollectiveStep a = generated.GetStep(rank, i);
                                const CollectiveStep b = stored.GetStep(rank, i);
                                ASSERT_EQ(
                                    std::make_tuple(a.kind, uint32_t(a.peer), a.channel, a.bytes),
                                    std::make_tuple(b.kind, uint32_t(b.peer), b.channel, b.bytes))
                                    << where << " rank " << rank << " step " << i;
                                const StepDeps da = generated.GetDeps(rank, i);
                                const StepDeps db = stored.GetDeps(rank, i);
                                ASSERT_EQ(std::vector<uint32_t>(da.begin(), da.end()),
                                          std::vector<uint32_t>(db.begin(), db.end()))
                                    << where << " rank " << rank << " step " << i;
                                const StepDeps na = generated.GetDependents(rank, i);
                                const StepDeps nb = stored.GetDependents(rank, i);
                                ASSERT_EQ(std::vector<uint32_t>(na.begin(), na.end()),
                                          std::vector<uint32_t>(nb.begin(), nb.end()))
                                    << where << " rank " << rank << " step " << i;
                                // The stored index's dependents are the dependencies reversed.
                                for (uint32_t d : db)
                                {
                                    const StepDeps back = stored.GetDependents(rank, d);
                                    ASSERT_NE(std::find(back.begin(), back.end(), i), back.end())
                                        << where << " rank " << rank << " step " << i;
                                }
                                depsTotal += db.size();
                                dependentsTotal += nb.size();
                                ++compared;
                            }
                            for (uint32_t peer = 0; peer < p; ++peer)
                            {
                                for (uint32_t channel = 0; channel <= channels; ++channel)
                                {
                                    for (auto kind : {CollectiveStep::SEND, CollectiveStep::RECV})
                                    {
                                        const MessageSteps ma =
                                            generated.GetMessageSteps(rank, kind, peer, channel);
                                        const MessageSteps mb =
                                            stored.GetMessageSteps(rank, kind, peer, channel);
                                        ASSERT_EQ(ma.size(), mb.size())
                                            << where << " rank " << rank;
                                        for (uint32_t k = 0; k < mb.size(); ++k)
                                        {
                                            ASSERT_EQ(ma[k], mb[k]) << where << " rank " << rank;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(compared, 10000u); // the loops above ran
    EXPECT_GE(maxSlices, 2u);    // and cut blocks into slices
    EXPECT_EQ(dependentsTotal, depsTotal);
}

TEST(ScheduleValidate, CatchesBrokenSchedules)
{
    CollectiveSchedule sizes(ALL_REDUCE, 8, 2);
    sizes.Send(0, 1, 8, {});
    sizes.Recv(1, 0, 4, {});
    EXPECT_NE(sizes.Validate().find("sends 8 B"), std::string::npos) << sizes.Validate();

    CollectiveSchedule missing(ALL_REDUCE, 8, 2);
    missing.Send(0, 1, 8, {});
    EXPECT_NE(missing.Validate().find("0 receives"), std::string::npos) << missing.Validate();

    CollectiveSchedule orphan(ALL_REDUCE, 8, 2);
    orphan.Recv(1, 0, 8, {});
    EXPECT_NE(orphan.Validate().find("never sends"), std::string::npos) << orphan.Validate();

    CollectiveSchedule deadlock(ALL_REDUCE, 8, 2); // each waits to receive before sending
    for (uint32_t r = 0; r < 2; ++r)
    {
        const uint32_t in = deadlock.Recv(r, 1 - r, 8, {});
        deadlock.Send(r, 1 - r, 8, {in});
    }
    EXPECT_NE(deadlock.Validate().find("deadlock"), std::string::npos) << deadlock.Validate();

    // A queue pair posts its messages in schedule order: rank 0's second send cannot go before
    // its first, which waits for rank 1's send, which waits for that second message.
    CollectiveSchedule order(ALL_REDUCE, 8, 2);
    const uint32_t in = order.Recv(0, 1, 8, {});
    order.Send(0, 1, 8, {in});
    order.Send(0, 1, 8, {});
    order.Recv(1, 0, 8, {});
    const uint32_t second = order.Recv(1, 0, 8, {});
    order.Send(1, 0, 8, {second});
    EXPECT_NE(order.Validate().find("deadlock: 6 steps"), std::string::npos) << order.Validate();

    CollectiveSchedule self(ALL_REDUCE, 8, 2);
    self.Send(0, 0, 8, {});
    EXPECT_NE(self.Validate().find("peer 0"), std::string::npos) << self.Validate();

    CollectiveSchedule forward(ALL_REDUCE, 8, 2);
    forward.Reduce(0, 8, {1});
    forward.Reduce(0, 8, {});
    EXPECT_NE(forward.Validate().find("later step"), std::string::npos) << forward.Validate();
}

void
ExpectRefused(const std::string& algorithm, const CollectiveRequest& r, const std::string& why)
{
    try
    {
        CollectiveAlgorithm::Create(algorithm)->Build(r);
        ADD_FAILURE() << algorithm << " accepted a request it should refuse (" << why << ")";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
}

TEST(CollectiveRequestCheck, RefusesWhatCannotRun)
{
    ExpectRefused("recursive-doubling", Request(ALL_REDUCE, 4096, 6), "power-of-two");
    ExpectRefused("halving-doubling", Request(ALL_REDUCE, 4096, 12), "power-of-two");
    ExpectRefused("binomial", Request(ALL_REDUCE, 4096, 4), "does not implement");
    ExpectRefused("pairwise", Request(BROADCAST, 4096, 4), "does not implement");
    ExpectRefused("ring", Request(ALL_TO_ALL, 4096, 4), "does not implement");
    ExpectRefused("ring", Request(REDUCE_SCATTER, 4100, 4), "multiple of ranks x element size");
    ExpectRefused("ring", Request(ALL_REDUCE, 4098, 4), "multiple of the element size");
    ExpectRefused("ring", Request(ALL_REDUCE, 4096, 1), "at least 2");
    CollectiveRequest root = Request(BROADCAST, 4096, 4);
    root.root = 4;
    ExpectRefused("binomial", root, "root 4");
    CollectiveRequest uneven = Request(ALL_REDUCE, 4096, 3);
    uneven.placement = {{0, 0}, {0, 1}, {1, 0}};
    ExpectRefused("hierarchical", uneven, "same number of ranks");
    EXPECT_THROW(CollectiveAlgorithm::Create("butterfly"), std::invalid_argument);
}

TEST(BusBandwidth, NcclTestsFactors)
{
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(ALL_REDUCE, 8), 2.0 * 7 / 8);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(REDUCE_SCATTER, 8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(ALL_GATHER, 8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(ALL_TO_ALL, 8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(BROADCAST, 8), 1.0);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(REDUCE, 8), 1.0);
}

} // namespace
