// DeepEP's MoE dispatch: the routing's hit probabilities against a hypergeometric closed form and
// against every order of a small gate's scores, the schedule's bytes per pair and path, and on a
// rail-optimized fabric its time against the NICs' closed form.
#include "collective-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

using namespace ns3;
using namespace aifabric_test;

namespace
{

/** C(n - e, k) / C(n, k): no target among k of n experts drawn at random. */
double
NoneOf(uint32_t n, uint32_t e, uint32_t k)
{
    double p = 1;
    for (uint32_t i = 0; i < k; ++i)
    {
        p *= double(n - e - i) / double(n - i);
    }
    return p;
}

/**
 * The hit probability by brute force: every order of \p experts scores (experts in \p groups
 * equal consecutive groups), the best \p g groups by their best expert, the best \p k experts
 * in them; the fraction of orders in which one of experts 0 .. e-1 is taken.
 */
double
Enumerate(uint32_t experts, uint32_t groups, uint32_t g, uint32_t k, uint32_t e)
{
    const uint32_t m = experts / groups;
    std::vector<uint32_t> order(experts); // order[i]: the expert with the i-th best score
    std::iota(order.begin(), order.end(), 0);
    uint64_t hits = 0;
    uint64_t orders = 0;
    do
    {
        std::set<uint32_t> chosen;
        for (uint32_t x : order)
        {
            if (chosen.size() < g)
            {
                chosen.insert(x / m);
            }
        }
        uint32_t taken = 0;
        bool hit = false;
        for (uint32_t x : order)
        {
            if (taken < k && chosen.count(x / m))
            {
                hit = hit || x < e;
                ++taken;
            }
        }
        hits += hit;
        ++orders;
    } while (std::next_permutation(order.begin(), order.end()));
    return double(hits) / double(orders);
}

/** Bytes \p rank sends to \p peer on \p channel in \p s. */
uint64_t
BytesTo(const CollectiveSchedule& s, uint32_t rank, uint32_t peer, uint32_t channel)
{
    uint64_t bytes = 0;
    for (const CollectiveStep& step : s.GetSteps(rank))
    {
        bytes += step.kind == CollectiveStep::SEND && step.peer == peer && step.channel == channel
                     ? step.bytes
                     : 0;
    }
    return bytes;
}

TEST(DeepEp, WithoutAGroupLimitATokensExpertsAreARandomDraw)
{
    // Every server usable (ServersPerToken >= servers): the 8 experts are 8 of 256 at random.
    for (uint32_t servers : {1u, 2u, 4u})
    {
        for (uint32_t target : {256u / servers, 256u / (8 * servers)})
        {
            EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(256, servers, 4, 8, target),
                        1 - NoneOf(256, target, 8), 1e-12)
                << servers << " servers, " << target << " experts";
        }
    }
}

TEST(DeepEp, GroupLimitedHitProbabilitiesAreThoseOfEveryScoreOrder)
{
    // 8 experts in 4 groups of 2, the best 2 groups, the best 3 experts in them: every one of
    // the 8! score orders, for a group and for one expert; and 6 experts in 3 groups.
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(8, 4, 2, 3, 2), Enumerate(8, 4, 2, 3, 2),
                1e-12);
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(8, 4, 2, 3, 1), Enumerate(8, 4, 2, 3, 1),
                1e-12);
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(8, 2, 1, 3, 1), Enumerate(8, 2, 1, 3, 1),
                1e-12);
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(6, 3, 2, 2, 1), Enumerate(6, 3, 2, 2, 1),
                1e-12);
    // Without a group limit (every group kept): the closed form, against every order too.
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(8, 2, 2, 3, 1), Enumerate(8, 2, 2, 3, 1),
                1e-12);
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(8, 4, 4, 3, 2), Enumerate(8, 4, 4, 3, 2),
                1e-12);
    // One expert: the best of all, in a chosen group by construction.
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(64, 8, 4, 1, 1), 1.0 / 64, 1e-12);
    // A token using every expert of its chosen groups uses a rank exactly when its group is
    // chosen: 128 of DeepSeek-V3's 256 in 4 of 8 groups (deep in the recursion, branches that
    // cannot happen are not followed).
    EXPECT_NEAR(DeepEpCollectiveAlgorithm::HitProbability(256, 8, 4, 128, 4), 0.5, 1e-12);
    const double many = DeepEpCollectiveAlgorithm::HitProbability(256, 8, 4, 64, 4);
    EXPECT_GT(many, DeepEpCollectiveAlgorithm::HitProbability(256, 8, 4, 8, 4));
    EXPECT_LT(many, 0.5);
    // Groups that are not equal, or a target no whole part of one, are refused.
    EXPECT_THROW(DeepEpCollectiveAlgorithm::HitProbability(256, 0, 4, 8, 4), std::invalid_argument);
    EXPECT_THROW(DeepEpCollectiveAlgorithm::HitProbability(255, 8, 4, 8, 4), std::invalid_argument);
    EXPECT_THROW(DeepEpCollectiveAlgorithm::HitProbability(256, 8, 4, 8, 3), std::invalid_argument);
}

