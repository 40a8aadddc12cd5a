// NCCL's point-to-point all-to-all and all-gather with PXN: the schedule's relays, and on a
// rail-optimized fabric its scale-out traffic on its rails and its time against the closed form
// of the NICs' load.
#include "collective-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{

/** Bytes \p rank sends to \p peer in \p s. */
uint64_t
BytesTo(const CollectiveSchedule& s, uint32_t rank, uint32_t peer)
{
    uint64_t bytes = 0;
    for (const CollectiveStep& step : s.GetSteps(rank))
    {
        bytes += step.kind == CollectiveStep::SEND && step.peer == peer ? step.bytes : 0;
    }
    return bytes;
}

/**
 * Over \p servers x \p gpus with blocks of \p block bytes: no rank sends to another server's
 * GPU on another rail, every rank's scale-out traffic is G(S-1) blocks, and every relayed
 * chunk leaves the relay after it arrived there.
 */
void
ExpectOnRails(const CollectiveSchedule& s, uint32_t servers, uint32_t gpus, uint64_t block)
{
    const uint32_t p = servers * gpus;
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        uint64_t scaleOut = 0;
        for (uint32_t peer = 0; peer < p; ++peer)
        {
            const bool remote = peer / gpus != rank / gpus;
            scaleOut += remote ? BytesTo(s, rank, peer) : 0;
            if (remote && peer % gpus != rank % gpus)
            {
                EXPECT_EQ(BytesTo(s, rank, peer), 0u) << rank << " -> " << peer;
            }
        }
        EXPECT_EQ(scaleOut, gpus * (servers - 1) * block) << "rank " << rank;
        const auto& steps = s.GetSteps(rank);
        for (uint32_t i = 0; i < steps.size(); ++i)
        {
            if (steps[i].kind == CollectiveStep::SEND && steps[i].channel == 1 &&
                steps[i].peer / gpus != rank / gpus)
            {
                const StepDeps deps = s.GetDeps(rank, i);
                ASSERT_EQ(deps.size(), 1u) << "rank " << rank << " step " << i;
                const CollectiveStep& in = steps[*deps.begin()];
                EXPECT_EQ(in.kind, CollectiveStep::RECV);
                EXPECT_EQ(in.channel, 1u);
                EXPECT_EQ(in.bytes, steps[i].bytes);
                EXPECT_EQ(in.peer / gpus, rank / gpus); // from a server-mate
            }
        }
    }
}

TEST(Pxn, CrossRailMessagesGoOverNvLinkToTheDestinationsRail)
{
    // 2 servers x 4 GPUs, 1 MiB blocks: rank 0 (server 0, GPU 0) reaches rank 5 (server 1,
    // GPU 1) through rank 1 (server 0, GPU 1), which relays it in NCCL's 128 KiB chunks.
    const uint64_t block = 1 << 20;
    const CollectiveSchedule s =
        CollectiveAlgorithm::Create("pxn")->Build(ServersRequest(2, 4, ALL_TO_ALL, 8 * block));
    EXPECT_EQ(BytesTo(s, 0, 5), 0u);
    EXPECT_EQ(BytesTo(s, 0, 4), 4 * block); // same rail: its own, and GPUs 1-3's for rank 4
    EXPECT_EQ(BytesTo(s, 0, 1), 2 * block); // its own block, and the one for rank 5 ...
    EXPECT_EQ(BytesTo(s, 1, 5), 4 * block); // ... which GPU 1 sends on with its own and those
                                            // of GPUs 2 and 3 of its server
    ExpectOnRails(s, 2, 4, block);
    uint32_t relayedSends = 0;
    for (const CollectiveStep& step : s.GetSteps(1))
    {
        relayedSends += step.kind == CollectiveStep::SEND && step.channel == 1 && step.peer == 5;
    }
    EXPECT_EQ(relayedSends, 8u * 3); // 8 chunks of each of 3 server-mates' blocks
    // All-gather is the same traffic: each rank's piece to every other.
    const CollectiveSchedule g =
        CollectiveAlgorithm::Create("pxn")->Build(ServersRequest(2, 4, ALL_GATHER, 8 * block));
    EXPECT_EQ(g.GetNSteps(), s.GetNSteps());
    EXPECT_EQ(BytesTo(g, 1, 5), 4 * block);
    // Three servers: a relay carries its server-mates' blocks to two servers on its rail, and a
    // block that is no whole number of chunks ends in a shorter one.
    const uint64_t odd = 300 * 1024;
    const CollectiveSchedule three =
        CollectiveAlgorithm::Create("pxn")->Build(ServersRequest(3, 4, ALL_TO_ALL, 12 * odd));
    ExpectOnRails(three, 3, 4, odd);
    EXPECT_EQ(BytesTo(three, 1, 5), 4 * odd);
    EXPECT_EQ(BytesTo(three, 1, 9), 4 * odd);
}

