#include "fabric-scheduler.h"

#include "fabric-control-path.h"
#include "fabric-net-device.h"
#include "frame-arrival.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
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
                                          : kPlain;
    const Entry e{ev.key.m_ts, order, ev.key.m_uid, ev.key.m_context, ev.impl};
    if (e.ts > m_last)
    {
        // A simulator numbers events as it schedules them, so buckets fill in uid order; an
        // event that comes with a smaller uid (SetScheduler moving a queue over) ends that.
        m_uidOrdered = m_uidOrdered && e.uid >= m_lastFiledUid;
        m_lastFiledUid = e.uid;
        File(e, BucketOf(e.ts, m_last));
        return;
    }
    if (e.ts < m_floor)
    {
        m_early.push_back(e);
        std::push_heap(m_early.begin(), m_early.end(), After);
        return;
    }
    // The current instant stays sorted.  An event scheduled for now comes after those
    // scheduled before it (a larger uid), unless its tie key is smaller: an arrival (a frame or
    // a control notice).
    if (m_next == m_now.size() || !Before(e, m_now.back()))
    {
        m_now.push_back(e);
        return;
    }
    m_now.insert(std::upper_bound(m_now.begin() + m_next, m_now.end(), e, Before), e);
}

FabricScheduler::Block*
FabricScheduler::AddBlock(Bucket& bucket) const
{
    Block* block = m_free;
    if (block)
    {
        m_free = block->next;
    }
    else
    {
        m_blocks.push_back(std::make_unique<Block>());
        block = m_blocks.back().get();
    }
    block->next = nullptr;
    block->count = 0;
    (bucket.tail ? bucket.tail->next : bucket.head) = block;
    bucket.tail = block;
    return block;
}

bool
FabricScheduler::IsEmpty() const
{
    return m_next == m_now.size() && m_occupied == 0 && m_early.empty();
}

const FabricScheduler::Entry*
FabricScheduler::Front() const
{
    if (!m_early.empty())
    {
        return &m_early.front(); // before the current run, and so before every other
    }
    if (m_next == m_now.size() && m_occupied != 0)
    {
        // The earliest bucket becomes the current instant (its earliest time) and lower
        // buckets: its entries agree with m_last above bit b and have bit b set, and so does
        // its earliest time, so each of them differs from it below b.  Entries of higher
        // buckets differ from the new m_last where they differed from the old.
        const unsigned b = static_cast<unsigned>(__builtin_ctzll(m_occupied));
        const Bucket bucket = m_later[b];
        m_later[b] = Bucket();
        m_occupied &= ~(uint64_t{1} << b);
        if (b <= kRunLevel && bucket.head == bucket.tail)
        {
            // At most a block of events within 4 ns (a ring out of step: one event per instant,
            // picoseconds apart): sorted whole into a run of instants, rather than split once
            // per event.  Later events are filed against the run's last time, which agrees with
            // m_last above bit b as its earliest would; an insert within the run joins it.
            Block* block = bucket.head;
            m_now.assign(block->entries, block->entries + block->count);
            m_next = 0;
            std::sort(m_now.begin(), m_now.end(), Before);
            m_floor = m_now.front().ts;
            m_last = m_now.back().ts;
            block->next = m_free;
            m_free = block;
            if (m_occupied == 0)
            {
                m_uidOrdered = true;
            }
            return &m_now[0];
        }
        uint64_t first = bucket.head->entries[0].ts;
        for (const Block* block = bucket.head; block; block = block->next)
        {
            for (uint32_t i = 0; i < block->count; ++i)
            {
                first = std::min(first, block->entries[i].ts);
            }
        }
        m_last = first;
        m_floor = first;
        m_now.clear();
        m_next = 0;
        m_plain.clear();
        for (Block* block = bucket.head; block;)
        {
            for (uint32_t i = 0; i < block->count; ++i)
            {
                const Entry& e = block->entries[i];
                if (e.ts != first)
                {
                    File(e, BucketOf(e.ts, first));
                }
                else
                {
                    (e.order == kPlain ? m_plain : m_now).push_back(e);
                }
            }
            Block* next = block->next;
            block->next = m_free;
            m_free = block;
            block = next;
        }
        // Hundreds of events share an instant when a large collective runs in step.  While
        // inserts come in uid order (m_uidOrdered), the bucket kept them in uid order too (a
        // split files a bucket's entries, in order, into lower buckets that are all empty), so
        // only the arrivals are sorted, by tie key, and the other events follow as they came.
        if (m_uidOrdered)
        {
            std::sort(m_now.begin(), m_now.end(), [](const Entry& a, const Entry& b) {
                return a.order != b.order ? a.order < b.order : a.uid < b.uid;
            });
            m_now.insert(m_now.end(), m_plain.begin(), m_plain.end());
        }
        else
        {
            m_now.insert(m_now.end(), m_plain.begin(), m_plain.end());
            std::sort(m_now.begin(), m_now.end(), Before);
        }
        if (m_occupied == 0)
        {
            m_uidOrdered = true; // the buckets are empty
        }
    }
    return m_next < m_now.size() ? &m_now[m_next] : nullptr;
}

