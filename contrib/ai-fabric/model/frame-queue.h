#ifndef AI_FABRIC_FRAME_QUEUE_H
#define AI_FABRIC_FRAME_QUEUE_H

#include "roce-frame.h"

#include "ns3/assert.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A data frame waiting in a port's queue.
 */
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
 * class queues took 4.6 KiB before the port queued a frame, most of the memory of a large
 * fabric's ports.  This queue holds nothing until its first frame and grows by doubling.  It
 * keeps its largest block until the port is disposed of, since queues fill and drain again all
 * run long: a port keeps room for the most frames it ever queued in a class (a switch port's
 * is bounded by the switch's buffer; a host port's by what its senders queued at once).
 */
class FrameQueue
{
  public:
    /** Whether no frame waits. */
    bool IsEmpty() const
    {
        return m_size == 0;
    }

    /** Frames waiting. */
    uint32_t GetSize() const
    {
        return m_size;
    }

    /** The oldest frame (the queue must not be empty). */
    const QueuedFrame& Front() const
    {
        NS_ASSERT_MSG(m_size > 0, "FrameQueue::Front of an empty queue");
        return m_slots[m_head];
    }

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
        NS_ASSERT_MSG(m_size > 0, "FrameQueue::Pop of an empty queue");
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
    uint32_t m_size{0};               //!< frames waiting
};

} // namespace ns3

#endif
