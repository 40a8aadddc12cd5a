#ifndef AI_FABRIC_RDMA_CONGESTION_CONTROL_H
#define AI_FABRIC_RDMA_CONGESTION_CONTROL_H

#include "inband-telemetry.h"

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
 * round-trip times measured, acknowledgements' feedback) through the non-virtual entry points and asks it the rate to pace
 * at; a congestion control (none, DCQCN, TIMELY, ...) is a subclass in its own file pair that
 * fills the private Do* hooks, so adding one never touches the NIC.
 */
class RdmaCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * The fabric's largest base round trip (FabricNetwork::GetLargestBaseRtt; RdmaNic passes
     * it on, set by RdmaHelper), for a congestion control that needs one (HPCC's T); set it
     * before Attach.  Zero: unknown.
     */
    void SetFabricRtt(Time rtt) { m_fabricRtt = rtt; }
    Time GetFabricRtt() const { return m_fabricRtt; }
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
    /** What the congestion control reads from each acknowledgement (GetFeedback bits). */
    enum Feedback : uint8_t
    {
        kTelemetry = 1, //!< data frames carry a telemetry header; ACKs echo it (HPCC)
        /** the responder echoes CE marks in its ACKs (the BECN bit; RdmaQueuePair's Entropy
         * Recycle echoes them too) and sends no CNPs (DCTCP) */
        kEcnEcho = 2,
    };
    /**
     * The Feedback bits this congestion control wants: 0, the default, for none.  With any,
     * the queue pair calls NotifyAck for every ACK and NAK.  The queue pair reads it once,
     * when it is set up; its responder echoes CE marks when its own congestion control asks
     * (both ends of a connection run the NIC's kind).
     */
    uint8_t GetFeedback() const { return DoGetFeedback(); }
    /** What one acknowledgement said (NotifyAck).  Sequence numbers count frames, unwrapped. */
    struct AckFeedback
    {
        uint64_t ackedSeq{0};   //!< every frame before it is acknowledged
        uint64_t newlyAcked{0}; //!< frames this acknowledgement newly covered cumulatively
        uint64_t nextSeq{0};    //!< the queue pair's next new frame
        bool ecnEcho{false};    //!< the responder saw CE (kEcnEcho; the ACK's BTH BECN bit)
        const InbandTelemetry* telemetry{nullptr}; //!< the echoed telemetry (kTelemetry), or null
    };
    /** An ACK or NAK arrived (only when GetFeedback is nonzero). */
    void NotifyAck(const AckFeedback& ack) { DoNotifyAck(ack); }
    /**
     * The most payload bytes in flight (sent, not acknowledged) the queue pair may have now,
     * besides pacing: 0 for no limit.  A queue pair may always have AckInterval frames in
     * flight (a coalescing responder waits for that many).  Read before each new frame when it
     * was nonzero at set-up.
     */
    uint64_t GetWindowBytes() { return DoGetWindowBytes(); }
    DataRate GetLineRate() const { return m_lineRate; }

  protected:
    /** \p configured, or if it is zero the fabric's round trip (SetFabricRtt); aborts naming
     * \p who if both are zero. */
    Time RoundTripOr(Time configured, const char* who) const;
    /** The bytes \p bitRate moves in \p t, rounded up, at least 1: a window of rate x time. */
    static uint64_t WindowBytes(double bitRate, Time t);

  private:
    virtual void DoAttach() {}
    virtual DataRate DoGetRate() = 0;
    virtual void DoNotifySent(uint32_t) {}
    virtual void DoNotifyAcked(uint64_t) {}
    virtual void DoNotifyCongestion() {}
    virtual uint32_t DoGetRttSegmentBytes() const { return 0; }
    virtual void DoNotifyRtt(Time) {}
    virtual uint8_t DoGetFeedback() const { return 0; }
    virtual void DoNotifyAck(const AckFeedback&) {}
    virtual uint64_t DoGetWindowBytes() { return 0; }

    DataRate m_lineRate;
    Time m_fabricRtt;
};

} // namespace ns3

#endif