Scheduler::Event
FabricScheduler::PeekNext() const
{
    const Entry* next = Front();
    NS_ASSERT(next);
    return ToEvent(*next);
}

Scheduler::Event
FabricScheduler::RemoveNext()
{
    const Entry* front = Front();
    NS_ASSERT(front);
    const Event next = ToEvent(*front);
    if (!m_early.empty()) // Front took it from there
    {
        std::pop_heap(m_early.begin(), m_early.end(), After);
        m_early.pop_back();
    }
    else
    {
        ++m_next;
    }
    return next;
}

void
FabricScheduler::Prefetch() const
{
    if (!m_early.empty() || m_next >= m_now.size())
    {
        return;
    }
    const Entry& next = m_now[m_next];
    if (m_next + 1 < m_now.size())
    {
        __builtin_prefetch(m_now[m_next + 1].impl);
    }
    if (next.order < ControlArrival::kTieKeyBase) // a frame arrival
    {
        const auto* arrival = static_cast<const FrameArrival*>(next.impl);
        arrival->PrefetchRest();
        arrival->GetPort()->PrefetchReceive();
    }
}

bool
FabricScheduler::RemoveEarly(uint32_t uid)
{
    for (std::size_t i = 0; i < m_early.size(); ++i)
    {
        if (m_early[i].uid == uid)
        {
            m_early[i] = m_early.back();
            m_early.pop_back();
            std::make_heap(m_early.begin(), m_early.end(), After);
            return true;
        }
    }
    return false;
}

void
FabricScheduler::Remove(const Event& ev)
{
    // Simulator::Remove is rare (EventId::Cancel does not come here): a linear search.
    const uint32_t uid = ev.key.m_uid;
    for (std::size_t i = m_next; i < m_now.size(); ++i)
    {
        if (m_now[i].uid == uid)
        {
            m_now.erase(m_now.begin() + i);
            return;
        }
    }
    if (RemoveEarly(uid))
    {
        return;
    }
    for (unsigned b = 0; b < m_later.size(); ++b)
    {
        Bucket& bucket = m_later[b];
        for (Block* block = bucket.head; block; block = block->next)
        {
            for (uint32_t i = 0; i < block->count; ++i)
            {
                if (block->entries[i].uid != uid)
                {
                    continue;
                }
                // The entries after it move up one, to keep the bucket in uid order (every
                // block but the last is full); an emptied last block is freed.
                for (Block* from = block; from; from = from->next)
                {
                    for (uint32_t k = i + 1; k < from->count; ++k)
                    {
                        from->entries[k - 1] = from->entries[k];
                    }
                    if (from->next)
                    {
                        from->entries[from->count - 1] = from->next->entries[0];
                    }
                    i = 0;
                }
                if (--bucket.tail->count == 0)
                {
                    Block* before = nullptr;
                    for (Block* p = bucket.head; p != bucket.tail; p = p->next)
                    {
                        before = p;
                    }
                    bucket.tail->next = m_free;
                    m_free = bucket.tail;
                    bucket.tail = before;
                    (before ? before->next : bucket.head) = nullptr;
                    if (!before)
                    {
                        m_occupied &= ~(uint64_t{1} << b);
                    }
                }
                return;
            }
        }
    }
    NS_ABORT_MSG("FabricScheduler: removing an event that is not scheduled (uid " << uid << ")");
}

} // namespace ns3
