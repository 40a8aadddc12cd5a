#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-simulator-impl.h"
#include "pfc-pause-header.h"
#include "recycled-event.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

/** The end of a port's transmission, when frames wait: the port starts its next one. */
class PortCompletion final : public RecycledEvent
{
  public:
    explicit PortCompletion(FabricNetDevice* port)
        : m_port(port)
    {
    }

  private:
    void Notify() override { m_port->TransmitComplete(); }

    FabricNetDevice* m_port; //!< as ns-3's MakeEvent holds an object: not counted
};

const char*
DropReasonName(DropReason r)
{
    switch (r)
    {
    case DropReason::LinkDown:
        return "link_down";
    case DropReason::NoRoute:
        return "no_route";
    case DropReason::BufferFull:
        return "buffer_full";
    case DropReason::HeadroomOverflow:
        return "headroom_overflow";
    case DropReason::FcsError:
        return "fcs_error";
    case DropReason::kCount:
        break;
    }
    return "unknown";
}

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricNetDevice>()
            .AddAttribute("PayloadMtu",
                          "Transport payload bytes per data frame built behind this port "
                          "(RoCE path MTU: 1024, 2048 or 4096 per IBA 9.6; larger on "
                          "intra-server NVLink-class ports, where frames are segments).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FabricNetDevice::m_payloadMtu),
                          MakeUintegerChecker<uint32_t>(64, 16u << 20))
            .AddAttribute("Scheduler",
                          "How traffic classes share the transmitter.",
                          EnumValue(STRICT_PRIORITY),
                          MakeEnumAccessor(&FabricNetDevice::m_scheduler),
                          MakeEnumChecker(STRICT_PRIORITY, "StrictPriority", DWRR, "Dwrr"))
            .AddAttribute("DwrrQuantum",
                          "Bytes each class may send per DWRR round.  Default: one jumbo "
                          "frame (9000 B), so every class sends at least one frame a round.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FabricNetDevice::m_dwrrQuantum),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable data frames CE on egress by the RED ramp.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricNetDevice::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKminPer25G",
                          "Class queue length where marking starts, per 25 Gb/s of line rate "
                          "(scaled to the port's rate).  Default 100 KB: the HPCC artifact's "
                          "DCQCN setup (Li et al., SIGCOMM 2019).",
                          QueueSizeValue(QueueSize("100KB")),
                          MakeQueueSizeAccessor(&FabricNetDevice::m_kminPer25G),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnKmaxPer25G",
                          "Class queue length where the marking probability reaches Pmax (and "
                          "above which every frame is marked), per 25 Gb/s of line rate.  "
                          "Default 400 KB (HPCC artifact, as above).",
                          QueueSizeValue(QueueSize("400KB")),
                          MakeQueueSizeAccessor(&FabricNetDevice::m_kmaxPer25G),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax.  Default 0.2 (HPCC artifact).",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&FabricNetDevice::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("PfcResponseQuanta",
                          "How long this port may still start frames of a class after a PFC "
                          "XOFF for it arrived, in quanta of 512 bit times: the peer's MAC "
                          "and PHY response time, which switches' PFC headroom must absorb.  "
                          "Default 0: IEEE 802.3's largest allowed for the line rate (Annex "
                          "31B.3.7; e.g. 394 quanta = 2.02 us at 100 Gb/s, 905 = 1.16 us at "
                          "400 Gb/s); the port takes all of it, the worst case headroom is "
                          "sized for.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetDevice::m_responseQuanta),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("PfcPauseQuanta",
                          "Pause time this port asks for in each PFC XOFF frame, in quanta of "
                          "512 bit times; re-sent every half of it while asserted.  Default "
                          "0xFFFF, the largest 802.1Qbb allows.",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&FabricNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddTraceSource("Tx",
                            "A frame starts on the wire.  A data frame's packet is made for "
                            "the sinks at each call (the link's MACs; uids and tags do not "
                            "persist from hop to hop).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_txTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Rx",
                            "A frame was received from the wire (a data frame's packet made "
                            "for the sinks, as for Tx).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_rxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped; the second argument names why (a data "
                            "frame's packet made for the sinks, as for Tx).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                            "ns3::FabricNetDevice::DropTracedCallback")
            .AddTraceSource("Trim",
                            "A data frame the switch's buffer could not hold was cut to its "
                            "headers at this egress (FabricSwitch Trimming); the sinks get the "
                            "packet of the frame before the cut, made as for Tx.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_trimTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("EcnMark",
                            "A data frame was marked CE on egress (its packet made for the "
                            "sinks, as for Tx).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_ecnMarkTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame arrived: priority, pause quanta (0 = resume).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcRxTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame was sent: priority, pause quanta (0 = resume).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcTxTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("QueueBytes",
                            "The bytes (header to FCS) queued for one class's egress changed: "
                            "class, old bytes, new bytes.  Per class, as TracedValue's callback "
                            "is per value.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_queueBytesTrace),
                            "ns3::FabricNetDevice::QueueBytesTracedCallback")
            .AddTraceSource("Paused",
                            "A class stopped (true) or resumed (false) sending because of the "
                            "peer's PFC: when the pause takes effect, after the response time.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pausedTrace),
                            "ns3::FabricNetDevice::PausedTracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_uniform(CreateObject<UniformRandomVariable>()),
      m_address(Mac48Address::Allocate()),
      m_kminPer25G("100KB"),
      m_kmaxPer25G("400KB")
{
}

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    for (FrameQueue& q : m_queues)
    {
        q.Clear();
    }
    m_queueBytes.fill(0);
    m_queuedFrames = 0;
    m_backlog = 0;
    m_controlQueue.clear();
    m_owner = nullptr;
    NetDevice::DoDispose();
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
    channel->Attach(this);
    m_linkUp = channel->IsUp();
    m_linkEpoch = channel->GetEpoch();
    NotifyRateChanged();
    if (Ptr<FabricNetDevice> peer = channel->GetPeer(this))
    {
        m_peerForwardingLatency = peer->GetForwardingLatency();
        peer->m_peerForwardingLatency = m_forwardingLatency;
    }
}

Ptr<FabricChannel>
FabricNetDevice::GetFabricChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetForwardingLatency(Time t)
{
    m_forwardingLatency = t;
    if (m_channel && m_channel->GetNDevices() == 2)
    {
        m_channel->GetPeer(this)->m_peerForwardingLatency = t;
    }
}

void
FabricNetDevice::NotifyRateChanged()
{
    m_bitRate = m_channel->GetDataRate().GetBitRate();
    m_rateCode = InbandTelemetry::RateCode(m_bitRate);
    // Every Ethernet rate (100G: 80 ps a byte) divides 8e12: a multiplication per frame then,
    // the 128-bit division of WirePicoSeconds otherwise.
    constexpr uint64_t kBitPs = 8000000000000ull;
    // In the simulator's time steps (a picosecond, or finer: the helpers need at least that;
    // as ns-3 requires, the resolution is set before any time is made, so before this).
    m_stepsPerByte = kBitPs % m_bitRate == 0
                         ? kBitPs / m_bitRate * static_cast<uint64_t>(PicoSeconds(1).GetTimeStep())
                         : 0;
    const uint64_t per25G = 25000000000ull;
    // Thresholds scale with line rate (HPCC artifact's KMIN_MAP/KMAX_MAP do the same).
    m_kmin = static_cast<uint64_t>(double(m_kminPer25G.GetValue()) * double(m_bitRate) / per25G);
    m_kmax = static_cast<uint64_t>(double(m_kmaxPer25G.GetValue()) * double(m_bitRate) / per25G);
    NS_ABORT_MSG_IF(m_kmax < m_kmin, "EcnKmaxPer25G must be >= EcnKminPer25G");
}

Time
FabricNetDevice::TransmissionTime(uint32_t frameBytes) const
{
    if (m_stepsPerByte)
    {
        return TimeStep(roce::WireBytesForFrame(frameBytes) * m_stepsPerByte);
    }
    return PicoSeconds(roce::WirePicoSeconds(frameBytes, m_bitRate));
}

int64_t
FabricNetDevice::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

bool
FabricNetDevice::ShouldMarkEcn(uint64_t queueBytes)
{
    if (queueBytes <= m_kmin)
    {
        return false;
    }
    if (queueBytes > m_kmax)
    {
        return true;
    }
    const double p = m_pmax * double(queueBytes - m_kmin) / double(m_kmax - m_kmin);
    return m_uniform->GetValue() < p;
}

bool
FabricNetDevice::Enqueue(const FrameInfo& info, uint16_t ingressPort)
{
    if (!m_linkUp)
    {
        RecordDrop(info, Side::Out, DropReason::LinkDown);
        return false;
    }
    NS_ASSERT_MSG(m_owner, "a fabric port needs an owner (FabricSwitch or FabricEndpoint)");
    NS_ASSERT_MSG(info.priority < kClasses, "the 802.1Q PCP is a 3-bit field");
    const uint8_t c = info.priority;
    if (m_queuedFrames == 0 && m_scheduler == STRICT_PRIORITY && !(m_paused & (1u << c)) &&
        m_controlQueue.empty())
    {
        const Time now = FabricNow();
        if (now >= m_txEnd)
        {
            // An idle port with nothing queued sends the frame at once: what Kick would, without
            // its passage through the queue.
            const uint32_t size = roce::FrameBytes(info);
            if (!m_queueBytesTrace.IsEmpty())
            {
                m_queueBytesTrace(c, 0, size);
                m_queueBytesTrace(c, size, 0);
            }
            FrameInfo f = info;
            Depart(f, c, ingressPort, size, 0, now);
            return true;
        }
    }
    m_queues[c].Push(info, ingressPort);
    m_backlog |= uint8_t(1u << c);
    const uint64_t before = m_queueBytes[c];
    m_queueBytes[c] += roce::FrameBytes(info);
    m_queueBytesTrace(c, before, m_queueBytes[c]);
    ++m_queuedFrames;
    Kick();
    return true;
}

Time
FabricNetDevice::QuantaToTime(uint32_t quanta) const
{
    const unsigned __int128 ps = static_cast<unsigned __int128>(quanta) *
                                 PfcPauseHeader::kBitsPerQuantum * 1000000000000ull;
    return PicoSeconds(static_cast<int64_t>((ps + m_bitRate - 1) / m_bitRate));
}

void
FabricNetDevice::AssertPause(uint8_t priority, bool pause)
{
    if (m_asserting[priority] == pause)
    {
        return;
    }
    m_asserting[priority] = pause;
    m_refreshEvents[priority].Cancel();
    SendPfcFrame(priority, pause ? m_pauseQuanta : 0);
    if (pause)
    {
        m_refreshAt[priority] = FabricNow() + QuantaToTime(m_pauseQuanta) / 2;
        m_refreshEvents[priority] = Simulator::Schedule(QuantaToTime(m_pauseQuanta) / 2,
                                                        &FabricNetDevice::RefreshPause,
                                                        this,
                                                        priority);
    }
}

void
FabricNetDevice::RefreshPause(uint8_t priority)
{
    if (!m_asserting[priority] || FabricNow() != m_refreshAt[priority])
    {
        return; // a refresh that a later XON or XOFF replaced at this picosecond (m_pausePending)
    }
    SendPfcFrame(priority, m_pauseQuanta);
    m_refreshAt[priority] = FabricNow() + QuantaToTime(m_pauseQuanta) / 2;
    m_refreshEvents[priority] = Simulator::Schedule(QuantaToTime(m_pauseQuanta) / 2,
                                                    &FabricNetDevice::RefreshPause,
                                                    this,
                                                    priority);
}

void
FabricNetDevice::SendPfcFrame(uint8_t priority, uint16_t quanta)
{
    if (!m_linkUp)
    {
        return;
    }
    PfcPauseHeader pfc;
    pfc.SetPause(priority, quanta);
    VlanEthernetHeader eth;
    eth.SetSource(m_address);
    static const Mac48Address pfcGroup("01:80:c2:00:00:01"); // 802.1Qbb: MAC control group
    eth.SetDestination(pfcGroup);
    eth.SetEtherType(VlanEthernetHeader::kEtherTypeMacControl);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);
    p->AddHeader(eth);
    p->AddTrailer(EthernetTrailer());
    ++(quanta ? m_counters.pfcPauseSent : m_counters.pfcResumeSent);
    m_pfcTxTrace(priority, quanta);
    m_controlQueue.push_back(p);
    Kick();
}

void
FabricNetDevice::RecordDrop(Ptr<const Packet> p, DropReason reason)
{
    const auto r = static_cast<std::size_t>(reason);
    ++m_counters.dropFrames[r];
    m_counters.dropBytes[r] += p->GetSize();
    m_dropTrace(p, reason);
}

void
FabricNetDevice::RecordDrop(const FrameInfo& info, Side side, DropReason reason)
{
    const auto r = static_cast<std::size_t>(reason);
    ++m_counters.dropFrames[r];
    m_counters.dropBytes[r] += roce::FrameBytes(info);
    if (!m_dropTrace.IsEmpty())
    {
        m_dropTrace(MakePacket(info, side), reason);
    }
}

void
FabricNetDevice::RecordTrim(const FrameInfo& info)
{
    ++m_counters.trimmedFrames;
    if (!m_trimTrace.IsEmpty())
    {
        m_trimTrace(MakePacket(info, Side::Out));
    }
}

Ptr<Packet>
FabricNetDevice::MakePacket(const FrameInfo& info, Side side) const
{
    NS_ASSERT_MSG(m_channel && m_channel->GetNDevices() == 2,
                  "a port makes a frame's packet only on a link with two ends");
    const Mac48Address& peer = m_channel->PeerOf(this)->GetMacAddress();
    return side == Side::Out ? roce::MakeDataFrame(info, m_address, peer)
                             : roce::MakeDataFrame(info, peer, m_address);
}

bool
FabricNetDevice::IsPaused(uint8_t priority) const
{
    return (m_paused >> priority) & 1u;
}

bool
FabricNetDevice::Eligible(uint8_t c) const
{
    return ((m_backlog & ~m_paused) >> c) & 1u;
}

int
FabricNetDevice::SelectClass()
{
    if (m_scheduler == DWRR)
    {
        return SelectDwrr();
    }
    const unsigned ready = m_backlog & ~m_paused & 0xffu;
    return ready ? 31 - __builtin_clz(ready) : -1; // the highest ready class
}

int
FabricNetDevice::SelectDwrr()
{
    bool any = false;
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        any = any || Eligible(c);
    }
    if (!any)
    {
        return -1;
    }
    // Terminates: some class is eligible and its deficit grows by a quantum per visit.
    while (true)
    {
        const uint8_t c = m_dwrrCurrent;
        if (Eligible(c))
        {
            if (!m_dwrrVisitStarted)
            {
                m_deficit[c] += m_dwrrQuantum;
                m_dwrrVisitStarted = true;
            }
            const uint32_t size = roce::FrameBytes(m_queues[c].Front().info);
            if (m_deficit[c] >= size)
            {
                m_deficit[c] -= size;
                return c;
            }
        }
        else if (m_queues[c].IsEmpty())
        {
            m_deficit[c] = 0;
        }
        m_dwrrCurrent = (m_dwrrCurrent + 1) % kClasses;
        m_dwrrVisitStarted = false;
    }
}

