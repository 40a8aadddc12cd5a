#ifndef AI_FABRIC_FRAME_ARRIVAL_H
#define AI_FABRIC_FRAME_ARRIVAL_H

#include "frame-ref.h"
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
 * process and in any split over MPI ranks.  A data frame's FrameInfo rides along, so the
 * receiving port does not parse its headers.
 */
class FrameArrival final : public RecycledEvent
{
  public:
    /**
     * \param port the receiving port
     * \param p the frame, moved in
     * \param info a data frame's info (copied); null for a MAC control frame
     * \param epoch the link epoch it was sent in
     * \param corrupted whether bit errors hit it
     * \param pipelined whether its arrival includes the receiver's forwarding latency
     */
    FrameArrival(const Ptr<FabricNetDevice>& port,
                 FrameRef p,
                 const FrameInfo* info,
                 uint32_t epoch,
                 bool corrupted,
                 bool pipelined);

    /** Lower first among the arrivals of one instant. */
    uint64_t GetTieKey() const { return m_tieKey; }

  private:
    void Notify() override;

    Ptr<FabricNetDevice> m_port;
    FrameRef m_packet; //!< moved on to the port when the event runs
    uint64_t m_tieKey;
    FrameInfo m_info;
    uint32_t m_epoch;
    bool m_data;
    bool m_corrupted;
};

} // namespace ns3

#endif
