#ifndef AI_FABRIC_RDMA_CONGESTION_CONTROL_H
#define AI_FABRIC_RDMA_CONGESTION_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Rate-based congestion control of one RDMA queue pair.
 *
 * The queue pair tells it what happens (frames sent, bytes acknowledged, congestion notified,
 * round-trip times measured) through the non-virtual entry points and asks it the rate to pace
 * at; a congestion control (none, DCQCN, TIMELY, ...) is a subclass in its own file pair that
 * fills the private Do* hooks, so adding one never touches the NIC.
 */
class RdmaCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();

    /** Start at \p lineRate, the rate of the queue pair's port. */
    void Attach(DataRate lineRate);
    /** The rate to pace at now (never above the line rate). */
    DataRate GetRate();
    /** \p bytes of frames were put on the wire. */
    void NotifySent(uint32_t bytes) { DoNotifySent(bytes); }
    /** \p bytes of payload were newly acknowledged. */
    void NotifyAcked(uint64_t bytes) { DoNotifyAcked(bytes); }
    /** The receiver reported congestion (a CNP). */
    void NotifyCongestion() { DoNotifyCongestion(); }
    /**
     * Bytes of new frames whose completion makes one round-trip sample (NotifyRtt): 0, the
     * default, for none.  The queue pair reads it once, when it is set up.
     */
    uint32_t GetRttSegmentBytes() const { return DoGetRttSegmentBytes(); }
    /**
     * A segment of GetRttSegmentBytes completed (TIMELY's completion event): \p rtt from the
     * hand-off of its last frame (or of the last frame posted) to the NIC to that frame's
     * acknowledgement, less the frame's serialization at line rate.  Frames sent before a
     * resend give none (Karn's rule).
     */
    void NotifyRtt(Time rtt) { DoNotifyRtt(rtt); }
    DataRate GetLineRate() const { return m_lineRate; }

  private:
    virtual void DoAttach() {}
    virtual DataRate DoGetRate() = 0;
    virtual void DoNotifySent(uint32_t) {}
    virtual void DoNotifyAcked(uint64_t) {}
    virtual void DoNotifyCongestion() {}
    virtual uint32_t DoGetRttSegmentBytes() const { return 0; }
    virtual void DoNotifyRtt(Time) {}

    DataRate m_lineRate;
};

} // namespace ns3

#endif
