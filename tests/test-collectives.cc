// Collective algorithms as packets, against the alpha-beta closed forms
// (Thakur, Rabenseifner & Gropp 2005; shared/REFERENCES.md).
#include "collective-fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

using namespace ns3;
using namespace aifabric_test;

namespace
{
struct RingCase
{
    uint32_t ranks;
    uint64_t bytes;
};

/**
 * Ring all-reduce: 2(p-1) steps of n/p bytes, each step waiting for the one before it on the
 * left neighbour; with unequal links the critical path is the slowest window of 2(p-1)
 * consecutive ring edges.  Plus the reduction term and the last message's acknowledgement.
 */
double
RingAllReduceModel(const FatTreeModel& m, uint32_t p, uint64_t n)
{
    const double block = double(n) / p;
    const double frames = std::ceil(block / m.mtu);
    double worst = 0;
    for (uint32_t end = 0; end < p; ++end) // the rank whose last receive ends the window
    {
        double t = 0;
        for (uint32_t s = 0; s < 2 * (p - 1); ++s)
        {
            const uint32_t to = (end + 2 * p - s) % p;
            const uint32_t from = (to + p - 1) % p;
            t += m.Alpha(from, to) + frames * m.mtu * m.Beta() + (s < p - 1 ? block * m.gamma : 0);
        }
        // The last message's sender finishes when its acknowledgement comes back.
        worst = std::max(worst, t + m.AckLatency((end + p - 1) % p, end));
    }
    return worst;
}

class RingAllReduceAlphaBeta : public ::testing::TestWithParam<RingCase>
{
};

TEST_P(RingAllReduceAlphaBeta, WithinThreePercentOfClosedForm)
{
    const auto [p, n] = GetParam();
    const CollectiveRun run = RunOnFatTree("ring", ALL_REDUCE, n, p);
    const double measured = run.result.Duration().GetSeconds();
    const double model = RingAllReduceModel(FatTreeModel(), p, n);
    EXPECT_EQ(run.framesDropped, 0u);
    RecordProperty("measured_over_model", std::to_string(measured / model));
    std::cout << "ring p=" << p << " n=" << n << ": measured/model " << measured / model << "\n";
    EXPECT_NEAR(measured / model, 1.0, 0.03) << "measured " << measured * 1e6 << " us, model "
                                             << model * 1e6 << " us";
}

INSTANTIATE_TEST_SUITE_P(Sizes,
                         RingAllReduceAlphaBeta,
                         ::testing::Values(RingCase{4, 64 << 10},
                                           RingCase{4, 4 << 20},
                                           RingCase{4, 256 << 20},
                                           RingCase{8, 64 << 10},
                                           RingCase{8, 4 << 20},
                                           RingCase{16, 64 << 10},
                                           RingCase{16, 4 << 20},
                                           RingCase{16, 64 << 20}),
                         [](const auto& info) {
                             return "p" + std::to_string(info.param.ranks) + "_" +
                                    std::to_string(info.param.bytes >> 10) + "KiB";
                         });

} // namespace
