#ifndef AI_FABRIC_RDMA_QUEUE_PAIR_H
#define AI_FABRIC_RDMA_QUEUE_PAIR_H

#include "fabric-endpoint.h"
#include "message-queue-pair.h"
#include "rdma-congestion-control.h"
#include "roce-frame.h"
#include "send-rate-limiter.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <deque>
#include <utility>
#include <vector>

namespace ns3
{


/** Counters of one queue pair. */
struct RdmaQpCounters
{
    uint64_t framesSent{0};        //!< data frames put on the wire, retransmissions included
    uint64_t payloadSent{0};       //!< payload bytes of those frames
    uint64_t payloadRetransmitted{0}; //!< payload bytes sent again after a NAK or timeout
    uint64_t naksReceived{0};
    uint64_t timeouts{0};
    uint64_t retryExhausted{0};    //!< requester: 1 once the QP failed (IBA retry count exceeded)
    uint64_t acksSent{0};
    uint64_t naksSent{0};
    uint64_t cnpsSent{0};          //!< responder: congestion notifications for CE-marked frames
    uint64_t cnpsReceived{0};
    /** responder: payload bytes accepted, each frame's once (in order, or placed out of order
     * under selective repeat) */
    uint64_t payloadReceived{0};
    /** responder: payload of duplicate frames, and of out-of-order ones under go-back-N */
    uint64_t payloadDiscarded{0};
    /** responder: data frames that arrived trimmed (headers only; FabricSwitch Trimming) */
    uint64_t trimmedReceived{0};

    /** Add \p o's counts to these (totals over queue pairs). */
    RdmaQpCounters& operator+=(const RdmaQpCounters& o)
    {
        framesSent += o.framesSent;
        payloadSent += o.payloadSent;
        payloadRetransmitted += o.payloadRetransmitted;
        naksReceived += o.naksReceived;
        timeouts += o.timeouts;
        retryExhausted += o.retryExhausted;
        acksSent += o.acksSent;
        naksSent += o.naksSent;
        cnpsSent += o.cnpsSent;
        cnpsReceived += o.cnpsReceived;
        payloadReceived += o.payloadReceived;
        payloadDiscarded += o.payloadDiscarded;
        trimmedReceived += o.trimmedReceived;
        return *this;
    }
};

/**
 * \ingroup ai-fabric
 * \brief A reliable-connection queue pair (IBA RC): one end of a connection.
 *
 * Requester: messages posted with PostSend are cut into frames of the port's payload MTU,
 * numbered with consecutive PSNs, and sent when the port can take a frame (and at the
 * congestion control's rate when that is below line rate, and no faster than its send rate
 * limiter when one is set).  A cumulative ACK completes the
 * messages it covers, calling their callbacks; a NAK (PSN sequence error) or a retransmission
 * timeout goes back to the first unacknowledged PSN (go-back-N).
 * Responder: accepts frames in PSN order, ACKs every AckInterval frames and at each message's
 * last frame, NAKs the first frame past a gap once, re-ACKs duplicates, and answers frames
 * marked CE with a CNP, at most one per CnpInterval (DCQCN's notification point).
 * After RetryCount timeouts in a row without progress the requester gives up, as an IBA RC
 * QP does when its retry count is exceeded: it enters the error state, sends nothing more,
 * never completes the messages it holds, and calls its error callback once.
 *
 * With RetransmissionMode SelectiveRepeat (both ends must use it) the QP tolerates
 * reordering and resends only what was lost, as IRN (Mittal et al., SIGCOMM 2018) does: the
 * responder places frames within SelectiveRepeatWindow of the next expected one out of order
 * (each frame's payload once), completes messages in order, and answers an out-of-order frame
 * with a selective NAK (AethHeader::kNakSelective: the cumulative position and that frame's
 * PSN).  The requester keeps at most SelectiveRepeatWindow frames past its oldest
 * unacknowledged one, marks the frames selectively acknowledged, and deems a frame lost once a
 * frame ReorderThreshold or more PSNs after it was acknowledged; each lost frame is resent
 * once, before new frames.  A timeout resends every frame not yet acknowledged either way.
 *
 * A frame a switch trimmed (FabricSwitch's Trimming) arrives as its headers only.  Under
 * selective repeat the responder answers it with a trimmed NAK (AethHeader::kNakTrimmed: the
 * cumulative position and the trimmed frame's PSN), and the requester resends that frame at
 * once, before new frames, however often it was resent before; a trimmed NAK of the oldest
 * unacknowledged frame moves the retransmission timer's deadline (without resetting its
 * backoff, which only progress does).  Under go-back-N the responder discards a trimmed frame
 * unread (no CNP either), as a RoCE NIC discards a frame whose ICRC fails: to a transport that
 * does not read trimming, a trimmed frame is a loss like a drop.
 *
 * A congestion control that asks for per-ACK feedback (RdmaCongestionControl::GetFeedback)
 * hears of every ACK and NAK (NotifyAck): with kTelemetry the data frames carry an in-band
 * telemetry header that switches stamp and each ACK or NAK echoes the last data frame's
 * (HPCC; its responder sends no CNPs, which HPCC does not read); with kEcnEcho the responder echoes
 * CE marks in its ACKs' BECN bit instead of sending CNPs, acknowledging at once the frames before a
 * change of marking (DCTCP, RFC 8257 3.2).  A congestion control with a window (GetWindowBytes)
 * holds new frames while the frames in flight, counted at the payload MTU, fill it, and there are
 * AckInterval of them or more (a coalescing responder waits for that many before it acknowledges).
 *
 * Entropy chooses each data frame's UDP source port, the field ECMP hashes: Fixed keeps one
 * (UdpSourcePort), so flow-hash switches keep the QP on one path; Spray draws a new one per
 * frame, so they spread its frames over every path; Recycle reuses the ports of frames that
 * were acknowledged without a congestion mark and draws new ones otherwise (entropy recycling,
 * as REPS does for Ultra Ethernet's transport).  Under Spray and Recycle each ACK or NAK
 * leaves with the UDP source port of the data frame that triggered it, and under Recycle its
 * BECN bit echoes that frame's CE mark (as DCTCP's echo does); the responder sends CNPs as
 * without it (unless its congestion control asks for kEcnEcho or kTelemetry).  Both ends must
 * use the same Entropy; spraying reorders, so it wants SelectiveRepeat.
 */
class alignas(64) RdmaQueuePair : public MessageQueuePair, public PortWaiter
{
  public:
    /** How the requester recovers lost frames and the responder takes out-of-order ones. */
    enum RetransmissionMode
    {
        GO_BACK_N,        //!< IBA RC: in order only; a gap goes back to the first lost frame
        SELECTIVE_REPEAT, //!< out-of-order placement; only lost frames are resent
    };