TEST(DeepEp, ValidationTableHoldsTheRoutingsExpectations)
{
    // validation/deepep-h800.csv gives, per row, the expected servers (RDMA rows) or ranks (NVL
    // row) a token of DeepEP's benchmark reaches: what turns its published bandwidth into a time.
    std::ifstream in(std::string(AI_FABRIC_SCENARIO_DIR) + "/../validation/deepep-h800.csv");
    ASSERT_TRUE(in) << "validation/deepep-h800.csv";
    std::string line;
    std::vector<std::string> header;
    uint32_t rows = 0;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, ',');)
        {
            cells.push_back(cell);
        }
        if (header.empty())
        {
            header = cells;
            continue;
        }
        const auto at = [&](const std::string& name) {
            const auto it = std::find(header.begin(), header.end(), name);
            EXPECT_NE(it, header.end()) << name;
            return cells.at(it - header.begin());
        };
        const uint32_t servers = std::stoul(at("servers"));
        const uint32_t ranks = 8 * servers;
        const bool rdma = at("metric") == "rdma";
        const double expected =
            rdma ? servers * DeepEpCollectiveAlgorithm::HitProbability(256, servers, 4, 8,
                                                                       256 / servers)
                 : ranks * DeepEpCollectiveAlgorithm::HitProbability(256, servers, 4, 8,
                                                                     256 / ranks);
        EXPECT_NEAR(std::stod(at("hits")), expected, 5e-5) << line;
        ++rows;
    }
    EXPECT_GE(rows, 4u);
}

TEST(DeepEp, EachTokenCrossesTheNetworkOncePerServerOnItsRail)
{
    // 4 servers x 4 GPUs, 32 experts (2 a GPU), top 4 in the best 2 servers; 4 MiB a rank.
    const uint64_t bytes = 4 << 20;
    const Ptr<CollectiveAlgorithm> deepep = CollectiveAlgorithm::Create("deepep");
    deepep->SetAttribute("Experts", UintegerValue(32));
    deepep->SetAttribute("TopK", UintegerValue(4));
    deepep->SetAttribute("ServersPerToken", UintegerValue(2));
    const CollectiveSchedule s = deepep->Build(ServersRequest(4, 4, ALL_TO_ALL, bytes));
    // A request naming its routing (a job's model) is routed by it, not by the attributes.
    CollectiveRequest named = ServersRequest(4, 4, ALL_TO_ALL, bytes);
    named.experts = 32;
    named.topK = 4;
    const Ptr<CollectiveAlgorithm> defaults = CollectiveAlgorithm::Create("deepep");
    defaults->SetAttribute("ServersPerToken", UintegerValue(2));
    const CollectiveSchedule byRequest = defaults->Build(named);
    EXPECT_EQ(byRequest.GetNSteps(), s.GetNSteps());
    EXPECT_EQ(BytesTo(byRequest, 0, 1, 0), BytesTo(s, 0, 1, 0));
    EXPECT_EQ(BytesTo(byRequest, 0, 4, 0), BytesTo(s, 0, 4, 0));
    const double tokens = bytes / 4.0;
    const double rankHit = DeepEpCollectiveAlgorithm::HitProbability(32, 4, 2, 4, 2);
    const double serverHit = DeepEpCollectiveAlgorithm::HitProbability(32, 4, 2, 4, 8);
    for (uint32_t a = 0; a < 16; ++a)
    {
        uint64_t received = StepBytes(s, a, CollectiveStep::COPY);
        for (uint32_t b = 0; b < 16; ++b)
        {
            const bool mate = a / 4 == b / 4;
            const bool rail = a % 4 == b % 4;
            if (mate && a != b)
            {
                EXPECT_NEAR(BytesTo(s, a, b, 0), tokens * rankHit, 4);
            }
            if (!mate)
            {
                EXPECT_EQ(BytesTo(s, a, b, 1), 0u);
                EXPECT_NEAR(BytesTo(s, a, b, 0), rail ? tokens * serverHit : 0.0, 4)
                    << a << " -> " << b;
            }
            received += BytesTo(s, b, a, 0) * (mate) + BytesTo(s, b, a, 1);
        }
        // Every rank's tokens for it: its own, its mates' direct, the other servers' forwarded.
        EXPECT_NEAR(double(received), 16 * tokens * rankHit, 16 * 4.0) << "rank " << a;
    }
}