void
FabricNetDevice::Kick()
{
    const Time now = FabricNow();
    if (now >= m_txEnd)
    {
        TransmitNext(now);
    }
    else if (!m_completionPending)
    {
        ScheduleCompletion(m_txEnd - now);
    }
}

void
FabricNetDevice::TransmitNext(Time now)
{
    NS_ASSERT(now >= m_txEnd);
    if (!m_controlQueue.empty())
    {
        const Ptr<Packet> p = m_controlQueue.front();
        m_controlQueue.erase(m_controlQueue.begin());
        StartTransmission(p, nullptr, Time(0), now); // MAC control frames skip the pipeline
        return;
    }
    const int c = SelectClass();
    if (c < 0)
    {
        return;
    }
    QueuedFrame f = m_queues[c].Front();
    m_queues[c].Pop();
    if (m_queues[c].IsEmpty())
    {
        m_backlog &= uint8_t(~(1u << c));
    }
    --m_queuedFrames;
    const uint32_t size = roce::FrameBytes(f.info);
    m_queueBytes[c] -= size;
    m_queueBytesTrace(c, m_queueBytes[c] + size, m_queueBytes[c]);
    Depart(f.info, static_cast<uint8_t>(c), f.ingressPort, size, m_queueBytes[c], now);
}

void
FabricNetDevice::Depart(FrameInfo& info,
                        uint8_t c,
                        uint16_t ingressPort,
                        uint32_t size,
                        uint64_t queueBytes,
                        Time now)
{
    // Marking as the frame leaves, on the queue it leaves behind: the congestion signal is
    // not delayed by the queue itself (as the HPCC artifact's switches do).
    // An empty queue marks nothing (ShouldMarkEcn draws nothing either): the queue's bytes
    // are not read for a frame that passed an idle port.
    const bool ecnCapable = info.ecn == Ipv4Header::ECN_ECT0 || info.ecn == Ipv4Header::ECN_ECT1;
    if (queueBytes > 0 && m_ecnEnabled && ecnCapable && ShouldMarkEcn(queueBytes))
    {
        info.ecn = Ipv4Header::ECN_CE; // RFC 3168
        ++m_counters.ecnMarked;
        if (!m_ecnMarkTrace.IsEmpty())
        {
            m_ecnMarkTrace(MakePacket(info, Side::Out));
        }
    }
    if (info.hasTelemetry && m_stampTelemetry && info.opcode != BthHeader::RC_ACKNOWLEDGE)
    {
        StampTelemetry(info, size, now);
    }
    StartTransmission(nullptr, &info, m_peerForwardingLatency, now);
    // After the frame is on the wire, so an owner that queues another one sees a busy port.
    m_owner->FrameDequeued(static_cast<uint16_t>(m_ifIndex), ingressPort, c, size);
}

