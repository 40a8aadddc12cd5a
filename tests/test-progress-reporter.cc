// The progress line keeps reporting through compute phases without events and never keeps a
// finished simulation alive.
#include "src/progress-reporter.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;
using aifabric::ProgressReporter;

namespace
{
void
Nothing()
{
}

/** The simulated times of the reports over a run with model events at 0, 1 ms and 2 ms. */
std::vector<Time>
ReportsOverComputeGaps(bool exact, Time* end)
{
    std::vector<Time> reports;
    ProgressReporter reporter(std::chrono::steady_clock::duration::zero(), exact,
                              [&reports](Time simulated, double) { reports.push_back(simulated); });
    reporter.Start();
    for (const Time& t : {Time(0), MilliSeconds(1), MilliSeconds(2)})
    {
        Simulator::Schedule(t, &Nothing);
    }
    Simulator::Run();
    *end = Simulator::Now();
    Simulator::Destroy();
    return reports;
}
} // namespace

TEST(ProgressReporter, ReportsThroughAComputePhaseAndEndsWithTheModel)
{
    Time end;
    const std::vector<Time> reports = ReportsOverComputeGaps(true, &end);
    // A check every 10 us while the model has events pending: through both 1 ms gaps.
    ASSERT_FALSE(reports.empty());
    EXPECT_GE(reports.size(), 199u);
    EXPECT_GE(reports.back(), MilliSeconds(2) - MicroSeconds(10));
    // The check after the model's last event finds nothing pending and stops.
    EXPECT_LE(end, MilliSeconds(2) + MicroSeconds(10));
}

TEST(ProgressReporter, UnderADistributedEngineStopsAtTheFirstIdleInterval)
{
    // Without Simulator::IsFinished an idle interval is all it can see: it stops, so that it
    // never keeps a distributed run alive (documented limit).
    Time end;
    const std::vector<Time> reports = ReportsOverComputeGaps(false, &end);
    EXPECT_LE(reports.size(), 1u);
    EXPECT_EQ(end, MilliSeconds(2));
}