TEST(DeepEp, EachRankHasItsOwnForwarderOnItsRailOrOffIt)
{
    // Server 0 holds GPUs 0 and 1, server 1 GPUs 1 and 2: GPU 1's tokens go to its rail-mate,
    // GPU 0's (no GPU 0 there) to the other GPU, GPU 2; never both to one.
    CollectiveRequest r = ServersRequest(2, 2, ALL_TO_ALL, 4 << 20);
    r.placement = {{0, 0}, {0, 1}, {1, 1}, {1, 2}};
    const CollectiveSchedule s = CollectiveAlgorithm::Create("deepep")->Build(r);
    EXPECT_GT(BytesTo(s, 1, 2, 0), 0u);
    EXPECT_EQ(BytesTo(s, 1, 3, 0), 0u);
    EXPECT_GT(BytesTo(s, 0, 3, 0), 0u);
    EXPECT_EQ(BytesTo(s, 0, 2, 0), 0u);
    EXPECT_EQ(BytesTo(s, 2, 1, 0), BytesTo(s, 3, 0, 0)); // and back the same way
}

TEST(DeepEp, RailOptimizedDispatchTakesTheNicsClosedForm)
{
    // 4 servers x 8 GPUs at 400G, DeepEP's benchmark routing (256 experts, top 8 of the best 4
    // servers: here every server).  A rank's NIC carries its tokens to 3 servers once each
    // (0.904 of them each) plus the ACKs of as many; NVLink (7.6x the NIC) carries 6.4 tokens'
    // worth of every 2.7 the NIC does and never binds.  Simple, without NCCL's latencies.
    const ScopedDefaults noLatency("ns3::SimpleProtocol",
                                   {{"NvLinkHopLatency", "0s"},
                                    {"NetHopLatency", "0s"},
                                    {"LaunchLatency", "0s"}});
    const uint64_t bytes = 16 << 20;
    const CollectiveRun run = RunCollective(RailOptimizedTopologyHelper(4, 8).Build(), "deepep",
                                            ALL_TO_ALL, bytes, 32,
                                            {{"Protocol", "ns3::SimpleProtocol"}});
    ASSERT_FALSE(run.result.failed);
    const double serverHit = DeepEpCollectiveAlgorithm::HitProbability(256, 4, 4, 8, 64);
    const FatTreeModel m; // 400G links, MTU 4096: the wire and ACK bytes per payload byte
    const double model = 3 * (bytes / 8.0) * serverHit * m.Beta();
    const double t = run.result.Duration().GetSeconds();
    std::cout << "deepep dispatch " << t * 1e6 << " us, NIC closed form " << model * 1e6
              << " us\n";
    EXPECT_GT(t, model);
    EXPECT_NEAR(t / model, 1.0, 0.03);
}

TEST(DeepEp, RefusesWhatItCannotRoute)
{
    const Ptr<CollectiveAlgorithm> deepep = CollectiveAlgorithm::Create("deepep");
    EXPECT_THROW(deepep->Build(ServersRequest(2, 4, ALL_REDUCE, 8 << 20)), std::invalid_argument);
    deepep->SetAttribute("Experts", UintegerValue(12)); // not a whole number per rank of 8
    EXPECT_THROW(deepep->Build(ServersRequest(2, 4, ALL_TO_ALL, 8 << 20)), std::invalid_argument);
    deepep->SetAttribute("Experts", UintegerValue(4));
    deepep->SetAttribute("TopK", UintegerValue(8)); // more than the experts
    EXPECT_THROW(deepep->Build(Request(ALL_TO_ALL, 8 << 20, 4)), std::invalid_argument);
    CollectiveRequest uneven = ServersRequest(2, 4, ALL_TO_ALL, 6 << 20);
    uneven.ranks = 6;
    uneven.placement = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {1, 3}};
    deepep->SetAttribute("Experts", UintegerValue(6));
    deepep->SetAttribute("TopK", UintegerValue(2));
    EXPECT_THROW(deepep->Build(uneven), std::invalid_argument);
    // 32 experts on 2 servers, a token limited to 1 of them (16 experts): top 17 cannot be had.
    deepep->SetAttribute("Experts", UintegerValue(32));
    deepep->SetAttribute("ServersPerToken", UintegerValue(1));
    deepep->SetAttribute("TopK", UintegerValue(17));
    EXPECT_THROW(deepep->Build(ServersRequest(2, 4, ALL_TO_ALL, 8 << 20)), std::invalid_argument);
    // 32 B a rank (one element for each of 8 ranks): a rank's share for another is no element.
    deepep->SetAttribute("TopK", UintegerValue(8));
    EXPECT_THROW(deepep->Build(ServersRequest(2, 4, ALL_TO_ALL, 32)), std::invalid_argument);
    deepep->SetAttribute("ServersPerToken", UintegerValue(4));
    EXPECT_NO_THROW(deepep->Build(ServersRequest(2, 4, ALL_TO_ALL, 8 << 20)));
    // A model's top-k beyond what the routing takes (256).
    CollectiveRequest wide = ServersRequest(2, 4, ALL_TO_ALL, 8 << 20);
    wide.experts = 1024;
    wide.topK = 300;
    EXPECT_THROW(deepep->Build(wide), std::invalid_argument);
}

} // namespace
