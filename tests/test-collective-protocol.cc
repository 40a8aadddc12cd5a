// NCCL's protocols (Simple, LL, LL128) on the packet model: their buffer and line sizes, how a
// ring slices under them, the bytes they put on the wire and the latency they add, each
// against its closed form (NCCL 2.30's constants: contrib/ai-fabric/doc/nccl-facts.md, 1-2).
#include "collective-fixture.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/type-id.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
Ptr<CollectiveProtocol>
Protocol(const std::string& type)
{
    ObjectFactory factory(type);
    return factory.Create<CollectiveProtocol>();
}

TEST(Protocol, NcclBufferAndLineSizes)
{
    const auto simple = Protocol("ns3::SimpleProtocol");
    const auto ll = Protocol("ns3::LlProtocol");
    const auto ll128 = Protocol("ns3::Ll128Protocol");
    // A step is an eighth of the buffer: 4 MiB; 8 lines x 512 threads x 8 steps x 16 B; 120
    // elements x 640 threads x 8 steps x 8 B; less the flags.
    EXPECT_EQ(simple->GetStepPayload(), 512u << 10);
    EXPECT_EQ(ll->GetStepPayload(), 32u << 10);
    EXPECT_EQ(ll128->GetStepPayload(), 576000u);
    // LL: 16 B lines carrying 8 B; LL128: 128 B lines carrying 120 B; Simple: data alone.
    EXPECT_EQ(ll->WireBytes(1), 16u);
    EXPECT_EQ(ll->WireBytes(8), 16u);
    EXPECT_EQ(ll->WireBytes(9), 32u);
    EXPECT_EQ(ll->WireBytes(1 << 20), 2u << 20);
    EXPECT_EQ(ll128->WireBytes(120), 128u);
    EXPECT_EQ(ll128->WireBytes(121), 256u);
    EXPECT_EQ(ll128->WireBytes(576000), 614400u);
    EXPECT_EQ(simple->WireBytes(12345), 12345u);
    EXPECT_EQ(Protocol("ns3::IdealProtocol")->WireBytes(12345), 12345u);
}

uint32_t
Sends(const CollectiveSchedule& s, uint32_t rank)
{
    uint32_t n = 0;
    for (const auto& step : s.GetSteps(rank))
    {
        n += step.kind == CollectiveStep::SEND;
    }
    return n;
}

CollectiveSchedule
Ring(const std::string& protocol, CollectiveOperation op, uint64_t bytes, uint32_t ranks)
{
    Ptr<CollectiveAlgorithm> ring = CollectiveAlgorithm::Create("ring");
    ring->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName(protocol)));
    CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    r.ranks = ranks;
    return ring->Build(r);
}

// NCCL's ring all-reduce with Simple cuts each block into chunks of 4 steps (2 MiB) sent as
// slices of 2 steps (1 MiB); LL and LL128 send one step per slice; a broadcast chain sends
// one step per slice with every protocol.
TEST(Protocol, RingSlicesAsNcclCutsItsChunks)
{
    const uint64_t block = 8 << 20; // per rank, 8 ranks
    const uint32_t steps = 2 * 7;
    EXPECT_EQ(Sends(Ring("ns3::SimpleProtocol", ALL_REDUCE, 8 * block, 8), 0), steps * 8);
    EXPECT_EQ(Sends(Ring("ns3::LlProtocol", ALL_REDUCE, 8 * block, 8), 0), steps * 256);
    // LL and LL128 forward line by line: messages of at most ForwardUnit (32 KiB) bytes; with
    // ForwardUnit 0, LL128 cuts whole steps of 576,000 data bytes.
    EXPECT_EQ(Sends(Ring("ns3::Ll128Protocol", ALL_REDUCE, 8 * block, 8), 0), steps * 256);
    {
        ScopedDefaults wholeSteps("ns3::Ll128Protocol", {{"ForwardUnit", "0"}});
        EXPECT_EQ(Sends(Ring("ns3::Ll128Protocol", ALL_REDUCE, 8 * block, 8), 0),
                  steps * ((block + 575999) / 576000));
    }
    EXPECT_EQ(Sends(Ring("ns3::IdealProtocol", ALL_REDUCE, 8 * block, 8), 0), steps);
    // A 3 MiB block: two chunks (2 MiB, 1 MiB), each in two slices.
    EXPECT_EQ(Sends(Ring("ns3::SimpleProtocol", REDUCE_SCATTER, 8 * (3 << 20), 8), 0), 7 * 4);
    EXPECT_EQ(Sends(Ring("ns3::SimpleProtocol", BROADCAST, 8 << 20, 8), 0), 16u);
    // One element per block: one slice, never an empty one.
    EXPECT_EQ(Sends(Ring("ns3::SimpleProtocol", ALL_REDUCE, 8 * 4, 8), 0), steps);
}

Time
Latency(const std::string& protocol, const std::string& attribute)
{
    TimeValue v;
    Protocol(protocol)->GetAttribute(attribute, v);
    return v.Get();
}

