#ifndef AI_FABRIC_FABRIC_NET_DEVICE_H
#define AI_FABRIC_FABRIC_NET_DEVICE_H

#include "frame-queue.h"
#include "roce-frame.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class FabricChannel;

/** Why a frame was dropped: every drop in the fabric carries one. */
enum class DropReason : uint8_t
{
    LinkDown,         //!< the link was down (in flight, queued, or the chosen egress)
    NoRoute,          //!< no next hop toward the destination
    BufferFull,       //!< a lossy class exceeded its shared-buffer threshold
    HeadroomOverflow, //!< a lossless class overflowed its PFC headroom (mis-sized headroom)
    FcsError,         //!< corrupted on the link (bit errors): the receiver's CRC check failed
    kCount
};
/** The reason's name, as written in results files. */
const char* DropReasonName(DropReason r);

/** Plain counters of one port, read by the stats helper at the end of a run. */
struct FabricPortCounters
{
    uint64_t rxFrames{0};  //!< frames received
    uint64_t rxBytes{0};   //!< frame bytes received
    uint64_t txFrames{0};  //!< frames sent (data and control)
    uint64_t txBytes{0};   //!< frame bytes sent (header to FCS)
    Time busyTime;         //!< time the transmitter spent sending (wire bytes / rate)
    uint64_t ecnMarked{0}; //!< data frames marked CE at this egress
    uint64_t pfcPauseSent{0};     //!< PFC frames with a non-zero pause time sent
    uint64_t pfcResumeSent{0};    //!< PFC frames with a zero pause time (XON) sent
    uint64_t pfcPauseReceived{0}; //!< PFC pause frames received
    std::array<uint64_t, static_cast<std::size_t>(DropReason::kCount)> dropFrames{};
    std::array<uint64_t, static_cast<std::size_t>(DropReason::kCount)> dropBytes{};
    uint64_t trimmedFrames{0}; //!< data frames cut to their headers at this egress (not drops)
};

class FabricNetDevice;
class PortCompletion;

/**
 * \ingroup ai-fabric
 * \brief What a port hands its data frames to: the switch or host endpoint that owns it.
 *
 * Called for every frame at every hop, so a direct virtual call rather than an ns-3 Callback
 * (whose bound arguments add layers of std::function).
 */
class FabricPortOwner
{
  public:
    virtual ~FabricPortOwner() = default;
    /** The data frame \p info arrived at \p port (the owner takes it on or drops it). */
    virtual void ReceiveFrame(FabricNetDevice* port, const FrameInfo& info) = 0;
    /**
     * A data frame of class \p priority and \p bytes (header to FCS) that entered through
     * \p ingress left port \p egress (an ifIndex) for the wire, or was dropped from its queue
     * when the link went down: its buffer is free.
     */
    virtual void FrameDequeued(uint16_t egress,
                               uint16_t ingress,
                               uint8_t priority,
                               uint32_t bytes) = 0;
};

/**
 * \ingroup ai-fabric
 * \brief One full-duplex Ethernet port of a fabric switch or NIC.
 *
 * Egress: a FIFO per traffic class (802.1Q PCP 0..7) and a control queue for PFC frames that
 * goes first; strict priority (7 highest) or deficit weighted round robin between classes;
 * RED-style ECN marking, as a frame leaves, on the class queue it leaves behind (Kmin, Kmax,
 * Pmax, as in DCQCN);
 * classes paused by received 802.1Qbb frames are not served until their pause time ends.
 * A frame's time on the wire counts its preamble, SFD and inter-frame gap.
 *
 * Ingress: a data frame arrives with the FrameInfo built when it was made (no hop parses its
 * headers) and is handed to the port's owner (a FabricSwitch or FabricEndpoint); PFC frames
 * are consumed here.  Buffer accounting and the decision to send PFC belong to the switch's MMU,
 * which calls AssertPause().
 */
class alignas(64) FabricNetDevice : public NetDevice
{
  public:
    /** How classes share the transmitter. */
    enum Scheduler
    {
        STRICT_PRIORITY, //!< highest non-empty, unpaused PCP first
        DWRR,           //!< deficit round robin with an equal quantum per class
    };
    static constexpr uint8_t kClasses = 8; //!< 802.1Q priority code points

