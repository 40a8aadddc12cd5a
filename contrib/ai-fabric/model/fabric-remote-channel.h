#ifndef AI_FABRIC_FABRIC_REMOTE_CHANNEL_H
#define AI_FABRIC_FABRIC_REMOTE_CHANNEL_H

#include "fabric-channel.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A FabricChannel whose two ports are simulated by different MPI ranks.
 *
 * Each rank holds its half: its own port and a stand-in for the far one (which names the far
 * node, its interface index and forwarding latency).  A frame leaving the local port crosses to
 * the far rank through ns-3's MpiInterface, timed to arrive when it would on a FabricChannel
 * (serialization + propagation delay + the far end's forwarding latency), as ns-3's
 * PointToPointRemoteChannel does; frames of every kind (RoCEv2 data, ACK/NAK, CNP, PFC) cross
 * alike.  The propagation delay is the lookahead DistributedSimulatorImpl takes from it.  The
 * message lands a picosecond early and schedules the frame's FrameArrival, so that under
 * FabricScheduler a frame from another rank ties with local events as it would in one process.
 *
 * Link state: each rank changes its half of the link at the same instants (a link event or a
 * failure, scheduled alike in every rank), and a frame carries the link epoch it was sent in (a
 * packet tag), so a frame sent before the link went down is lost at the far end as on one
 * process.  Bit errors: the sending rank draws from its direction's stream (FabricChannel) and
 * the tag says whether the frame arrives corrupted.
 * Only built when ns-3 has its mpi module.
 */
class FabricRemoteChannel : public FabricChannel
{
  public:
    static TypeId GetTypeId();

    /** Attach a port; a port of this rank gets an MpiReceiver for the frames that cross. */
    void Attach(Ptr<FabricNetDevice> device) override;
    void Transmit(const Ptr<Packet>& control,
                  const FrameInfo* info,
                  const FabricNetDevice* sender,
                  Time txTime,
                  Time extraDelay) override;

  private:
    /** A frame from the far rank reaches \p port. */
    void Deliver(Ptr<FabricNetDevice> port, Ptr<Packet> p);
};

} // namespace ns3

#endif
