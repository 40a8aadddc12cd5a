// The module's ns-3 TestSuites, for test.py (./test.py --suite=ai-fabric-timing,
// --suite=ai-fabric-pfc, --suite=ai-fabric-ecmp); the checks
// themselves are shared with the GoogleTest suite (fabric-checks.h).
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
        Time::SetResolution(Time::PS);
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
        Time::SetResolution(Time::PS);
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
        Time::SetResolution(Time::PS);
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
} // namespace

} // namespace ns3
