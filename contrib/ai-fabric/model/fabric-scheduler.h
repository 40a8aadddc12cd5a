#ifndef AI_FABRIC_FABRIC_SCHEDULER_H
#define AI_FABRIC_FABRIC_SCHEDULER_H

#include "ns3/scheduler.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A binary-heap event scheduler that resolves same-time ties the same way however the
 * fabric is split over MPI ranks.
 *
 * ns-3's schedulers run the events of one timestamp in the order they were scheduled (their
 * uid).  A frame from another MPI rank is scheduled when its message is received at a window
 * boundary, not when it was sent, so under ns-3's rule a frame arriving at the same picosecond
 * as a local event (a transmit completion, a pacing timer) may run before it in one process and
 * after it in two.  This scheduler runs, at each timestamp, every FrameArrival first, ordered by
 * its tie key (receiving port), then every ControlArrival (a notice of the FabricControlPath,
 * which crosses ranks alike) by its key, and then the other events in scheduling order.  Every event a
 * rank runs then sees the same state as in a single process, and results are identical.
 *
 * Select it with Simulator::SetScheduler or the "SchedulerType" global value, in single-process
 * and distributed runs alike (ai-fabric-run does).  The tie rule differs from ns-3's, so a run
 * under another scheduler may differ from one under this by the order of simultaneous events.
 *
 * One consequence for models: ns-3 judges an event expired once an event with a larger uid at
 * the same time has run, so when a frame arrival runs before an event scheduled earlier for the
 * same picosecond, EventId::IsRunning() says false and EventId::Cancel() does nothing for that
 * event, which still runs.  Events a frame arrival may cancel check their own state when they
 * run (FabricNetDevice's PFC events and refreshes, RdmaQueuePair's timeout and pacing).
 */
class FabricScheduler final : public Scheduler
{
  public:
    static TypeId GetTypeId();

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /**
     * A scheduled event, 32 bytes: its time, its same-time order (a frame's tie key, else the
     * maximum), and the rest of ns-3's Event (uid, context, implementation).
     */
    struct Entry
    {
        uint64_t ts;
        uint64_t order;
        uint32_t uid;
        uint32_t context;
        EventImpl* impl;
    };

    /** Whether \p a runs before \p b: by time, then order, then uid. */
    static bool Before(const Entry& a, const Entry& b)
    {
        if (a.ts != b.ts)
        {
            return a.ts < b.ts;
        }
        return a.order != b.order ? a.order < b.order : a.uid < b.uid;
    }

    static Event ToEvent(const Entry& e);
    void SiftUp(std::size_t i, Entry moving);
    void RemoveAt(std::size_t i);

    std::vector<Entry> m_heap;
};

} // namespace ns3

#endif
