#include "frame-arrival.h"

#include "fabric-net-device.h"

#include <new>

namespace ns3
{

namespace
{
/** Freed arrivals, each slot's first bytes holding the next free one. */
struct FreeSlot
{
    FreeSlot* next;
};

FreeSlot* g_freeArrivals = nullptr;
} // namespace

void*
FrameArrival::operator new(std::size_t size)
{
    static_assert(sizeof(FrameArrival) >= sizeof(FreeSlot));
    if (size != sizeof(FrameArrival) || !g_freeArrivals)
    {
        return ::operator new(size);
    }
    FreeSlot* slot = g_freeArrivals;
    g_freeArrivals = slot->next;
    return slot;
}

void
FrameArrival::operator delete(void* p)
{
    if (!p)
    {
        return;
    }
    auto* slot = static_cast<FreeSlot*>(p);
    slot->next = g_freeArrivals;
    g_freeArrivals = slot;
}

FrameArrival::FrameArrival(const Ptr<FabricNetDevice>& port,
                           const Ptr<Packet>& p,
                           const FrameInfo* info,
                           uint32_t epoch,
                           bool corrupted,
                           bool pipelined)
    : m_port(port),
      m_packet(p),
      m_tieKey(2 * port->GetPortKey() + (pipelined ? 1 : 0)),
      m_info(info ? *info : FrameInfo()),
      m_epoch(epoch),
      m_data(info != nullptr),
      m_corrupted(corrupted)
{
}

void
FrameArrival::Notify()
{
    m_port->Receive(m_packet, m_data ? &m_info : nullptr, m_epoch, m_corrupted);
}

} // namespace ns3
