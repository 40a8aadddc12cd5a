#ifndef AI_FABRIC_FABRIC_SIMULATOR_IMPL_H
#define AI_FABRIC_FABRIC_SIMULATOR_IMPL_H

#include "fabric-scheduler.h"

#include "ns3/event-id.h"
#include "ns3/ptr.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <thread>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The single-process simulator core of ai-fabric's runs: ns-3's DefaultSimulatorImpl
 * without the work the fabric does not need on every event.
 *
 * It runs the same events in the same order as ns-3's DefaultSimulatorImpl over the same
 * scheduler: it numbers events alike (uids from EventId::UID::VALID, one per Schedule,
 * ScheduleNow, ScheduleWithContext and ScheduleDestroy), expires them alike and runs the destroy
 * events alike, so a run's results are bit-identical under either.  (One difference for a
 * faulty caller: with asserts built in, ScheduleWithContext refuses a negative delay too.)
 * What it leaves out:
 *
 * - the PreEventHook call (a hook for the visualizer), which built an EventId, with a reference
 *   count taken and dropped, for every event;
 * - the thread check of every ScheduleWithContext and the queue of events scheduled from other
 *   threads: the fabric schedules from the simulation thread only, and in builds with asserts
 *   a call from another thread stops the run;
 * - virtual calls into the scheduler: its queue is a FabricScheduler, held as that (final) class.
 *
 * While it runs, the fabric's per-frame code reads its clock and schedules into it directly
 * (FabricNow, FabricScheduleWithContext), not through ns-3's Simulator; and before each event
 * runs, it asks the queue to prefetch the memory of the next (FabricScheduler::Prefetch).
 *
 * Select it with the "SimulatorImplementationType" global value ("ns3::FabricSimulatorImpl")
 * together with "SchedulerType" "ns3::FabricScheduler"; SetScheduler accepts no other scheduler.
 * Distributed runs use ns-3's DistributedSimulatorImpl, whose results FabricScheduler's tie rule
 * makes identical to one process.
 */
class FabricSimulatorImpl final : public SimulatorImpl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /** A simulator at time 0 with no scheduler yet (Simulator sets the "SchedulerType"). */
    FabricSimulatorImpl();

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /**
     * The FabricSimulatorImpl running events now (inside its Run), else null.  The fabric's
     * per-frame code reads the clock and schedules through it (FabricNow,
     * FabricScheduleWithContext) instead of through ns-3's Simulator, whose static calls
     * find the implementation and call it virtually: about 5% of a frame's instructions.
     */
    static FabricSimulatorImpl* GetRunning()
    {
        return s_running;
    }

    /** Now(), without the virtual call. */
    Time CurrentTime() const
    {
        return TimeStep(m_currentTs);
    }

    /** ScheduleWithContext, without the virtual call. */
    void ScheduleEvent(uint32_t context, const Time& delay, EventImpl* event)
    {
        Insert(context, delay, event);
    }

  private:
    static FabricSimulatorImpl* s_running; //!< set for the length of Run
    void DoDispose() override;

    /** Queues \p event at \p delay from now for \p context, with the next uid; its key. */
    Scheduler::EventKey Insert(uint32_t context, const Time& delay, EventImpl* event);

    Ptr<FabricScheduler> m_events;        //!< The event queue.
    std::vector<EventId> m_destroyEvents; //!< Events for Destroy, in scheduling order.
    uint64_t m_currentTs{0};              //!< The current time, in time steps.
    uint32_t m_currentUid;                //!< The uid of the running (or last run) event.
    uint32_t m_currentContext;            //!< The context of the running event.
    uint32_t m_uid;                       //!< The next uid.
    uint64_t m_eventCount{0};             //!< Events run.
    bool m_stop{false};                   //!< Whether Stop was called.
    std::thread::id m_thread;             //!< The thread that runs it (checked by asserts).
};

/**
 * \ingroup ai-fabric
 * The simulator's time: Simulator::Now(), read directly while a FabricSimulatorImpl runs.
 */
inline Time
FabricNow()
{
    const FabricSimulatorImpl* running = FabricSimulatorImpl::GetRunning();
    return running ? running->CurrentTime() : Simulator::Now();
}

/**
 * \ingroup ai-fabric
 * Simulator::ScheduleWithContext(\p context, \p delay, \p event), straight into the
 * FabricSimulatorImpl that runs, if one does.
 */
inline void
FabricScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (FabricSimulatorImpl* running = FabricSimulatorImpl::GetRunning())
    {
        running->ScheduleEvent(context, delay, event);
        return;
    }
    Simulator::ScheduleWithContext(context, delay, event);
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_SIMULATOR_IMPL_H */