    /** Where each data frame's UDP source port, its ECMP entropy, comes from. */
    enum EntropyMode
    {
        FIXED_ENTROPY,   //!< one per QP (UdpSourcePort): flow-hash ECMP keeps it on one path
        SPRAY_ENTROPY,   //!< a new pseudo-random one per frame
        RECYCLE_ENTROPY, //!< those acknowledged without a CE mark again, else new ones
    };

    static TypeId GetTypeId();
    RdmaQueuePair();

    /**
     * Wire this QP: \p localQpn on \p endpoint toward \p remoteQpn on \p remoteHost, paced
     * by \p cc, through the port routing picks for its UDP source port.
     */
    void Setup(Ptr<FabricEndpoint> endpoint, uint32_t localQpn, uint32_t remoteHost,
               uint32_t remoteQpn, Ptr<RdmaCongestionControl> cc);
    uint32_t GetLocalQpn() const { return m_localQpn; }
    /** PSN of this QP's first frame (its StartingPsn attribute). */
    uint32_t GetStartingPsn() const { return m_startingPsn; }
    /** The PSN the peer's first frame will carry; set at connection, before any traffic. */
    void SetExpectedPsn(uint32_t psn) { m_ePsn = psn; }
    uint32_t GetRemoteHost() const { return m_remoteHost; }