void
FabricNetDevice::StampTelemetry(FrameInfo& info, uint32_t size, Time now) const
{
    NS_ABORT_MSG_IF(m_rateCode == 0,
                    "a frame with in-band telemetry (HPCC) leaves port "
                        << m_ifIndex << " of node " << m_nodeId << " at " << DataRate(m_bitRate)
                        << ", which telemetry cannot encode: rates are "
                        << InbandTelemetry::RateList());
    uint64_t queued = 0;
    for (uint64_t b : m_queueBytes)
    {
        queued += b;
    }
    info.telemetry.Push(m_rateCode, now, m_counters.txBytes + size, queued);
}

void
FabricNetDevice::StartTransmission(const Ptr<Packet>& control,
                                   const FrameInfo* info,
                                   Time peerLatency,
                                   Time now)
{
    const uint32_t bytes = info ? roce::FrameBytes(*info) : control->GetSize();
    const Time txTime = TransmissionTime(bytes);
    m_txEnd = now + txTime;
    ++m_counters.txFrames;
    m_counters.txBytes += bytes;
    m_counters.busyTime += txTime;
    if (!m_txTrace.IsEmpty()) // only a sink makes a data frame's packet
    {
        m_txTrace(info ? MakePacket(*info, Side::Out) : control);
    }
    m_channel->Transmit(control, info, this, txTime, peerLatency);
    // The link's one pending event: only when frames wait for it.  A frame that arrives to an
    // idle port later starts at once, without an event of its own.
    if ((m_queuedFrames > 0 || !m_controlQueue.empty()) && !m_completionPending)
    {
        ScheduleCompletion(txTime);
    }
}

