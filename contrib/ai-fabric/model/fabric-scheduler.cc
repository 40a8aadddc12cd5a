#include "fabric-scheduler.h"

#include "fabric-control-path.h"
#include "frame-arrival.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <limits>
#include <typeinfo>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricScheduler);

TypeId
FabricScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricScheduler>();
    return tid;
}

Scheduler::Event
FabricScheduler::ToEvent(const Entry& e)
{
    Event ev;
    ev.impl = e.impl;
    ev.key.m_ts = e.ts;
    ev.key.m_uid = e.uid;
    ev.key.m_context = e.context;
    return ev;
}

void
FabricScheduler::Insert(const Event& ev)
{
    // Type checks, not a dynamic_cast: both arrivals are final, and this runs for every event.
    // By address: each arrival's type_info is emitted once, in this library, beside its key
    // function (Notify), where std::type_info's == would compare names (strcmp) for every
    // other event.
    const std::type_info* type = &typeid(*ev.impl);
    const uint64_t order =
        type == &typeid(FrameArrival)     ? static_cast<const FrameArrival*>(ev.impl)->GetTieKey()
        : type == &typeid(ControlArrival) ? static_cast<const ControlArrival*>(ev.impl)->GetTieKey()
                                          : std::numeric_limits<uint64_t>::max();
    m_heap.push_back({});
    SiftUp(m_heap.size() - 1, {ev.key.m_ts, order, ev.key.m_uid, ev.key.m_context, ev.impl});
}

bool
FabricScheduler::IsEmpty() const
{
    return m_heap.empty();
}

Scheduler::Event
FabricScheduler::PeekNext() const
{
    NS_ASSERT(!m_heap.empty());
    return ToEvent(m_heap.front());
}

Scheduler::Event
FabricScheduler::RemoveNext()
{
    NS_ASSERT(!m_heap.empty());
    const Event next = ToEvent(m_heap.front());
    RemoveAt(0);
    return next;
}

void
FabricScheduler::Remove(const Event& ev)
{
    // Simulator::Remove is rare (EventId::Cancel does not come here): a linear search.
    for (std::size_t i = 0; i < m_heap.size(); ++i)
    {
        if (m_heap[i].uid == ev.key.m_uid)
        {
            RemoveAt(i);
            return;
        }
    }
    NS_ABORT_MSG("FabricScheduler: removing an event that is not scheduled (uid "
                 << ev.key.m_uid << ")");
}

void
FabricScheduler::SiftUp(std::size_t i, Entry moving)
{
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / 2;
        if (!Before(moving, m_heap[parent]))
        {
            break;
        }
        m_heap[i] = m_heap[parent];
        i = parent;
    }
    m_heap[i] = moving;
}

void
FabricScheduler::RemoveAt(std::size_t i)
{
    // Bottom-up: move the hole down along the earlier child to a leaf, then sift the last
    // entry up from there.  The last entry usually belongs near the bottom, so this takes about
    // half the comparisons of sifting it down from the top.  Each level waits on the load of
    // the two children; the children's children are fetched one level ahead.
    const Entry last = m_heap.back();
    m_heap.pop_back();
    const std::size_t n = m_heap.size();
    if (i == n)
    {
        return;
    }
    Entry* heap = m_heap.data();
    std::size_t child = 2 * i + 1;
    while (child < n)
    {
        if (2 * child + 4 < n)
        {
            // The children of child and child + 1: 128 bytes, over up to three cache lines.
            __builtin_prefetch(heap + 2 * child + 1);
            __builtin_prefetch(heap + 2 * child + 2);
            __builtin_prefetch(heap + 2 * child + 4);
        }
        if (child + 1 < n && Before(heap[child + 1], heap[child]))
        {
            ++child;
        }
        heap[i] = heap[child];
        i = child;
        child = 2 * i + 1;
    }
    SiftUp(i, last);
}

} // namespace ns3