    /**
     * Queue a message of \p bytes (0 is allowed: one frame without payload, as an IBA
     * zero-length SEND); \p done is called when it is acknowledged.  Returns its id.
     */
    uint64_t PostSend(uint64_t bytes, CompletionCallback done = CompletionCallback()) override;
    /**
     * Send frames' payload no faster than \p limiter lets its queue pairs together (besides
     * the congestion control's pacing): the rate at which the sender produces data, as a
     * GPU's CTA does.  A frame leaves once its payload is produced, after what the limiter's
     * queue pairs produced before it (a retransmission is not produced again); null: no
     * limit.
     */
    void SetSendRateLimiter(Ptr<SendRateLimiter> limiter) override { m_limiter = limiter; }
    /** A frame for this QP arrived (data for the responder, ACK/NAK for the requester). */
    void Receive(const FrameInfo& info);

    const RdmaQpCounters& GetCounters() const { return m_counters; }
    /** The congestion control pacing this QP's sends (observe its rate, alpha, ...). */
    Ptr<RdmaCongestionControl> GetCongestionControl() const { return m_cc; }
    /** Messages posted and not yet acknowledged. */
    std::size_t GetOutstandingMessages() const { return m_messages.size(); }

  protected:
    void DoDispose() override;

  private:
    struct Message
    {
        uint64_t id;
        uint64_t bytes;
        uint64_t firstSeq; //!< sequence number of its first frame (PSN = seq mod 2^24)
        uint64_t frames;
        CompletionCallback done;
    };

    void SendNext();
    /** The port took a frame: SendNext. */
    void PortDequeued() override;
    /** The pacing gap after a frame has passed: send on. */
    void PaceDone();
    void SendWhenPortHasRoom();
    /** Put frame \p seq on the wire; returns its payload bytes. */
    uint32_t SendFrame(uint64_t seq);
    /** Reserve the next new frame's production at the send rate limiter, once. */
    void Produce();
    /** Payload bytes of frame \p seq. */
    uint32_t FramePayload(uint64_t seq) const;
    const Message& MessageOf(uint64_t seq) const;
    void ReceiveAck(const FrameInfo& info);
    void ReceiveData(const FrameInfo& info);
    /** An ACK or NAK of \p psnSeq; a selective NAK also reports \p sackSeq. */
    void SendAck(uint8_t syndrome, uint64_t psnSeq, uint64_t sackSeq = 0);
    void SendCnp();
    void ArmTimer();
    /** Queue the timeout event for m_timeoutAt. */
    void ScheduleTimeout();
    void Timeout();
    /** The 64-bit sequence number nearest \p reference whose low 24 bits are \p psn. */
    static uint64_t Unwrap(uint32_t psn, uint64_t reference);

    // Selective repeat
    /** Whether frame \p seq may be sent: within the window past m_sndUna (selective repeat). */
    bool InWindow(uint64_t seq) const
    {
        return m_mode == GO_BACK_N || seq < m_sndUna + m_window;
    }

    /** Data frames carry a telemetry header, and ACKs echo it (kTelemetry). */
    bool Telemetry() const { return m_feedback & RdmaCongestionControl::kTelemetry; }

    /** Whether the congestion control's window holds no further frame (frames in flight
     * counted at the payload MTU; never fewer than AckInterval). */
    bool CcWindowFull();

    /** The requester's state bits of frame \p seq in [m_sndUna, m_sndUna + window). */
    uint8_t& SentState(uint64_t seq);
    /** Drop resends no longer needed from the front of m_resend; whether one is due. */
    bool ResendDue();
    /** A selective NAK reported \p seq received: mark it and deem frames lost behind it. */
    void Sacked(uint64_t seq);
    /** The samples \p una acknowledged: the newest one's round trip to the congestion control. */
    void CompleteRttSamples(uint64_t una);
    /** Selective repeat: the responder reported frame \p seq trimmed; queue it to resend. */
    void Trimmed(uint64_t seq);
    /** Selective repeat: queue frame \p seq to resend, marking it resent and queued. */
    void QueueResend(uint64_t seq);
    /** Responder: the data frame \p seq arrived trimmed. */
    void ReceiveTrimmed(uint64_t seq);
    /** A new data frame's UDP source port: a recycled one, or a new draw. */
    uint16_t NextEntropy();
    /** A new pseudo-random UDP source port (xorshift32, RFC 6335's dynamic range). */
    uint16_t DrawEntropy();
    /** Recycle: take the \p i-th oldest kept port out of the ring (the oldest takes its slot). */
    uint16_t TakeKept(std::size_t i);
    /**
     * Spray, Recycle: choose the next data frame's UDP source port (once) and make the NIC port
     * it leaves by the one the QP waits on.  With several ports toward the peer (the planes of
     * a multi-plane NIC) the NIC serves them in turn: the frame takes the port that is up with
     * the fewest bytes queued (ties in turn), and a port that leads there (EntropyToward).
     */
    void ChooseEntropy();
    /**
     * A UDP source port with which the host's hash sends a frame out of port \p port of
     * \p hops: the oldest recycled one that does, else new draws until one does (at most
     * max(64, 16 x the ports of \p hops) draws; the last otherwise).
     */
    uint16_t EntropyToward(uint16_t port, const ForwardingTable::PortSet& hops);
    /** Recycle: an ACK echoed \p entropy without a CE mark; keep it for a later frame. */
    void Recycle(uint16_t entropy);
    /** Clear the state of the frames from \p from to m_sndUna, now acknowledged. */
    void ForgetAcked(uint64_t from);
    /** Responder: frame \p seq arrived ahead of m_ePsn; place it (selective repeat). */
    void PlaceOutOfOrder(uint64_t seq, const FrameInfo& info);
    /** Responder: accept the in-order frame of \p payload bytes; \p last ends a message. */
    void Accept(uint32_t payload, bool last);

