// A pipelined collective in its steady state (SteadyStateSchedule, the collective fidelity):
// one message per connection carrying what the step-by-step schedule sends over it, and a
// tail latency equal to the schedule's longest chain of hop latencies, checked against the
// closed forms of a ring (2(n - 1) hops), a chain (a hop per rank before) and NCCL's binary
// trees (twice the depth).
#include "collective-fixture.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;
using aifabric_test::Request;
using aifabric_test::ServersRequest;

namespace
{
/** Bytes per (rank, peer, channel, kind) of \p s: what each connection carries each way. */
std::map<std::tuple<uint32_t, uint32_t, uint32_t, int>, uint64_t>
BytesPerConnection(const CollectiveSchedule& s)
{
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, int>, uint64_t> bytes;
    for (uint32_t r = 0; r < s.GetNRanks(); ++r)
    {
        for (const auto& step : s.GetSteps(r))
        {
            const bool message = step.kind == CollectiveStep::SEND || step.kind == CollectiveStep::RECV;
            bytes[{r, message ? step.peer : r, message ? step.channel : 0, int(step.kind)}] +=
                step.bytes;
        }
    }
    return bytes;
}

/** Rank \p rank's critical path (no network given: hop latencies alone). */
Time
LatencyOf(const CollectiveSchedule& steady, uint32_t rank, Time)
{
    return steady.GetCriticalPath(rank);
}
} // namespace

TEST(SteadyStateSchedule, RingAllReduceIsAMessagePerConnectionAndTwoNMinusOneHops)
{
    const uint32_t n = 8;
    Ptr<CollectiveAlgorithm> ring = CollectiveAlgorithm::Create("ring");
    ring->SetAttribute("Channels", UintegerValue(4));
    const CollectiveSchedule steps = ring->Build(Request(ALL_REDUCE, 64 << 20, n));
    ASSERT_TRUE(steps.IsPipelined());
    const CollectiveSchedule steady = SteadyStateSchedule(steps);
    EXPECT_EQ(steady.Validate(), "");
    auto connections = [](const CollectiveSchedule& s) {
        auto c = s.GetConnections();
        std::sort(c.begin(), c.end());
        return c;
    };
    EXPECT_EQ(connections(steady), connections(steps));
    EXPECT_EQ(BytesPerConnection(steady), BytesPerConnection(steps));
    const Time hop = steps.GetHopLatency(0, 1); // one rank per server: the network's
    ASSERT_TRUE(hop.IsStrictlyPositive());
    for (uint32_t r = 0; r < n; ++r)
    {
        // 4 channels: a send and a receive on each, and one reduction of all it reduces.
        EXPECT_EQ(steady.GetSteps(r).size(), 4u * 2 + 1) << r;
        EXPECT_EQ(LatencyOf(steady, r, hop), hop * (2 * (n - 1))) << r;
    }
    EXPECT_LT(steady.GetNSteps() * 20, steps.GetNSteps());
}

TEST(SteadyStateSchedule, ChainBroadcastWaitsAHopPerRankBeforeIt)
{
    const uint32_t n = 6;
    Ptr<CollectiveAlgorithm> ring = CollectiveAlgorithm::Create("ring");
    ring->SetAttribute("Channels", UintegerValue(1));
    const CollectiveSchedule steps = ring->Build(Request(BROADCAST, 8 << 20, n));
    const CollectiveSchedule steady = SteadyStateSchedule(steps);
    EXPECT_EQ(BytesPerConnection(steady), BytesPerConnection(steps));
    const Time hop = steps.GetHopLatency(0, 1);
    // The chain from root 0 runs in rank order; rank i is i hops down it.
    std::vector<Time> latency;
    for (uint32_t r = 0; r < n; ++r)
    {
        latency.push_back(LatencyOf(steady, r, hop));
    }
    std::vector<Time> sorted = latency;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_EQ(sorted[i], hop * i) << i;
    }
}

TEST(SteadyStateSchedule, TreeAllReduceGoesUpAndDownTheDeeperTree)
{
    using Tree = DoubleBinaryTreeCollectiveAlgorithm;
    for (const uint32_t n : {5u, 7u, 14u})
    {
        Ptr<CollectiveAlgorithm> tree = CollectiveAlgorithm::Create("tree");
        tree->SetAttribute("Channels", UintegerValue(2)); // one channel on each tree
        const CollectiveSchedule steps = tree->Build(Request(ALL_REDUCE, 16 << 20, n));
        ASSERT_TRUE(steps.IsPipelined());
        const CollectiveSchedule steady = SteadyStateSchedule(steps);
        EXPECT_EQ(steady.Validate(), "") << n;
        EXPECT_EQ(BytesPerConnection(steady), BytesPerConnection(steps)) << n;
        // The depth of either tree, from BinaryTree's parents.
        uint32_t depth = 0;
        for (uint32_t t = 0; t < 2; ++t)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                uint32_t d = 0;
                for (uint32_t x = r; Tree::BinaryTree(n, x, t).parent != UINT32_MAX;
                     x = Tree::BinaryTree(n, x, t).parent)
                {
                    ++d;
                }
                depth = std::max(depth, d);
            }
        }
        const Time hop = steps.GetHopLatency(0, 1);
        Time slowest;
        for (uint32_t r = 0; r < n; ++r)
        {
            slowest = std::max(slowest, LatencyOf(steady, r, hop));
        }
        EXPECT_EQ(slowest, hop * (2 * depth)) << n;
    }
}

