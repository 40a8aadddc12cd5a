#include "frame-queue.h"

namespace ns3
{

void
FrameQueue::Grow()
{
    std::vector<QueuedFrame> slots(m_slots.empty() ? 4 : 2 * m_slots.size());
    for (uint32_t i = 0; i < m_size; ++i)
    {
        slots[i] = m_slots[(m_head + i) & (m_slots.size() - 1)];
    }
    m_slots.swap(slots);
    m_head = 0;
}

void
FrameQueue::Clear()
{
    std::vector<QueuedFrame>().swap(m_slots);
    m_head = 0;
    m_size = 0;
}

} // namespace ns3