void
FabricNetDevice::ScheduleCompletion(Time delay)
{
    m_completionPending = true;
    // In the port's node's context, as its frames' arrivals, and without an EventId (it is
    // never cancelled): the simulator owns the event and frees it, to RecycledEvent's free
    // list, when it has run.
    FabricScheduleWithContext(m_nodeId, delay, new PortCompletion(this));
}

void
FabricNetDevice::TransmitComplete()
{
    m_completionPending = false;
    Kick(); // an idle-port start at this same instant may have taken the wire already
}

void
FabricNetDevice::Receive(const Ptr<Packet>& control,
                         const FrameInfo* info,
                         uint32_t epoch,
                         bool corrupted)
{
    const bool lost = epoch != m_linkEpoch; // in flight when the link went down
    if (lost || corrupted)
    {
        const DropReason reason = lost ? DropReason::LinkDown : DropReason::FcsError;
        if (info)
        {
            RecordDrop(*info, Side::In, reason);
        }
        else
        {
            RecordDrop(control, reason);
        }
        return;
    }
    ++m_counters.rxFrames;
    if (!info)
    {
        m_counters.rxBytes += control->GetSize();
        if (!m_rxTrace.IsEmpty())
        {
            m_rxTrace(control);
        }
        ReceivePfc(control);
        return;
    }
    m_counters.rxBytes += roce::FrameBytes(*info);
    if (!m_rxTrace.IsEmpty())
    {
        m_rxTrace(MakePacket(*info, Side::In));
    }
    m_owner->ReceiveFrame(this, *info);
}

