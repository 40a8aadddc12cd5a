// The progress line of a long run: simulated time and event rate every few wall seconds.
#ifndef AI_FABRIC_PROGRESS_REPORTER_H
#define AI_FABRIC_PROGRESS_REPORTER_H

#include "ns3/nstime.h"

#include <chrono>
#include <functional>

namespace aifabric
{

/**
 * Reports simulated time and event rate at most once per \p every of wall time.  It checks
 * every 10 us of simulated time, so it keeps reporting through compute phases in which the
 * model schedules nothing, and it never keeps a finished simulation alive; it does not change
 * the order of model events.
 */
class ProgressReporter
{
  public:
    /** Called with the simulated time and the events per wall second since the last report. */
    using Report = std::function<void(ns3::Time simulated, double eventsPerSecond)>;

    /**
     * \p exact: Simulator::IsFinished() tells whether events other than this check are
     * pending (one process).  A distributed engine learns it only at window ends, so there a
     * check that finds an idle interval stops the reporter (it would keep the run alive).
     */
    ProgressReporter(std::chrono::steady_clock::duration every, bool exact, Report report);
    /** Schedule the first check; call before Simulator::Run. */
    void Start();

  private:
    void Check();

    std::chrono::steady_clock::duration m_every;
    bool m_exact;
    Report m_report;
    std::chrono::steady_clock::time_point m_lastReport;
    uint64_t m_lastEvents{0};
    uint64_t m_reportedEvents{0};
};

} // namespace aifabric

#endif
