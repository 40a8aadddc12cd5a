// The module's ns-3 TestSuites, for test.py (./test.py --suite=ai-fabric-timing); the checks
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