    // What a frame touches comes first (the configuration and flags, then the requester's
    // sequence state, then the responder's): with thousands of queue pairs they outgrow the
    // caches, and each line read is a likely miss.
    Ptr<FabricEndpoint> m_endpoint;
    Ptr<FabricNetDevice> m_port;
    Ptr<RdmaCongestionControl> m_cc;
    uint32_t m_remoteHost{0};
    uint32_t m_remoteQpn{0};
    uint16_t m_udpSrcPort{};
    uint8_t m_priority{};
    uint8_t m_ackPriority{};
    uint32_t m_mtu{4096};
    RetransmissionMode m_mode{GO_BACK_N}; //!< RetransmissionMode
    EntropyMode m_entropyMode{FIXED_ENTROPY}; //!< Entropy
    uint32_t m_ackInterval{};
    /** Frame bytes of a data frame besides its payload (headers, ICRC, FCS, telemetry) */
    uint32_t m_frameOverhead{roce::kDataFrameOverheadBytes};
    uint32_t m_window{}; //!< SelectiveRepeatWindow
    bool m_waitingForPort{false};
    /**
     * A pace event is due (checked instead of m_paceEvent.IsRunning(): under FabricScheduler a
     * frame arriving at the event's picosecond runs first and ns-3 reports it not running).
     */
    bool m_pacing{false};
    bool m_produced{false};   //!< the limiter has been charged for frame m_highestSent
    bool m_timerArmed{false}; //!< frames are in flight: m_timeoutAt holds
    // Per-ACK feedback (RdmaCongestionControl::GetFeedback) and windows (GetWindowBytes)
    uint8_t m_feedback{0};    //!< the congestion control's GetFeedback bits
    bool m_windowed{false};   //!< the congestion control limits the bytes in flight
    bool m_windowFull{false}; //!< new frames wait for an ACK: the window is full
    bool m_echoing{false};    //!< responder: data frames came with telemetry; ACKs echo m_echo
    /** Responder: the CE mark its ACKs echo (kEcnEcho: of the frames they cover; Recycle:
     * of the last data frame) */
    bool m_ceState{false};
    bool m_nakOutstanding{false}; //!< responder: a NAK was sent for the current gap
    uint16_t m_echoEntropy{0};    //!< responder (Spray, Recycle): the port its ACKs leave with

    // Requester
    uint64_t m_endSeq{0};  //!< one past the last frame posted
    uint64_t m_sndNxt{0};  //!< next frame to send
    uint64_t m_sndUna{0};  //!< oldest unacknowledged frame
    uint64_t m_highestSent{0}; //!< one past the highest frame ever sent
    std::deque<Message> m_messages; //!< posted, not yet acknowledged, in order
    FabricEndpoint::Route m_route; //!< data, ACKs and CNPs: all to m_remoteHost, m_udpSrcPort
    Ptr<SendRateLimiter> m_limiter;
    uint64_t m_rttSegmentFrames{0}; //!< frames per sample (the congestion control's; 0: none)
    std::vector<uint64_t> m_resend; //!< frames deemed lost, to resend in this order
    std::size_t m_resendHead{0};    //!< the first of m_resend still to send
    TracedValue<uint64_t> m_framesInFlight{0}; //!< requester: m_sndNxt - m_sndUna