void
FabricNetDevice::ReceivePfc(Ptr<Packet> p)
{
    VlanEthernetHeader eth;
    p->RemoveHeader(eth);
    PfcPauseHeader pfc;
    p->PeekHeader(pfc);
    NS_ASSERT_MSG(eth.GetEtherType() == VlanEthernetHeader::kEtherTypeMacControl &&
                      pfc.GetOpcode() == PfcPauseHeader::kOpcodePfc,
                  "a fabric port receives only RoCEv2 data and PFC frames");
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        if (!pfc.IsEnabled(c))
        {
            continue;
        }
        const uint16_t quanta = pfc.GetQuanta(c);
        m_pfcRxTrace(c, quanta);
        m_resumeEvents[c].Cancel();
        if (quanta == 0)
        {
            m_pauseUntil[c] = Time::Max();
            Resume(c);
            continue;
        }
        ++m_counters.pfcPauseReceived;
        // Frames may still start for the response time; the pause runs from the XOFF's arrival.
        if (!IsPaused(c) && !m_pausePending[c])
        {
            m_pausePending[c] = true;
            m_pauseEvents[c] = Simulator::Schedule(QuantaToTime(GetPfcResponseQuanta()),
                                                   &FabricNetDevice::StartPause,
                                                   this,
                                                   c);
        }
        const Time pause = QuantaToTime(quanta);
        m_pauseUntil[c] = FabricNow() + pause;
        m_resumeEvents[c] = Simulator::Schedule(pause, &FabricNetDevice::PauseExpired, this, c);
    }
}

