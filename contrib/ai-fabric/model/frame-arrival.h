#ifndef AI_FABRIC_FRAME_ARRIVAL_H
#define AI_FABRIC_FRAME_ARRIVAL_H

#include "recycled-event.h"
#include "roce-frame.h"

#include "ns3/ptr.h"

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * \brief The event that hands a frame to the port at the far end of a link.
 *
 * It carries a tie key, by which FabricScheduler orders the frame arrivals of one instant:
 * by receiving port (its MAC address), and at one port a frame that skipped the forwarding
 * pipeline (a MAC control frame) before one that went through it.  The key depends only on
 * the fabric, never on when the event was scheduled, so that ties resolve alike in a single
 * process and in any split over MPI ranks.  A data frame is its FrameInfo (no packet), so the
 * receiving port parses no headers.
 */
class FrameArrival final : public RecycledEvent
{
  public:
    /**
     * \param port the receiving port (not held: a port lives as long as its node or, a remote
     *        stand-in, its channel, and an arrival runs only while the simulation does)
     * \param tieKey its order among the arrivals of one instant: FabricChannel::TieKey
     * \param control a MAC control frame; null for a data frame
     * \param info a data frame (copied); null for a MAC control frame
     * \param epoch the link epoch it was sent in
     * \param corrupted whether bit errors hit it
     */
    FrameArrival(FabricNetDevice* port,
                 uint64_t tieKey,
                 const Ptr<Packet>& control,
                 const FrameInfo* info,
                 uint32_t epoch,
                 bool corrupted);

    /** Lower first among the arrivals of one instant. */
    uint64_t GetTieKey() const { return m_tieKey; }

    /** The receiving port. */
    FabricNetDevice* GetPort() const { return m_port; }

    /** Ask the processor for this event's lines after its first (it spans three: 136 bytes in a
     * RecycledEvent slot aligned to 16): a hint, before the first line's load, so that they
     * come together. */
    void PrefetchRest() const
    {
        __builtin_prefetch(reinterpret_cast<const char*>(this) + 64);
        __builtin_prefetch(reinterpret_cast<const char*>(this) + sizeof(*this) - 1);
    }

  private:
    void Notify() override;

    FabricNetDevice* m_port;
    Ptr<Packet> m_control; //!< a MAC control frame (null: the data frame m_info)
    uint64_t m_tieKey;
    FrameInfo m_info;
    uint32_t m_epoch;
    bool m_data;
    bool m_corrupted;
};

// PrefetchRest asks for the lines of this + 64 and of the last byte: all of them while the event
// spans at most three lines from any 16-byte aligned start.
static_assert(sizeof(FrameArrival) <= 144, "FrameArrival::PrefetchRest covers three lines");

} // namespace ns3

#endif
