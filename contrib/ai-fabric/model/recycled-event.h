#ifndef AI_FABRIC_RECYCLED_EVENT_H
#define AI_FABRIC_RECYCLED_EVENT_H

#include "ns3/event-impl.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An event whose memory is recycled rather than returned to the allocator.
 *
 * The fabric's per-frame events (a frame's arrival at the next port, a port's transmit
 * completion) are the most frequent allocations of a run: a subclass's objects are kept, once
 * freed, on a free list of their size and reused by the next one of that size.  One process, one
 * thread, as ns-3's simulators run; the lists keep at most the largest number of such events
 * ever pending at once.
 */
class RecycledEvent : public EventImpl
{
  public:
    /** Memory for an object of \p size bytes: a recycled one of that size, if any. */
    static void* operator new(std::size_t size);
    /** Keep \p p (an object of \p size bytes) for the next one of its size. */
    static void operator delete(void* p, std::size_t size);
    /** Recycled events allocated and not yet freed (pending or leaked): a leak check. */
    static uint64_t GetLive();
};

} // namespace ns3

#endif
