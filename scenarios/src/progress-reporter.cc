#include "progress-reporter.h"

#include "ns3/simulator.h"

using namespace ns3;

namespace aifabric
{

namespace
{
/** Simulated time between checks. */
const Time kCheckInterval = MicroSeconds(10);
} // namespace

ProgressReporter::ProgressReporter(std::chrono::steady_clock::duration every,
                                   bool exact,
                                   Report report)
    : m_every(every),
      m_exact(exact),
      m_report(std::move(report)),
      m_lastReport(std::chrono::steady_clock::now())
{
}

void
ProgressReporter::Start()
{
    m_lastReport = std::chrono::steady_clock::now();
    Simulator::Schedule(kCheckInterval, &ProgressReporter::Check, this);
}

void
ProgressReporter::Check()
{
    // Only this check is left: the run is over (a compute phase without events is not).
    const uint64_t events = Simulator::GetEventCount();
    if (m_exact ? Simulator::IsFinished() : events - m_lastEvents <= 1)
    {
        return;
    }
    m_lastEvents = events;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastReport >= m_every)
    {
        const double since = std::chrono::duration<double>(now - m_lastReport).count();
        m_report(Simulator::Now(),
                 since > 0 ? double(events - m_reportedEvents) / since : 0.0);
        m_lastReport = now;
        m_reportedEvents = events;
    }
    Simulator::Schedule(kCheckInterval, &ProgressReporter::Check, this);
}

} // namespace aifabric