namespace
{
/** 4 servers of 4 GPUs, each NVSwitch with an engine (NVLS's ranks 16-19). */
CollectiveRequest
FourServers(CollectiveOperation op)
{
    CollectiveRequest r = ServersRequest(4, 4, op, 16 * 4 * 64 * 1024);
    r.engineServers = {0, 1, 2, 3};
    return r;
}
} // namespace

TEST(SteadyStateSchedule, EveryPipelinedAlgorithmKeepsEachConnectionsBytes)
{
    // Every algorithm that says it is pipelined, on every operation it runs: its steady state
    // validates and moves, over each connection and each way, what its steps moved; the rest
    // say they are not.
    const std::vector<std::pair<const char*, std::vector<CollectiveOperation>>> pipelined = {
        {"ring", {ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER, BROADCAST, REDUCE}},
        {"tree", {ALL_REDUCE}},
        {"nvls", {ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER}},
        {"nvls_tree", {ALL_REDUCE}},
        {"pxn", {ALL_TO_ALL, ALL_GATHER}},
        {"deepep", {ALL_TO_ALL}}};
    for (const auto& [name, ops] : pipelined)
    {
        for (const CollectiveOperation op : ops)
        {
            CollectiveRequest r = FourServers(op);
            if (std::string(name) == "nvls")
            {
                r.placement.resize(4); // one server
                r.ranks = 4;
                r.bytes /= 4;
                r.engineServers = {0};
            }
            const CollectiveSchedule steps = CollectiveAlgorithm::Create(name)->Build(r);
            ASSERT_TRUE(steps.IsPipelined()) << name;
            const CollectiveSchedule steady = SteadyStateSchedule(steps);
            EXPECT_EQ(steady.Validate(), "") << name << " " << CollectiveOperationName(op);
            EXPECT_EQ(BytesPerConnection(steady), BytesPerConnection(steps))
                << name << " " << CollectiveOperationName(op);
        }
    }
    for (const char* name : {"halving-doubling", "recursive-doubling", "hierarchical"})
    {
        EXPECT_FALSE(CollectiveAlgorithm::Create(name)->Build(FourServers(ALL_REDUCE)).IsPipelined())
            << name;
    }
    EXPECT_FALSE(
        CollectiveAlgorithm::Create("binomial")->Build(FourServers(BROADCAST)).IsPipelined());
    EXPECT_FALSE(
        CollectiveAlgorithm::Create("pairwise")->Build(FourServers(ALL_TO_ALL)).IsPipelined());
}

TEST(SteadyStateSchedule, ChannelsOnOneRouteAreOneConnectionWithTheirBudgets)
{
    // 8 ranks in a ring on 4 channels, every channel between two ranks on the same links (as
    // NVLink inside a server): one connection per pair, at 4 channels' send budget.  When
    // channel 3 takes other links, the channels stay apart.
    Ptr<CollectiveAlgorithm> ring = CollectiveAlgorithm::Create("ring");
    ring->SetAttribute("Channels", UintegerValue(4));
    const CollectiveSchedule steps = ring->Build(Request(ALL_REDUCE, 64 << 20, 8));
    const auto sameLinks = [](uint32_t from, uint32_t to, uint32_t) {
        MessagePath path;
        path.links = {{from, 1.0}, {100 + to, 1.0}};
        path.firstLink = from;
        path.bytesPerSecond = 50e9;
        return path;
    };
    const CollectiveSchedule merged = SteadyStateSchedule(steps, sameLinks);
    EXPECT_EQ(merged.GetChannelsPerConnection(), 4u);
    EXPECT_EQ(merged.Validate(), "");
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(merged.GetSteps(r).size(), 3u) << r; // a send, a receive, a reduction
        EXPECT_EQ(merged.GetBytesSent(r), steps.GetBytesSent(r)) << r;
    }
    const CollectiveSchedule apart =
        SteadyStateSchedule(steps, [&](uint32_t from, uint32_t to, uint32_t channel) {
            MessagePath path = sameLinks(from, to, channel);
            path.links.back().first += channel == 3 ? 1000 : 0;
            return path;
        });
    EXPECT_EQ(apart.GetChannelsPerConnection(), 1u);
    EXPECT_EQ(apart.GetSteps(0).size(), 4u * 2 + 1);
    // The critical path is the same either way: the chain runs channel by channel, each
    // message at its share of the first link (a quarter: the rank's four connections on it
    // carry equal bytes), then its hop.  Its slices pipeline, so it takes the rank's bytes
    // through the link plus at most the ring's 14 hops.
    EXPECT_EQ(merged.GetCriticalPath(0), apart.GetCriticalPath(0));
    const Time hop = steps.GetHopLatency(0, 1);
    const Time bandwidth = Seconds(static_cast<double>(steps.GetBytesSent(0)) / 50e9);
    EXPECT_GT(merged.GetCriticalPath(0), bandwidth);
    EXPECT_LT(merged.GetCriticalPath(0), bandwidth + hop * 14);
}