TEST(Pxn, WithoutPlacementOrRailMateEveryMessageIsDirect)
{
    CollectiveRequest r = ServersRequest(2, 4, ALL_TO_ALL, 8 << 20);
    r.placement.clear();
    const CollectiveSchedule s = CollectiveAlgorithm::Create("pxn")->Build(r);
    EXPECT_EQ(BytesTo(s, 0, 5), 1u << 20);
    // Server 0 holds GPUs 0 and 1 only: GPU 0's block for server 1's GPU 2 has no rail-mate.
    CollectiveRequest partial = ServersRequest(2, 4, ALL_TO_ALL, 6 << 20);
    partial.ranks = 6;
    partial.placement = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {1, 3}};
    const CollectiveSchedule p = CollectiveAlgorithm::Create("pxn")->Build(partial);
    EXPECT_EQ(BytesTo(p, 0, 4), 1u << 20);
    EXPECT_EQ(BytesTo(p, 0, 3), 0u); // GPU 1 of server 1: through GPU 1 of server 0
    EXPECT_EQ(BytesTo(p, 1, 3), 2u << 20);
}

TEST(Pxn, RailOptimizedAllToAllStaysOnTheRailsAtTheNicsClosedForm)
{
    // 2 servers x 8 GPUs at 400G, rail-optimized with spines.  Every rank's NIC sends and
    // receives G(S-1) = 8 blocks of data plus the ACKs of the 8 it receives; NVLink (7.4x
    // faster) carries 14 blocks each way and never binds; relaying in 128 KiB chunks costs
    // one chunk's NVLink time at the start.  Pairwise, NCCL-less, sends across
    // rails through the spines.
    const uint64_t block = 2 << 20;
    const uint64_t n = 16 * block;
    std::vector<Ptr<FabricSwitch>> spines;
    const auto spinesOf = [&spines](Ptr<FabricNetwork> net) {
        const FabricTopology& t = net->GetTopology();
        for (uint32_t id = 0; id < t.Nodes().size(); ++id)
        {
            if (t.GetNode(id).role == FabricTopology::Role::Spine)
            {
                spines.push_back(net->GetSwitch(id));
            }
        }
    };
    const auto spineFrames = [&spines] {
        uint64_t frames = 0;
        for (const auto& sw : spines)
        {
            frames += sw->GetFramesForwarded();
        }
        spines.clear();
        return frames;
    };
    // Simple, without NCCL's latencies.
    const ScopedDefaults noLatency("ns3::SimpleProtocol",
                                   {{"NvLinkHopLatency", "0s"},
                                    {"NetHopLatency", "0s"},
                                    {"LaunchLatency", "0s"}});
    const Attributes simple = {{"Protocol", "ns3::SimpleProtocol"}};
    const CollectiveRun pxn = RunCollective(RailOptimizedTopologyHelper(2, 8).Build(), "pxn",
                                            ALL_TO_ALL, n, 16, simple, spinesOf);
    EXPECT_FALSE(pxn.result.failed);
    EXPECT_EQ(spineFrames(), 0u);
    const FatTreeModel m; // 400G links, MTU 4096: the wire and ACK bytes per payload byte
    const double model = 8 * double(block) * m.Beta();
    const double t = pxn.result.Duration().GetSeconds();
    std::cout << "pxn all-to-all " << t * 1e6 << " us, NIC closed form " << model * 1e6 << " us\n";
    EXPECT_NEAR(t / model, 1.0, 0.02);

    const CollectiveRun pairwise = RunCollective(RailOptimizedTopologyHelper(2, 8).Build(),
                                                 "pairwise", ALL_TO_ALL, n, 16, simple, spinesOf);
    EXPECT_GT(spineFrames(), 0u);
    EXPECT_FALSE(pairwise.result.failed);
}

TEST(Pxn, AutoRunsAllToAllAsPxn)
{
    const CollectiveSchedule s =
        CollectiveAlgorithm::Create("auto")->Build(ServersRequest(2, 4, ALL_TO_ALL, 8 << 20));
    EXPECT_EQ(s.GetAlgorithm(), "auto:pxn/simple");
    EXPECT_EQ(BytesTo(s, 0, 5), 0u);
}

} // namespace
