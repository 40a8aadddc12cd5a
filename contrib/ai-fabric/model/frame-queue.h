#ifndef AI_FABRIC_FRAME_QUEUE_H
#define AI_FABRIC_FRAME_QUEUE_H

#include "roce-frame.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** A data frame waiting in a port's queue. */
struct QueuedFrame
{
    FrameInfo info;       //!< the frame: travels to the next port
    uint16_t ingressPort; //!< the port it entered the switch by (its owner's FrameDequeued)
};

/**
 * \ingroup ai-fabric
 * \brief A port's first-in first-out queue of the data frames of one traffic class, in one
 * array used as a ring.
 *
 * A std::deque allocates a 64-byte map and a 512-byte block as it is made: a port's eight
 * class queues took 4.6 KiB before it ever queued a frame, most of a large fabric's ports
 * memory.  This queue holds nothing until its first frame, grows by doubling to the most
 * frames it has held, and keeps that block (queues fill and drain all run long).
 */
class FrameQueue
{
  public:
    bool IsEmpty() const { return m_size == 0; }
    uint32_t GetSize() const { return m_size; }
    /** The oldest frame (the queue must not be empty). */
    const QueuedFrame& Front() const { return m_slots[m_head]; }

    /** Append the frame \p info that entered by \p ingressPort. */
    void Push(const FrameInfo& info, uint16_t ingressPort)
    {
        if (m_size == m_slots.size())
        {
            Grow();
        }
        QueuedFrame& slot = m_slots[(m_head + m_size) & (m_slots.size() - 1)];
        slot.info = info;
        slot.ingressPort = ingressPort;
        ++m_size;
    }

    /** Remove the oldest frame (the queue must not be empty). */
    void Pop()
    {
        m_head = (m_head + 1) & (m_slots.size() - 1);
        --m_size;
    }

    /** Remove every frame and release the block. */
    void Clear();

  private:
    /** Double the ring (4 slots at first), the frames in order from slot 0. */
    void Grow();

    std::vector<QueuedFrame> m_slots; //!< empty, or a power of two in size
    uint32_t m_head{0};               //!< the oldest frame's slot
    uint32_t m_size{0};
};

} // namespace ns3

#endif
