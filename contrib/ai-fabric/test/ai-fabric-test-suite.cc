// The module's ns-3 TestSuites, for test.py (./test.py --suite=ai-fabric-timing,
// --suite=ai-fabric-pfc, --suite=ai-fabric-ecmp, --suite=ai-fabric-ring-allreduce,
// --suite=ai-fabric-determinism); the checks themselves are shared with the GoogleTest suite
// (fabric-checks.h, collective-checks.h).
#include "collective-checks.h"
#include "fabric-checks.h"

#include "ns3/test.h"

namespace ns3
{

namespace
{
class OneFrameOneHopTestCase : public TestCase
{
  public:
    OneFrameOneHopTestCase()
        : TestCase("one frame through one switch arrives at serialization + propagation + "
                   "switch latency, to the picosecond")
    {
    }

  private:
    void DoRun() override
    {
        checks::UsePicoseconds();
        for (uint64_t gbps : {100, 200, 400, 800})
        {
            for (uint32_t payload : {64u, 1024u, 4096u})
            {
                const checks::TimeCheck c = checks::OneFrameOneHop(gbps, payload);
                NS_TEST_ASSERT_MSG_EQ(c.measured, c.expected,
                                      gbps << "G, " << payload << "-byte payload");
            }
        }
    }
};

class PfcIncastTestCase : public TestCase
{
  public:
    PfcIncastTestCase()
        : TestCase("8:1 and 32:1 incasts with PFC lose nothing; without PFC frames sent = "
                   "delivered + dropped")
    {
    }

  private:
    void DoRun() override
    {
        checks::UsePicoseconds();
        for (uint32_t n : {8u, 32u})
        {
            const checks::IncastCheck lossless = checks::Incast(n, true);
            NS_TEST_ASSERT_MSG_EQ(lossless.totals.framesDropped, 0, n << ":1 with PFC");
            NS_TEST_ASSERT_MSG_GT(lossless.totals.pfcPausesSent, 0, n << ":1 with PFC");
            NS_TEST_ASSERT_MSG_EQ(lossless.completeFlows, n, n << ":1 with PFC");
            NS_TEST_ASSERT_MSG_EQ(lossless.delivered, n * lossless.framesPerSender,
                                  n << ":1 with PFC");
            const checks::IncastCheck lossy = checks::Incast(n, false);
            NS_TEST_ASSERT_MSG_GT(lossy.totals.framesDropped, 0, n << ":1 without PFC");
            NS_TEST_ASSERT_MSG_EQ(lossy.totals.hostDataFramesSent,
                                  lossy.delivered + lossy.totals.framesDropped,
                                  n << ":1 without PFC");
        }
    }
};

class PfcTestSuite : public TestSuite
{
  public:
    PfcTestSuite()
        : TestSuite("ai-fabric-pfc", UNIT)
    {
        AddTestCase(new PfcIncastTestCase, TestCase::QUICK);
    }
};

PfcTestSuite g_pfcTestSuite;

class EcmpSpreadTestCase : public TestCase
{
  public:
    EcmpSpreadTestCase()
        : TestCase("800 flows spread over 8 equal-cost uplinks (chi-square, p = 0.001)")
    {
    }

  private:
    void DoRun() override
    {
        checks::UsePicoseconds();
        const checks::SpreadCheck c = checks::EcmpSpread();
        NS_TEST_ASSERT_MSG_EQ(c.uplinkFrames.size(), 8, "uplinks of leaf 0");
        for (uint64_t f : c.uplinkFrames)
        {
            NS_TEST_ASSERT_MSG_GT(f, 0, "an uplink carried nothing");
        }
        NS_TEST_ASSERT_MSG_LT(c.chiSquare, c.bound, "flows not spread");
    }
};

class EcmpTestSuite : public TestSuite
{
  public:
    EcmpTestSuite()
        : TestSuite("ai-fabric-ecmp", UNIT)
    {
        AddTestCase(new EcmpSpreadTestCase, TestCase::QUICK);
    }
};

EcmpTestSuite g_ecmpTestSuite;

class TimingTestSuite : public TestSuite
{
  public:
    TimingTestSuite()
        : TestSuite("ai-fabric-timing", UNIT)
    {
        AddTestCase(new OneFrameOneHopTestCase, TestCase::QUICK);
    }
};

TimingTestSuite g_timingTestSuite;

class RingAllReduceTestCase : public TestCase
{
  public:
    RingAllReduceTestCase(uint32_t ranks, uint64_t bytes)
        : TestCase("ring all-reduce of " + std::to_string(bytes >> 10) + " KiB on " +
                   std::to_string(ranks) + " ranks of a k=4 fat-tree within 0.4% of alpha-beta"),
          m_ranks(ranks),
          m_bytes(bytes)
    {
    }

  private:
    void DoRun() override
    {
        checks::UsePicoseconds();
        const checks::CollectiveRun run =
            checks::RunOnFatTree("ring", ALL_REDUCE, m_bytes, m_ranks);
        const double model = checks::RingAllReduceModel(checks::FatTreeModel(), m_ranks, m_bytes);
        NS_TEST_ASSERT_MSG_EQ(run.framesDropped, 0, "a lossless fabric dropped frames");
        NS_TEST_ASSERT_MSG_EQ_TOL(run.result.Duration().GetSeconds() / model, 1.0, 0.004,
                                  "measured over the closed form");
    }

    uint32_t m_ranks;
    uint64_t m_bytes;
};

class RingAllReduceTestSuite : public TestSuite
{
  public:
    RingAllReduceTestSuite()
        : TestSuite("ai-fabric-ring-allreduce", UNIT)
    {
        AddTestCase(new RingAllReduceTestCase(4, 4 << 20), TestCase::QUICK);
        AddTestCase(new RingAllReduceTestCase(16, 64 << 10), TestCase::QUICK);
        AddTestCase(new RingAllReduceTestCase(16, 4 << 20), TestCase::QUICK);
    }
};

RingAllReduceTestSuite g_ringAllReduceTestSuite;

class DeterminismTestCase : public TestCase
{
  public:
    DeterminismTestCase()
        : TestCase("the same seed gives the same DCQCN all-to-all, to the picosecond")
    {
    }

  private:
    void DoRun() override
    {
        checks::UsePicoseconds();
        const checks::DeterminismCheck c = checks::RunTwice(4 << 20);
        NS_TEST_ASSERT_MSG_EQ(c.first.result.end.GetPicoSeconds(),
                              c.second.result.end.GetPicoSeconds(),
                              "finish times differ");
        NS_TEST_ASSERT_MSG_EQ(c.first.ecnMarked, c.second.ecnMarked, "ECN marks differ");
        NS_TEST_ASSERT_MSG_GT(c.first.ecnMarked, 0, "no ECN mark: the random marker never ran");
        NS_TEST_ASSERT_MSG_EQ(c.first.pfcPauses, c.second.pfcPauses, "PFC pauses differ");
    }
};

class DeterminismTestSuite : public TestSuite
{
  public:
    DeterminismTestSuite()
        : TestSuite("ai-fabric-determinism", UNIT)
    {
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
    }
};

DeterminismTestSuite g_determinismTestSuite;
} // namespace

} // namespace ns3