void
FabricNetDevice::StartPause(uint8_t c)
{
    if (!m_pausePending[c])
    {
        return; // resumed before the response time was up
    }
    m_pausePending[c] = false;
    m_paused |= uint8_t(1u << c);
    m_pauseStart[c] = FabricNow();
    m_pausedTrace(c, true);
}

uint32_t
FabricNetDevice::GetPfcResponseQuanta() const
{
    if (m_responseQuanta)
    {
        return m_responseQuanta;
    }
    // IEEE 802.3 Annex 31B.3.7's PAUSE reaction budget by line rate (Gb/s, quanta).
    static constexpr std::pair<uint64_t, uint32_t> kBudget[] = {
        {1, 2}, {10, 67}, {25, 80}, {40, 118}, {50, 147}, {100, 394}, {200, 453}};
    const uint64_t bitRate = GetFabricChannel()->GetNominalDataRate().GetBitRate();
    for (const auto& [gbps, quanta] : kBudget)
    {
        if (bitRate <= gbps * 1000000000ull)
        {
            return quanta;
        }
    }
    return 905;
}

uint64_t
FabricNetDevice::GetPfcResponseBytes() const
{
    const uint64_t bits = uint64_t(GetPfcResponseQuanta()) * PfcPauseHeader::kBitsPerQuantum;
    return (bits + 7) / 8;
}

