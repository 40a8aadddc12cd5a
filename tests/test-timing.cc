// Timing against closed forms: one frame through one switch, and line-rate goodput.
#include "fabric-checks.h"
#include "fabric-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
struct Arrivals
{
    std::vector<Time> times;

    void Record(const FrameInfo&)
    {
        times.push_back(Simulator::Now());
    }
};
} // namespace

class OneFrameOneHop : public testing::TestWithParam<std::tuple<uint64_t, uint32_t>>
{
};

TEST_P(OneFrameOneHop, ArrivalIsSerializationPlusPropagationPlusSwitchLatency)
{
    const auto [gbps, payload] = GetParam();
    // The check test.py's ai-fabric-timing suite runs too.
    const checks::TimeCheck c = checks::OneFrameOneHop(gbps, payload);
    EXPECT_EQ(c.measured.GetPicoSeconds(), c.expected.GetPicoSeconds());
}

INSTANTIATE_TEST_SUITE_P(Rates,
                         OneFrameOneHop,
                         testing::Combine(testing::Values(100, 200, 400, 800),
                                          testing::Values(64u, 1024u, 4096u)));

TEST(LineRate, LongMessageReachesClosedFormGoodput)
{
    const uint64_t gbps = 400;
    const uint64_t bytes = 64ull << 20;
    Ptr<FabricNetwork> net =
        FabricNetworkHelper().Install(Star(2, DataRate(gbps * 1000000000ull), 2));
    Arrivals arrivals;
    net->GetEndpoint(1)->TraceConnectWithoutContext("Deliver",
                                                    MakeCallback(&Arrivals::Record, &arrivals));
    MessageSourceHelper sources;
    sources.Install(net, 0, 1, bytes, Time(0));
    RunAndDestroy();

    ASSERT_EQ(arrivals.times.size(), bytes / 4096);
    const double seconds = arrivals.times.back().GetSeconds();
    const double goodput = double(bytes) * 8 / seconds;
    const double closedForm = double(gbps) * 1e9 * 4096.0 / roce::WireBytesForPayload(4096);
    EXPECT_NEAR(goodput / closedForm, 1.0, 0.005);
    EXPECT_LT(goodput, closedForm); // the pipeline's one-time latency can only cost
}

TEST(NvLink, IntraServerSegmentsMatchClosedForm)
{
    // One 8-GPU server: GPU 0 to GPU 1 crosses the NVSwitch in 64 KiB segments at NVLink's rate.
    RailOptimizedTopologyHelper rail(1, 8);
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(rail.Build());
    Arrivals arrivals;
    net->GetEndpoint(1)->TraceConnectWithoutContext("Deliver",
                                                    MakeCallback(&Arrivals::Record, &arrivals));
    MessageSourceHelper sources;
    const uint64_t bytes = 64ull << 20;
    sources.Install(net, 0, 1, bytes, Time(0));
    RunAndDestroy();

    const uint32_t segment = 65536;
    const uint64_t segments = bytes / segment;
    ASSERT_EQ(arrivals.times.size(), segments);
    // Store and forward in segments: all of them through the GPU's link back to back, then the
    // last one through the switch pipeline (500 ns) and the second link; 0.2 m cables (1 ns).
    const double rate = double(ClusterHelper::kH100NvLinkRate.GetBitRate());
    const double segmentSeconds = roce::WireBytesForPayload(segment) * 8 / rate;
    const double expected = (segments + 1) * segmentSeconds + 2e-9 + 500e-9;
    EXPECT_NEAR(arrivals.times.back().GetSeconds(), expected, 1e-12 * (segments + 2));
    // Bandwidth seen by the application: below NVLink's rate net of per-segment headers,
    // short of it only by the one-segment fill and the switch latency (0.43% at 64 MiB).
    const double busbw = bytes / arrivals.times.back().GetSeconds();
    const double ideal = rate / 8 * segment / roce::WireBytesForPayload(segment);
    EXPECT_LT(busbw, ideal);
    EXPECT_NEAR(busbw / ideal, 1.0, 0.005);
}