    static TypeId GetTypeId();
    FabricNetDevice();

    /** Connect to \p channel (which must take this port as one of its two ends). */
    void Attach(Ptr<FabricChannel> channel);
    Ptr<FabricChannel> GetFabricChannel() const;

    /**
     * Queue a data frame for transmission in class \p info.priority (if ECN-capable it may be
     * marked CE by the RED ramp when it leaves).  \p ingressPort is passed to the owner's
     * FrameDequeued.  A port whose link is down drops the frame (LinkDown) and returns false.
     * The frame is its FrameInfo: no packet travels with it (see MakePacket).
     */
    bool Enqueue(const FrameInfo& info, uint16_t ingressPort);
    /**
     * Ask the peer to stop (true) or resume (false) sending class \p priority: sends a PFC
     * frame ahead of all data, and while asserted re-sends it every half pause time.
     */
    void AssertPause(uint8_t priority, bool pause);
    /** Which way a data frame crosses this port's link: the MACs its packet carries. */
    enum class Side : uint8_t
    {
        Out, //!< leaving through this port: from this port's MAC to the peer's
        In,  //!< arriving at this port: from the peer's MAC to this port's
    };
    /**
     * Count a drop that the owner decided for the data frame \p info, met on \p side of this
     * port (Drop trace sinks get its packet, MakePacket).
     */
    void RecordDrop(const FrameInfo& info, Side side, DropReason reason);
    /**
     * Count the data frame \p info, which the owner trimmed to its headers instead of dropping
     * it at this egress (Trim trace sinks get the packet of the frame as it came, MakePacket).
     */
    void RecordTrim(const FrameInfo& info);
    /**
     * The ns-3 packet of the data frame \p info as it crosses this port's link on \p side:
     * real header bytes (roce::MakeDataFrame) with the link's MACs, as a routed fabric rewrites
     * them at every hop.  Frames travel without one; a port makes one only for a trace sink
     * (Tx, Rx, Drop, EcnMark), PCAP, or a rank boundary, each a new packet.
     */
    Ptr<Packet> MakePacket(const FrameInfo& info, Side side) const;

    /** The switch or endpoint that receives this port's data frames (it outlives them). */
    void SetOwner(FabricPortOwner* owner) { m_owner = owner; }
    /**
     * Stamp an InbandTelemetry record on every data frame that carries a telemetry header as
     * it leaves (a switch port with FabricSwitch's Telemetry); the link's rate must then be
     * one InbandTelemetry::RateCodes names, when such a frame leaves.
     */
    void SetTelemetryStamping(bool stamp) { m_stampTelemetry = stamp; }
    /** Delay between a data frame's last bit arriving here and it reaching the egress queue. */
    void SetForwardingLatency(Time t);
    Time GetForwardingLatency() const { return m_forwardingLatency; }
    /**
     * The port's MAC address as a number: ports take the frames that arrive at one instant in
     * this order (see FabricScheduler).
     */
    uint64_t GetPortKey() const { return m_portKey; }

    /** Ask the processor for the lines a data frame's arrival reads (Receive), ahead of it. */
    void PrefetchReceive() const
    {
        __builtin_prefetch(&m_linkEpoch);
        __builtin_prefetch(&m_counters.rxBytes);
    }

