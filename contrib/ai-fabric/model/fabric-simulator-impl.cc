#include "fabric-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FabricSimulatorImpl);

FabricSimulatorImpl* FabricSimulatorImpl::s_running = nullptr;

TypeId
FabricSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricSimulatorImpl>();
    return tid;
}

FabricSimulatorImpl::FabricSimulatorImpl()
    : m_currentUid(EventId::UID::INVALID),
      m_currentContext(Simulator::NO_CONTEXT),
      m_uid(EventId::UID::VALID),
      m_thread(std::this_thread::get_id())
{
}

void
FabricSimulatorImpl::DoDispose()
{
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            m_events->RemoveNext().impl->Unref();
        }
        m_events = nullptr;
    }
    SimulatorImpl::DoDispose();
}

void
FabricSimulatorImpl::Destroy()
{
    // In scheduling order, each taken off the list before it runs (so it is expired while it
    // runs); one may schedule another, which runs too.  The list is short: front erasure.
    while (!m_destroyEvents.empty())
    {
        const Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.erase(m_destroyEvents.begin());
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
FabricSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    const Ptr<Scheduler> made = schedulerFactory.Create<Scheduler>();
    const Ptr<FabricScheduler> scheduler = DynamicCast<FabricScheduler>(made);
    NS_ABORT_MSG_IF(!scheduler,
                    "FabricSimulatorImpl runs on ns3::FabricScheduler only, not "
                        << made->GetInstanceTypeId().GetName()
                        << " (use ns3::DefaultSimulatorImpl for another scheduler)");
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
}

uint32_t
FabricSimulatorImpl::GetSystemId() const
{
    return 0;
}

bool
FabricSimulatorImpl::IsFinished() const
{
    return m_events->IsEmpty() || m_stop;
}

void
FabricSimulatorImpl::Run()
{
    m_thread = std::this_thread::get_id();
    m_stop = false;

    // Events may throw (the runner turns a model's error into exit 2): restored on every way
    // out, to what it was (a Run inside an event's is a Run of this same simulator).
    struct Running
    {
        explicit Running(FabricSimulatorImpl* impl)
            : outer(s_running)
        {
            s_running = impl;
        }

        ~Running()
        {
            s_running = outer;
        }

        FabricSimulatorImpl* outer;
    } running(this);
    // m_events each time: an event may replace the scheduler (SetScheduler).
    while (!m_stop && !m_events->IsEmpty())
    {
        const Scheduler::Event next = m_events->RemoveNext();
        m_events->Prefetch();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
    }
}

void
FabricSimulatorImpl::Stop()
{
    m_stop = true;
}

void
FabricSimulatorImpl::Stop(const Time& delay)
{
    Simulator::Schedule(delay, &Simulator::Stop);
}

Scheduler::EventKey
FabricSimulatorImpl::Insert(uint32_t context, const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(m_thread == std::this_thread::get_id(),
                  "FabricSimulatorImpl: an event scheduled from another thread");
    NS_ASSERT_MSG(delay.IsPositive(), "FabricSimulatorImpl: a negative delay");
    Scheduler::Event ev;
    ev.impl = event;
    ev.key.m_ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    ev.key.m_context = context;
    ev.key.m_uid = m_uid++;
    m_events->Insert(ev);
    return ev.key;
}

EventId
FabricSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    const Scheduler::EventKey key = Insert(m_currentContext, delay, event);
    return EventId(event, key.m_ts, key.m_context, key.m_uid);
}

void
FabricSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    Insert(context, delay, event);
}

EventId
FabricSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
FabricSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    NS_ASSERT_MSG(m_thread == std::this_thread::get_id(),
                  "FabricSimulatorImpl: an event scheduled from another thread");
    // As ns-3's simulators: the reserved uid DESTROY, the current time, no context; the event
    // still takes a uid from the sequence, so the uids of later events match theirs.
    const EventId id(Ptr<EventImpl>(event, false),
                     m_currentTs,
                     std::numeric_limits<uint32_t>::max(),
                     EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

Time
FabricSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
FabricSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - m_currentTs);
}

void
FabricSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        const auto it = std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id);
        if (it != m_destroyEvents.end())
        {
            m_destroyEvents.erase(it);
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    event.impl->Unref();
}

void
FabricSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FabricSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
    {
        return true;
    }
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        return std::find(m_destroyEvents.begin(), m_destroyEvents.end(), id) ==
               m_destroyEvents.end();
    }
    // ns-3's rule: an event is expired once the clock passed it or, at its time, an event of
    // its uid or a larger one ran.
    return id.GetTs() < m_currentTs || (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid);
}

Time
FabricSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(std::numeric_limits<int64_t>::max());
}

uint32_t
FabricSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
FabricSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