    // Responder
    uint64_t m_ePsn{0};           //!< next expected frame
    uint32_t m_msn{0};            //!< messages completed
    uint32_t m_unacked{0};        //!< frames accepted since the last ACK
    uint64_t m_rxMessageBytes{0}; //!< payload of the message being received so far
    /** Messages the frames being accepted ended (MSN, bytes), delivered after their ACK */
    std::vector<std::pair<uint32_t, uint64_t>> m_completed;
    /** Frames placed ahead of m_ePsn (selective repeat), by sequence number modulo the window:
     * kPlaced | (kPlacedLast if it ends a message) | its payload bytes (below 2^30: the
     * PayloadMtu is at most 16 MiB); 0 for an empty slot.  Allocated at the first one. */
    std::vector<uint32_t> m_placed;

    RdmaQpCounters m_counters;
    TracedCallback<uint64_t, uint64_t> m_completedTrace; //!< requester: message id, bytes
    TracedCallback<uint32_t, uint64_t> m_receivedTrace;  //!< responder: MSN, bytes of a message

    // The rest: set up once, or touched by few frames
    uint32_t m_localQpn{0};
    Time m_rto;        //!< the first timeout after progress
    Time m_rtoMax;     //!< the cap of the backed-off timeout
    Time m_currentRto; //!< the timeout now armed: m_rto doubled per timeout in a row
    uint32_t m_retryCount{};
    uint32_t m_retries{0}; //!< timeouts since the last progress
    Time m_cnpInterval;
    uint32_t m_startingPsn{};
    uint32_t m_entropyCacheSize{}; //!< EntropyCacheSize
    uint32_t m_reorderThreshold{}; //!< ReorderThreshold
    uint64_t m_nextMessageId{0};
    EventId m_paceEvent;
    Time m_readyAt;            //!< when frame m_highestSent's payload is written (m_produced)
    EventId m_timer;           //!< the one pending timeout event (it may fire before m_timeoutAt)
    Time m_timeoutAt;          //!< when the retransmission timer expires, if armed
    bool m_timerPending{false}; //!< m_timer is queued, for m_timerEventAt
    Time m_timerEventAt;

    /**
     * A round-trip sample in flight: new frame \p seq, the last of its segment, handed to the
     * NIC at \p sent less its serialization at line rate.
     */
    struct RttSample
    {
        uint64_t seq;
        Time sent;
    };

    InbandTelemetry m_echo; //!< responder: the telemetry of the last data frame received
    uint64_t m_nextRttSample{0};         //!< the next new frame to time
    std::vector<RttSample> m_rttSamples; //!< in flight from m_rttHead on
    std::size_t m_rttHead{0};
    // Selective repeat, requester: state bits (kSacked, kResent, kQueued) of each frame of the
    // window, indexed by sequence number modulo the window; allocated at the first selective NAK.
    std::vector<uint8_t> m_sentState;
    uint64_t m_lossScan{0};         //!< frames below it were judged lost or not
    uint64_t m_highestSacked{0};    //!< one past the highest frame selectively acknowledged
    // Entropy (Spray, Recycle), requester
    uint32_t m_entropyDraw{0};   //!< the draws' xorshift32 state (never 0)
    uint16_t m_nextEntropy{0};   //!< the next data frame's port, once chosen
    uint32_t m_portTurn{0};      //!< several ports toward the peer: where ties start
    bool m_entropyChosen{false}; //!< m_nextEntropy holds (chosen before the port is checked)
    /** Recycle: ports acknowledged without a mark and not yet reused, a ring of
     * EntropyCacheSize allocated at the first; the oldest is overwritten when it is full. */
    std::vector<uint16_t> m_entropyCache;
    std::size_t m_cacheHead{0};  //!< the oldest kept port
    std::size_t m_cacheCount{0}; //!< ports kept
    Time m_lastCnp;                //!< when the last CNP was sent
    bool m_cnpSent{false};
    TracedCallback<> m_failedTrace; //!< requester: retry count exceeded
};

} // namespace ns3

#endif