    /** The port's MAC address, without GetAddress's conversion to an Address. */
    const Mac48Address& GetMacAddress() const { return m_address; }
    /** Payload MTU of the data frames this port's endpoint builds (bytes). */
    uint32_t GetPayloadMtu() const { return m_payloadMtu; }
    /** Bytes queued in class \p priority. */
    uint64_t GetQueueBytes(uint8_t priority) const { return m_queueBytes[priority]; }
    /** Whether class \p priority is paused by the peer now. */
    bool IsPaused(uint8_t priority) const;
    /**
     * The time, in quanta of 512 bit times, this port may still start frames of a class
     * after a PFC XOFF for it arrived: PfcResponseQuanta, or if that is 0 IEEE 802.3's
     * largest allowed for the line rate (Annex 31B.3.7): 67 quanta at 10 Gb/s, 80 at 25, 118 at
     * 40, 147 at 50, 394 at 100, 453 at 200, 905 at 400 Gb/s and above.
     */
    uint32_t GetPfcResponseQuanta() const;
    /** GetPfcResponseQuanta in bytes: what this port may still send after an XOFF. */
    uint64_t GetPfcResponseBytes() const;
    /** Total time classes were paused (summed over classes, ongoing pauses up to now). */
    Time GetPausedTime() const;
    const FabricPortCounters& GetCounters() const { return m_counters; }
    /** Time a frame of \p frameBytes (header to FCS) takes on this port's wire. */
    Time TransmissionTime(uint32_t frameBytes) const;
    /** Assign a stream to the ECN marking random variable; returns streams used (1). */
    int64_t AssignStreams(int64_t stream);

    // Called by FabricChannel.
    /**
     * A frame sent in link epoch \p epoch arrives: the data frame \p info, or (\p info null)
     * the MAC control frame \p control (null for a data frame); \p corrupted if bit errors hit it.
     */
    void Receive(const Ptr<Packet>& control, const FrameInfo* info, uint32_t epoch, bool corrupted);
    void NotifyLinkState(bool up);
    void NotifyRateChanged();

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    /** The id of this port's node (the simulator context of its events), without a lookup. */
    uint32_t GetNodeId() const { return m_nodeId; }
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    friend class PortCompletion; //!< the completion event calls TransmitComplete

    void Kick();
    /** Start the next frame, the port being idle at \p now (the simulator's time). */
    void TransmitNext(Time now);
    /**
     * Send the data frame \p info of class \p c and \p size bytes, out of its queue, which
     * holds \p queueBytes behind it, at \p now: ECN marking, telemetry, the wire, then the
     * owner's FrameDequeued with \p ingressPort.
     */
    void Depart(FrameInfo& info,
                uint8_t c,
                uint16_t ingressPort,
                uint32_t size,
                uint64_t queueBytes,
                Time now);
    /** Stamp this port's telemetry record on \p info, of \p size bytes, leaving at \p now. */
    void StampTelemetry(FrameInfo& info, uint32_t size, Time now) const;
    /**
     * Put the data frame \p info, or (\p info null) the MAC control frame \p control, on the
     * wire at \p now; it reaches the peer's queues \p peerLatency after its last bit.
     */
    void StartTransmission(const Ptr<Packet>& control,
                           const FrameInfo* info,
                           Time peerLatency,
                           Time now);
    void TransmitComplete();
    /** Schedule this port's transmit completion (a PortCompletion) \p delay from now. */
    void ScheduleCompletion(Time delay);
    int SelectClass();
    int SelectDwrr();
    bool Eligible(uint8_t c) const;
    bool ShouldMarkEcn(uint64_t queueBytes);
    void RecordDrop(Ptr<const Packet> p, DropReason reason); // a MAC control frame's
    void ReceivePfc(Ptr<Packet> p);
    void SendPfcFrame(uint8_t priority, uint16_t quanta);
    void RefreshPause(uint8_t priority);
    Time QuantaToTime(uint32_t quanta) const;
    void Resume(uint8_t priority);
    /** The response time after an XOFF has passed: class \p priority stops (if still due). */
    void StartPause(uint8_t priority);
    /** The pause time of the last XOFF may have run out: resume if it has. */
    void PauseExpired(uint8_t priority);
    void Flush();