void
FabricNetDevice::PauseExpired(uint8_t c)
{
    if (FabricNow() >= m_pauseUntil[c])
    {
        Resume(c);
    }
}

void
FabricNetDevice::Resume(uint8_t c)
{
    m_pauseEvents[c].Cancel();
    m_pausePending[c] = false;
    if (IsPaused(c))
    {
        m_paused &= uint8_t(~(1u << c));
        m_pausedTotal += FabricNow() - m_pauseStart[c];
        m_pausedTrace(c, false);
    }
    Kick();
}

Time
FabricNetDevice::GetPausedTime() const
{
    Time total = m_pausedTotal;
    const Time now = FabricNow();
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        if (IsPaused(c))
        {
            total += now - m_pauseStart[c];
        }
    }
    return total;
}

void
FabricNetDevice::Flush()
{
    for (uint8_t c = 0; c < kClasses; ++c)
    {
        while (!m_queues[c].IsEmpty())
        {
            const QueuedFrame f = m_queues[c].Front();
            m_queues[c].Pop();
            --m_queuedFrames;
            const uint32_t size = roce::FrameBytes(f.info);
            m_queueBytes[c] -= size;
            m_queueBytesTrace(c, m_queueBytes[c] + size, m_queueBytes[c]);
            m_owner->FrameDequeued(static_cast<uint16_t>(m_ifIndex), f.ingressPort, c, size);
            RecordDrop(f.info, Side::Out, DropReason::LinkDown);
        }
    }
    m_backlog = 0;
    m_controlQueue.clear();
}

void
FabricNetDevice::NotifyLinkState(bool up)
{
    m_linkUp = up;
    m_linkEpoch = m_channel->GetEpoch();
    if (!up)
    {
        Flush();
        for (uint8_t c = 0; c < kClasses; ++c)
        {
            m_refreshEvents[c].Cancel();
            m_asserting[c] = false;
        }
        for (uint8_t c = 0; c < kClasses; ++c)
        {
            if (IsPaused(c) || m_pausePending[c])
            {
                m_resumeEvents[c].Cancel();
                m_pauseUntil[c] = Time::Max();
                Resume(c); // a pause does not outlive the link that carried it
            }
        }
    }
    m_linkChangeCallbacks();
}

// ---- NetDevice boilerplate: a fabric port is point-to-point and carries no IP stack ----

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
    uint8_t bytes[6];
    m_address.CopyTo(bytes);
    m_portKey = 0;
    for (uint8_t b : bytes)
    {
        m_portKey = (m_portKey << 8) | b;
    }
    if (m_channel)
    {
        m_channel->UpdateEnd(this);
    }
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_payloadMtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return static_cast<uint16_t>(std::min<uint32_t>(m_payloadMtu, 65535));
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return false;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address::GetMulticast(Ipv4Address("224.0.0.0"));
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::Send(Ptr<Packet>, const Address&, uint16_t)
{
    NS_FATAL_ERROR("FabricNetDevice carries RoCEv2 frames only: send through a FabricEndpoint");
    return false;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet>, const Address&, const Address&, uint16_t)
{
    NS_FATAL_ERROR("FabricNetDevice carries RoCEv2 frames only: send through a FabricEndpoint");
    return false;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_nodeId = node->GetId();
    if (m_channel)
    {
        m_channel->UpdateEnd(this);
    }
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback)
{
}

void
FabricNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback)
{
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