// A ring all-reduce of one element per rank is 2(p-1) steps one after the other: each adds
// the protocol's hop latency (here every hop crosses the network), and the launch latency
// comes first, so the protocol adds L + 2(p-1) h to the transfer alone (within 1 us: the
// transfer alone waits for its last acknowledgement, which the protocol's last hop hides).
TEST(Protocol, SmallRingPaysLaunchAndOneHopPerStep)
{
    const uint32_t p = 8;
    const double alone = RunOnStar("ring", ALL_REDUCE, 4 * p, p).result.Duration().GetSeconds();
    for (const char* protocol : {"ns3::SimpleProtocol", "ns3::LlProtocol", "ns3::Ll128Protocol"})
    {
        const double run = RunOnStar("ring", ALL_REDUCE, 4 * p, p, {{"Protocol", protocol}})
                               .result.Duration()
                               .GetSeconds();
        const double added = Latency(protocol, "LaunchLatency").GetSeconds() +
                             2 * (p - 1) * Latency(protocol, "NetHopLatency").GetSeconds();
        EXPECT_NEAR(run - alone, added, 1e-6)
            << protocol << ": " << run * 1e6 << " us, the transfer alone " << alone * 1e6;
    }
}

// At 64 MiB the time is the bytes on the wire: LL doubles them, LL128 adds 8/120, Simple
// nothing.  Within 3%: the protocols' slices overlap the reductions with the transfers, which
// the whole messages of the transfer alone do not, and their pipelines add latency.
TEST(Protocol, LargeRingTimeScalesWithTheWireBytes)
{
    // Channels as fast as the links: this is about the wire.
    ScopedDefaults unbounded("ns3::Ll128Protocol", {{"ChannelRate", "0bps"}});
    const uint64_t n = 64 << 20;
    const double alone = RunOnStar("ring", ALL_REDUCE, n, 4).result.Duration().GetSeconds();
    const std::vector<std::pair<const char*, double>> cases{
        {"ns3::SimpleProtocol", 1.0}, {"ns3::LlProtocol", 2.0}, {"ns3::Ll128Protocol", 128.0 / 120}};
    for (const auto& [protocol, factor] : cases)
    {
        const double run = RunOnStar("ring", ALL_REDUCE, n, 4, {{"Protocol", protocol}})
                               .result.Duration()
                               .GetSeconds();
        EXPECT_NEAR(run / alone / factor, 1.0, 0.03) << protocol;
    }
}

// A channel's CTA moves ChannelRate at most: a one-channel ring all-reduce of n bytes on p
// ranks sends 2(p-1)/p n per rank through it, so at 10 GB/s (a fifth of the 400G links) it
// takes that over the rate, plus the launch and 2(p-1) network hops (within 2%: LL128's
// 32 KiB messages fill the pipeline in microseconds).
TEST(Protocol, ChannelRateBoundsARingChannel)
{
    ScopedDefaults slow("ns3::Ll128Protocol", {{"ChannelRate", "10GBps"}});
    const uint32_t p = 4;
    const uint64_t n = 64 << 20;
    const double run =
        RunOnStar("ring", ALL_REDUCE, n, p, {{"Protocol", "ns3::Ll128Protocol"}, {"Channels", "1"}})
            .result.Duration()
            .GetSeconds();
    const double model = 2.0 * (p - 1) / p * n / 10e9 + Latency("ns3::Ll128Protocol", "LaunchLatency").GetSeconds() +
                         2 * (p - 1) * Latency("ns3::Ll128Protocol", "NetHopLatency").GetSeconds();
    EXPECT_NEAR(run / model, 1.0, 0.02) << run * 1e6 << " us, model " << model * 1e6;
}

// The rate is the channel's, not each connection's: pxn posts a rank's p-1 messages at once
// on one channel, so they share the CTA's 10 GB/s and take (p-1) n/p over it, not n/p.
TEST(Protocol, ChannelRateIsSharedByTheChannelsConnections)
{
    ScopedDefaults slow("ns3::SimpleProtocol", {{"ChannelRate", "10GBps"}});
    const uint32_t p = 4;
    const uint64_t n = 16 << 20;
    const double run = RunOnStar("pxn", ALL_TO_ALL, n, p, {{"Protocol", "ns3::SimpleProtocol"}})
                           .result.Duration()
                           .GetSeconds();
    const double model = (p - 1.0) / p * n / 10e9;
    EXPECT_NEAR(run / model, 1.0, 0.02) << run * 1e6 << " us, model " << model * 1e6;
}

// Two senders sharing a limiter never send more than its rate allows: each reservation
// starts where the last ended, and an idle limiter starts afresh.
TEST(Protocol, SendRateLimiterConservesItsRate)
{
    SendRateLimiter limiter(DataRate("8Gbps")); // 1 byte per ns
    EXPECT_EQ(limiter.Reserve(NanoSeconds(0), 1000), NanoSeconds(1000));
    EXPECT_EQ(limiter.Reserve(NanoSeconds(0), 1000), NanoSeconds(2000)); // the other sender
    EXPECT_EQ(limiter.Reserve(NanoSeconds(1000), 500), NanoSeconds(1500));
    EXPECT_EQ(limiter.Reserve(NanoSeconds(10000), 100), NanoSeconds(100)); // idle: afresh
    EXPECT_EQ(SendRateLimiter().Reserve(NanoSeconds(5), 1 << 20), Time(0));
}

} // namespace