    // What a data frame touches at every hop comes first: at thousands of ports the ports
    // outgrow the caches, and each line read is a likely miss.  The port is aligned to a cache
    // line (64 bytes).  A frame leaving an idle port reads the first five lines; a frame
    // arriving, the fourth alone (m_owner to the received counters).  Queued frames read more.
    Ptr<FabricChannel> m_channel;
    Time m_txEnd;                 //!< when the frame on the wire ends (the port is busy before)
    uint64_t m_stepsPerByte{0};   //!< 8e12 / m_bitRate ps in time steps when exact, else 0
    uint64_t m_bitRate{0};        //!< cached channel rate, bit/s
    Time m_peerForwardingLatency; //!< the far end's, added to a data frame's arrival
    uint64_t m_queuedFrames{0};   //!< data frames waiting in all classes
    uint32_t m_nodeId{0};         //!< m_node's id: the context of events for this port
    uint32_t m_ifIndex{0};
    bool m_linkUp{false};
    bool m_completionPending{false}; //!< a TransmitComplete event is scheduled
    uint8_t m_backlog{0};            //!< bit c: class c has data frames queued
    uint8_t m_paused{0};             //!< bit c: class c is paused by the peer
    bool m_ecnEnabled{};
    bool m_stampTelemetry{false}; //!< SetTelemetryStamping
    Scheduler m_scheduler{};
    std::vector<Ptr<Packet>> m_controlQueue; //!< PFC frames to send first (rarely more than one)
    TracedCallback<Ptr<const Packet>> m_txTrace;                   //!< frame starts on the wire
    TracedCallback<uint8_t, uint64_t, uint64_t> m_queueBytesTrace; //!< class, old and new bytes
    uint64_t m_kmin{0}; //!< Kmin scaled to this port's rate, bytes
    uint64_t m_kmax{0}; //!< Kmax scaled to this port's rate, bytes
    FabricPortOwner* m_owner{nullptr};
    uint32_t m_linkEpoch{0}; //!< the channel's epoch: frames sent in an earlier one are lost
    TracedCallback<Ptr<const Packet>> m_rxTrace; //!< frame received from the wire
    FabricPortCounters m_counters;               //!< received first, then sent
    std::array<uint64_t, kClasses> m_queueBytes{};
    std::array<FrameQueue, kClasses> m_queues;
    double m_pmax{};
    Ptr<UniformRandomVariable> m_uniform;

    Ptr<Node> m_node;
    Mac48Address m_address;
    uint64_t m_portKey{0}; //!< m_address as a number
    uint32_t m_payloadMtu{};
    Time m_forwardingLatency;
    uint8_t m_rateCode{0}; //!< InbandTelemetry::RateCode of the link's rate

    uint32_t m_dwrrQuantum{};
    std::array<int64_t, kClasses> m_deficit{};
    uint8_t m_dwrrCurrent{0};
    bool m_dwrrVisitStarted{false};

    QueueSize m_kminPer25G;
    QueueSize m_kmaxPer25G;

    std::array<Time, kClasses> m_pauseStart{};
    std::array<EventId, kClasses> m_resumeEvents;
    std::array<EventId, kClasses> m_pauseEvents; //!< an XOFF taking effect after the response
    // What the PFC events check when they run, rather than trusting EventId::Cancel: under
    // FabricScheduler a frame arriving at the same picosecond runs before an event scheduled
    // earlier, and ns-3 then judges that event expired, so cancelling it does nothing.
    std::array<bool, kClasses> m_pausePending{}; //!< an XOFF's StartPause is due
    std::array<Time, kClasses> m_pauseUntil{};   //!< when the last XOFF's pause runs out
    std::array<Time, kClasses> m_refreshAt{};    //!< when the current XOFF refresh is due
    Time m_pausedTotal;
    uint16_t m_pauseQuanta{};
    uint16_t m_responseQuanta{}; //!< PfcResponseQuanta (0: 802.3's for the rate)
    std::array<bool, kClasses> m_asserting{};
    std::array<EventId, kClasses> m_refreshEvents;

    TracedCallback<> m_linkChangeCallbacks;
    TracedCallback<Ptr<const Packet>, DropReason> m_dropTrace; //!< frame dropped, with reason
    TracedCallback<Ptr<const Packet>> m_trimTrace;             //!< data frame trimmed (as it came)
    TracedCallback<Ptr<const Packet>> m_ecnMarkTrace;          //!< frame marked CE
    TracedCallback<uint8_t, uint16_t> m_pfcRxTrace; //!< PFC received: priority, quanta
    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace; //!< PFC sent: priority, quanta
    TracedCallback<uint8_t, bool> m_pausedTrace; //!< class, paused by the peer or not
};

} // namespace ns3

#endif
