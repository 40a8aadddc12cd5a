// Incast through one switch: PFC makes it lossless; without PFC it drops; bytes are conserved.
// checks::Incast is shared with the module's ai-fabric-pfc ns-3 suite.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

class Incast : public testing::TestWithParam<uint32_t>
{
};

TEST_P(Incast, LosslessWithPfc)
{
    const uint32_t n = GetParam();
    const checks::IncastCheck r = checks::Incast(n, true);
    EXPECT_EQ(r.totals.framesDropped, 0u);
    EXPECT_GT(r.totals.pfcPausesSent, 0u);
    EXPECT_EQ(r.completeFlows, n);
    EXPECT_EQ(r.totals.hostDataFramesSent, r.delivered);
    EXPECT_EQ(r.totals.hostDataFramesSent, uint64_t(n) * 256);
    // The buffer filled but never past its size (4 MiB).
    EXPECT_GT(r.leafBufferPeak, 1u << 20);
    EXPECT_LE(r.leafBufferPeak, 4u << 20);
}

TEST_P(Incast, DropsWithoutPfcAndConservesFrames)
{
    const uint32_t n = GetParam();
    const checks::IncastCheck r = checks::Incast(n, false);
    EXPECT_GT(r.totals.framesDropped, 0u);
    EXPECT_EQ(r.totals.pfcPausesSent, 0u);
    EXPECT_EQ(r.totals.framesDropped,
              r.totals.dropsByReason[static_cast<std::size_t>(DropReason::BufferFull)]);
    EXPECT_EQ(r.totals.hostDataFramesSent, r.delivered + r.totals.framesDropped);
    EXPECT_LT(r.completeFlows, n);
}

INSTANTIATE_TEST_SUITE_P(Fanin, Incast, testing::Values(8u, 32u));

TEST(IncastHeadroom, LosslessAt800GOver100MetreOptics)
{
    // The derived headroom must cover the longest pause round trip the fabric builds:
    // 800G, 100 m cables (500 ns each way), 16 senders.
    const checks::IncastCheck r = checks::Incast(16, true, DataRate("800Gbps"), 100);
    EXPECT_EQ(r.totals.framesDropped, 0u);
    EXPECT_GT(r.totals.pfcPausesSent, 0u);
    EXPECT_EQ(r.completeFlows, 16u);
}
