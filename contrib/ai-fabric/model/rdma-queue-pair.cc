#include "rdma-queue-pair.h"

#include "ecmp-hash.h"
#include "fabric-channel.h"
#include "fabric-endpoint.h"
#include "fabric-simulator-impl.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");
NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

namespace
{
constexpr uint32_t kPsnMask = 0xffffff;
constexpr uint8_t kSacked = 1;             //!< a selective NAK reported the frame received
constexpr uint8_t kResent = 2;             //!< the frame was deemed lost and queued to resend
constexpr uint8_t kQueued = 4;             //!< the frame is in m_resend, not yet resent
constexpr uint32_t kPlaced = 1u << 31;     //!< a responder's slot holds a frame
constexpr uint32_t kPlacedLast = 1u << 30; //!< and the frame ends a message

bool
IsLastOfMessage(uint8_t opcode)
{
    return opcode == BthHeader::RC_SEND_LAST || opcode == BthHeader::RC_SEND_ONLY;
}
} // namespace

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaQueuePair")
            .SetParent<MessageQueuePair>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaQueuePair>()
            .AddAttribute("Priority",
                          "802.1Q PCP of data frames.  Default 3, the class RoCE deployments "
                          "commonly make lossless.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RdmaQueuePair::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("AckPriority",
                          "802.1Q PCP of ACK/NAK frames.  Default 7, the highest class, so "
                          "acknowledgements do not wait behind data.",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaQueuePair::m_ackPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("AckInterval",
                          "The responder ACKs every this many in-order frames (and always at "
                          "a message's last frame).  Default 1, an ACK per frame, as the HPCC "
                          "artifact's RDMA model runs (L2_ACK_INTERVAL 1, Li et al. SIGCOMM "
                          "2019).  IBA lets a responder coalesce ACKs; no NIC vendor documents "
                          "its responder's rate (Linux mlx4 has the requester ask for an ACK at "
                          "least every 2^8 frames, MLX4_IB_ACK_REQ_FREQ), so coalescing is a "
                          "setting to study, not a default.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaQueuePair::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RetransmissionTimeout",
                          "Time without acknowledgement progress after which the requester "
                          "goes back to its first unacknowledged frame, the first time.  Each "
                          "further timeout in a row waits twice as long, up to "
                          "RetransmissionTimeoutMax; progress restarts from this value.  Default "
                          "4.096 us x 2^8 = 1.05 ms: the IBA local ACK timeout encoding (vol. 1, "
                          "9.7.6.1.3) at timeout value 8.",
                          TimeValue(MicroSeconds(1048.576)),
                          MakeTimeAccessor(&RdmaQueuePair::m_rto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RetransmissionTimeoutMax",
                          "The longest a backed-off retransmission timeout grows.  NVIDIA's "
                          "adaptive retransmission doubles a QP's timeout on consecutive "
                          "timeouts and caps it at the QP's ack_timeout; default 4.096 us x 2^20 "
                          "= 4.29 s, NCCL's NCCL_IB_TIMEOUT default of 20.  At or below "
                          "RetransmissionTimeout the timeout is fixed, as IBA specifies it.",
                          TimeValue(MicroSeconds(4.096 * (1 << 20))),
                          MakeTimeAccessor(&RdmaQueuePair::m_rtoMax),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RetryCount",
                          "Timeouts in a row without progress after which the QP fails its "
                          "messages.  Default 7, the largest IBA retry_cnt (3 bits; vol. 1, "
                          "9.7.6.1.3): with the backed-off timeouts a dead path is given up "
                          "after 255 x RetransmissionTimeout (268 ms at the defaults).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaQueuePair::m_retryCount),
                          MakeUintegerChecker<uint32_t>(0, 7))
            .AddAttribute("CnpInterval",
                          "The responder sends at most one CNP per this interval.  Default "
                          "50 us (DCQCN, Zhu et al. SIGCOMM 2015).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaQueuePair::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("StartingPsn",
                          "PSN of the first frame this QP sends (IBA: chosen at connection "
                          "setup; 24 bits).  PSNs wrap from 2^24 - 1 to 0.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaQueuePair::m_startingPsn),
                          MakeUintegerChecker<uint32_t>(0, (1u << 24) - 1))
            .AddAttribute(
                "RetransmissionMode",
                "How lost frames are recovered; both ends of a connection must use "
                "the same.  GoBackN: IBA RC, frames accepted in order only, a gap "
                "makes the requester resend everything from the first lost frame "
                "(what RoCE NICs do by default).  SelectiveRepeat: frames placed out "
                "of order and only lost frames resent, as IRN (Mittal et al., SIGCOMM "
                "2018) and out-of-order transports for sprayed fabrics do.",
                EnumValue(GO_BACK_N),
                MakeEnumAccessor(&RdmaQueuePair::m_mode),
                MakeEnumChecker(GO_BACK_N, "GoBackN", SELECTIVE_REPEAT, "SelectiveRepeat"))
            .AddAttribute("SelectiveRepeatWindow",
                          "SelectiveRepeat: the requester sends no frame this many PSNs or more "
                          "past its oldest unacknowledged one, and the responder places frames "
                          "fewer than this many past the next expected one (and ACKs at least "
                          "once this many, whatever AckInterval); 4 bytes of state a frame of "
                          "the window at the responder and 1 at the requester, allocated at the "
                          "first out-of-order frame (responder) or selective NAK or timeout "
                          "(requester).  Default 1024 "
                          "frames (4 MiB at a 4096-byte MTU), above the bandwidth-delay product "
                          "of 800G over a 40 us round trip; IRN caps its frames in flight at one "
                          "BDP.",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&RdmaQueuePair::m_window),
                          MakeUintegerChecker<uint32_t>(1, 1u << 22))
            .AddAttribute("ReorderThreshold",
                          "SelectiveRepeat: a frame is deemed lost once a frame this many PSNs "
                          "or more after it was selectively acknowledged (1: at the first later "
                          "frame, IRN's rule for a fabric that keeps order).  Larger values "
                          "tolerate deeper reordering and detect a loss later; the "
                          "retransmission timeout catches what it misses (at or above the "
                          "window, it alone finds losses).  Default 512, half "
                          "the default window: under PFC a sprayed fabric's paths differ by "
                          "whole paused queues (a 64 MiB tree all-reduce on a sprayed k=4 "
                          "fat-tree at 400G resent frames that had arrived at 256 and none at "
                          "512), and 512 frames at 400G take 43 us, far below the timeout.",
                          UintegerValue(512),
                          MakeUintegerAccessor(&RdmaQueuePair::m_reorderThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("UdpSourcePort",
                          "UDP source port of this QP's frames, its ECMP entropy; 0 derives "
                          "one in 49152-65535 (RFC 6335) from the host and the QP's ordinal "
                          "among its NIC's data QPs.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaQueuePair::m_udpSrcPort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Entropy",
                          "Where each data frame's UDP source port, the field ECMP hashes, comes "
                          "from; both ends of a connection must use the same.  Fixed: "
                          "UdpSourcePort, one path per queue pair under flow-hash switches.  "
                          "Spray: a new pseudo-random port per frame (xorshift32 seeded from the "
                          "hosts, the QP, UdpSourcePort and the host's EcmpSeed), so flow-hash "
                          "switches spread "
                          "the QP's frames over every equal-cost path.  Recycle: the port of a "
                          "frame acknowledged without a CE mark is used again, a new one drawn "
                          "otherwise (entropy recycling, as REPS for Ultra Ethernet).  Under Spray "
                          "and Recycle an ACK leaves with its data frame's port, and under Recycle "
                          "echoes its CE mark in the BECN bit.  Spraying reorders frames: use "
                          "SelectiveRepeat.",
                          EnumValue(FIXED_ENTROPY),
                          MakeEnumAccessor(&RdmaQueuePair::m_entropyMode),
                          MakeEnumChecker(FIXED_ENTROPY,
                                          "Fixed",
                                          SPRAY_ENTROPY,
                                          "Spray",
                                          RECYCLE_ENTROPY,
                                          "Recycle"))
            .AddAttribute("EntropyCacheSize",
                          "Recycle: the ports kept for reuse at most (2 bytes each, allocated "
                          "at the first); when it is full the oldest gives way.  A sender "
                          "reuses one per frame as its ACKs return one, so it holds more only "
                          "while the sender waits; default 256 frames, above the frames in "
                          "flight over a 10 us round trip at 800G (244 of 4 KiB).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&RdmaQueuePair::m_entropyCacheSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddTraceSource("MessageCompleted",
                            "A posted message was acknowledged: message id, bytes.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_completedTrace),
                            "ns3::RdmaQueuePair::CompletedTracedCallback")
            .AddTraceSource("MessageReceived",
                            "The responder accepted a message's last frame: its MSN, its bytes.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_receivedTrace),
                            "ns3::RdmaQueuePair::ReceivedTracedCallback")
            .AddTraceSource("Failed",
                            "The requester exceeded its retry count and failed.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_failedTrace),
                            "ns3::TracedCallback::Void")
            .AddTraceSource("FramesInFlight",
                            "Requester: data frames sent and not yet acknowledged, counted from "
                            "the next frame to send (a go-back rewinds it: the frames to resend "
                            "are not in flight).  Under selective repeat: from the oldest "
                            "unacknowledged frame to the next new one, frames selectively "
                            "acknowledged or waiting to be resent included.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_framesInFlight),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;

void
RdmaQueuePair::PortDequeued()
{
    SendNext();
}

void
RdmaQueuePair::DoDispose()
{
    m_timer.Cancel();
    m_paceEvent.Cancel();
    m_timerArmed = m_timerPending = m_pacing = false;
    m_endpoint = nullptr;
    m_port = nullptr;
    m_route = FabricEndpoint::Route();
    m_cc = nullptr;
    m_messages.clear();
    m_sentState = std::vector<uint8_t>();
    m_resend = std::vector<uint64_t>();
    m_placed = std::vector<uint32_t>();
    m_entropyCache = std::vector<uint16_t>();
    MessageQueuePair::DoDispose();
}

void
RdmaQueuePair::Setup(Ptr<FabricEndpoint> endpoint, uint32_t localQpn, uint32_t remoteHost,
                     uint32_t remoteQpn, Ptr<RdmaCongestionControl> cc)
{
    m_endpoint = endpoint;
    m_localQpn = localQpn;
    m_remoteHost = remoteHost;
    m_remoteQpn = remoteQpn;
    m_cc = cc;
    m_currentRto = m_rto;
    m_endSeq = m_sndNxt = m_sndUna = m_highestSent = m_startingPsn;
    m_lossScan = m_highestSacked = m_startingPsn;
    if (m_udpSrcPort == 0)
    {
        m_udpSrcPort = roce::QueuePairEntropy(endpoint->GetHostId(), localQpn);
    }
    m_entropyDraw = EcmpHash(roce::HostAddressBits(endpoint->GetHostId()),
                             roce::HostAddressBits(remoteHost),
                             m_udpSrcPort,
                             static_cast<uint16_t>(localQpn),
                             endpoint->GetEcmpSeed());
    m_entropyDraw = m_entropyDraw ? m_entropyDraw : 1; // xorshift32 never leaves 0
    m_port = endpoint->PortToward(remoteHost, m_udpSrcPort);
    if (!m_port)
    {
        // A failure took every route: frames are dropped as NoRoute until routes return, and
        // the retry budget decides, as on a dead link.
        NS_LOG_WARN("host " << endpoint->GetHostId() << " has no route to host " << remoteHost
                            << " as its queue pair is set up");
        m_port = endpoint->GetSmallestMtuPort();
    }
    m_mtu = m_port->GetPayloadMtu();
    DataRate lineRate = m_port->GetFabricChannel()->GetDataRate();
    if (m_entropyMode != FIXED_ENTROPY)
    {
        // Sprayed over the NIC's ports toward the peer (the planes of a multi-plane NIC; not
        // an NVLink port a rail-only fabric also routes by): their rates together.
        const uint32_t nicMtu = endpoint->GetSmallestMtuPort()->GetPayloadMtu();
        uint64_t bps = 0;
        for (uint16_t port : endpoint->NextHops(remoteHost))
        {
            Ptr<FabricNetDevice> p = endpoint->GetPort(port);
            bps += p->GetPayloadMtu() == nicMtu ? p->GetFabricChannel()->GetDataRate().GetBitRate()
                                                : 0;
        }
        if (bps)
        {
            m_mtu = nicMtu;
            lineRate = DataRate(bps);
        }
    }
    m_cc->Attach(lineRate);
    m_feedback = m_cc->GetFeedback();
    m_frameOverhead = roce::kDataFrameOverheadBytes +
                      (Telemetry() ? InbandTelemetry::kHeaderBytes : 0);
    m_windowed = m_cc->GetWindowBytes() != 0;
    m_rttSegmentFrames = (uint64_t(m_cc->GetRttSegmentBytes()) + m_mtu - 1) / m_mtu;
    m_nextRttSample = m_startingPsn + m_rttSegmentFrames - 1;
}

uint64_t
RdmaQueuePair::PostSend(uint64_t bytes, CompletionCallback done)
{
    const uint64_t frames = bytes == 0 ? 1 : (bytes + m_mtu - 1) / m_mtu;
    m_messages.push_back({m_nextMessageId, bytes, m_endSeq, frames, done});
    m_endSeq += frames;
    if (!m_failed && !m_waitingForPort && !m_pacing)
    {
        SendNext();
    }
    else if (!m_failed)
    {
        Produce(); // the producer need not wait for the port or the pacer
    }
    return m_nextMessageId++;
}

const RdmaQueuePair::Message&
RdmaQueuePair::MessageOf(uint64_t seq) const
{
    for (const auto& m : m_messages)
    {
        if (seq < m.firstSeq + m.frames)
        {
            return m;
        }
    }
    NS_FATAL_ERROR("RdmaQueuePair: no posted message holds frame " << seq);
}

uint32_t
RdmaQueuePair::FramePayload(uint64_t seq) const
{
    const Message& m = MessageOf(seq);
    const uint64_t index = seq - m.firstSeq;
    return static_cast<uint32_t>(index + 1 == m.frames ? m.bytes - index * m_mtu : m_mtu);
}

void
RdmaQueuePair::SendNext()
{
    m_waitingForPort = false;
    while (!m_failed)
    {
        // Selective repeat resends lost frames before new ones (go-back-N queues none).
        const bool resend = m_resendHead < m_resend.size() && ResendDue();
        if (!resend &&
            (m_sndNxt >= m_endSeq || !InWindow(m_sndNxt) || (m_windowed && CcWindowFull())))
        {
            return;
        }
        Produce();
        if (!resend && m_produced && m_sndNxt >= m_highestSent && m_readyAt > FabricNow())
        {
            m_pacing = true;
            m_paceEvent =
                Simulator::Schedule(m_readyAt - FabricNow(), &RdmaQueuePair::PaceDone, this);
            return;
        }
        if (m_entropyMode != FIXED_ENTROPY)
        {
            ChooseEntropy();
        }
        if (m_port->GetQueueBytes(m_priority) > 0)
        {
            SendWhenPortHasRoom();
            return;
        }
        if (resend)
        {
            const uint64_t seq = m_resend[m_resendHead++];
            SentState(seq) &= ~kQueued;
            SendFrame(seq);
            if (m_resendHead == m_resend.size())
            {
                m_resend.clear();
                m_resendHead = 0;
            }
        }
        else
        {
            if (m_sndNxt >= m_highestSent)
            {
                m_produced = false;
            }
            SendFrame(m_sndNxt++);
        }
        m_framesInFlight = m_sndNxt - m_sndUna;
        Produce(); // the next frame is written while this one is on its way
        int64_t gap = 0; // ps
        const DataRate rate = m_cc->GetRate();
        if (rate < m_cc->GetLineRate())
        {
            const uint32_t frame = m_mtu + m_frameOverhead;
            gap = roce::WirePicoSeconds(frame, rate.GetBitRate());
        }
        if (gap > 0)
        {
            m_pacing = true;
            m_paceEvent = Simulator::Schedule(PicoSeconds(gap), &RdmaQueuePair::PaceDone, this);
            return;
        }
    }
}

bool
RdmaQueuePair::CcWindowFull()
{
    // At least AckInterval frames: a responder that coalesces ACKs waits for that many.
    const uint64_t inFlight = m_sndNxt - m_sndUna;
    m_windowFull = inFlight >= m_ackInterval && inFlight * m_mtu >= m_cc->GetWindowBytes();
    return m_windowFull;
}

void
RdmaQueuePair::Produce()
{
    // The producer (a GPU's CTA) writes a frame's payload before the NIC can send it, once: a
    // retransmission reads what is already written.
    if (m_limiter && !m_produced && m_sndNxt < m_endSeq && m_sndNxt >= m_highestSent)
    {
        m_produced = true;
        m_readyAt = FabricNow() + m_limiter->Reserve(FabricNow(), FramePayload(m_sndNxt));
    }
}

void
RdmaQueuePair::PaceDone()
{
    m_pacing = false;
    SendNext();
}

void
RdmaQueuePair::SendWhenPortHasRoom()
{
    m_waitingForPort = true;
    m_endpoint->NotifyWhenPortDequeues(m_port->GetIfIndex(), this);
}

uint32_t
RdmaQueuePair::SendFrame(uint64_t seq)
{
    const Message& m = MessageOf(seq);
    const uint64_t index = seq - m.firstSeq;
    const bool first = index == 0;
    const bool last = index + 1 == m.frames;
    DataFrameSpec spec;
    spec.dstHost = m_remoteHost;
    spec.udpSrcPort = m_entropyMode == FIXED_ENTROPY ? m_udpSrcPort : m_nextEntropy;
    m_entropyChosen = false;
    spec.priority = m_priority;
    spec.destQp = m_remoteQpn;
    spec.psn = static_cast<uint32_t>(seq & kPsnMask);
    spec.payloadBytes = FramePayload(seq);
    spec.opcode = roce::SendOpcode(first, last);
    static const InbandTelemetry kUnstamped;
    spec.telemetry = Telemetry() ? &kUnstamped : nullptr;
    ++m_counters.framesSent;
    m_counters.payloadSent += spec.payloadBytes;
    if (seq < m_highestSent)
    {
        m_counters.payloadRetransmitted += spec.payloadBytes;
        if (m_rttSegmentFrames)
        {
            // Karn: acknowledgements after a resend time nothing; sample new frames again.
            m_rttSamples.clear();
            m_rttHead = 0;
            m_nextRttSample = std::max(m_nextRttSample, m_highestSent + m_rttSegmentFrames - 1);
        }
    }
    else if (m_rttSegmentFrames && (seq >= m_nextRttSample || seq + 1 == m_endSeq))
    {
        // The last frame of a segment (or of what is posted): from its hand-off to its ACK,
        // less its own serialization at its port's rate.
        const int64_t serialization =
            roce::WirePicoSeconds(spec.payloadBytes + m_frameOverhead,
                                  m_port->GetFabricChannel()->GetDataRate().GetBitRate());
        m_rttSamples.push_back({seq, FabricNow() + PicoSeconds(serialization)});
        m_nextRttSample = seq + m_rttSegmentFrames;
    }
    m_highestSent = std::max(m_highestSent, seq + 1);
    m_endpoint->Send(spec, m_route);
    // The MTU stays the first port's (a host's scale-out ports share it).
    m_route.Follow(m_port);
    m_cc->NotifySent(spec.payloadBytes + m_frameOverhead);
    if (!m_timerArmed)
    {
        ArmTimer();
    }
    return spec.payloadBytes;
}

void
RdmaQueuePair::ChooseEntropy()
{
    if (m_entropyChosen)
    {
        return;
    }
    m_entropyChosen = true;
    const ForwardingTable::PortSet& hops = m_endpoint->NextHops(m_remoteHost);
    if (hops.size() <= 1)
    {
        m_nextEntropy = NextEntropy();
    }
    else
    {
        // The NIC serves its ports toward the peer in turn (those of its MTU: not an NVLink
        // port a rail-only fabric also routes by): the up port with the fewest bytes queued in
        // the class, ties from m_portTurn on.
        const auto n = static_cast<uint32_t>(hops.size());
        uint16_t best = hops[m_portTurn % n];
        uint64_t fewest = UINT64_MAX;
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint16_t port = hops[(m_portTurn + i) % n];
            Ptr<FabricNetDevice> device = m_endpoint->GetPort(port);
            const uint64_t queued = device->GetQueueBytes(m_priority);
            if (device->GetPayloadMtu() == m_mtu && device->IsLinkUp() && queued < fewest)
            {
                best = port;
                fewest = queued;
            }
        }
        m_portTurn = (m_portTurn + 1) % n;
        m_nextEntropy = EntropyToward(best, hops);
    }
    m_endpoint->Choose(m_route, m_remoteHost, m_nextEntropy);
    m_route.Follow(m_port);
}

uint16_t
RdmaQueuePair::EntropyToward(uint16_t port, const ForwardingTable::PortSet& hops)
{
    FrameInfo info;
    info.srcHost = m_endpoint->GetHostId();
    info.dstHost = m_remoteHost;
    const auto leadsThere = [&](uint16_t entropy) {
        info.udpSrcPort = entropy;
        return m_endpoint->HashEgress(hops, info) == port;
    };
    for (std::size_t i = 0; i < m_cacheCount; ++i)
    {
        if (leadsThere(m_entropyCache[(m_cacheHead + i) % m_entropyCache.size()]))
        {
            return TakeKept(i);
        }
    }
    // One draw in hops.size() leads there: 16 of them for each, on average, before giving up
    // (a failure chance of e^-16).
    const std::size_t tries = std::max<std::size_t>(64, 16 * hops.size());
    uint16_t entropy = DrawEntropy();
    for (std::size_t t = 1; t < tries && !leadsThere(entropy); ++t)
    {
        entropy = DrawEntropy();
    }
    return entropy;
}

uint16_t
RdmaQueuePair::NextEntropy()
{
    return m_cacheCount > 0 ? TakeKept(0) : DrawEntropy();
}

uint16_t
RdmaQueuePair::TakeKept(std::size_t i)
{
    const std::size_t size = m_entropyCache.size();
    uint16_t& kept = m_entropyCache[(m_cacheHead + i) % size];
    const uint16_t entropy = kept;
    kept = m_entropyCache[m_cacheHead]; // the oldest takes its place
    m_cacheHead = (m_cacheHead + 1) % size;
    --m_cacheCount;
    return entropy;
}

uint16_t
RdmaQueuePair::DrawEntropy()
{
    m_entropyDraw ^= m_entropyDraw << 13;
    m_entropyDraw ^= m_entropyDraw >> 17;
    m_entropyDraw ^= m_entropyDraw << 5;
    return static_cast<uint16_t>(49152 + (m_entropyDraw >> 18)); // RFC 6335's dynamic range
}

void
RdmaQueuePair::Recycle(uint16_t entropy)
{
    if (m_entropyCache.empty())
    {
        m_entropyCache.resize(m_entropyCacheSize);
    }
    const std::size_t size = m_entropyCache.size();
    if (m_cacheCount == size)
    {
        m_cacheHead = (m_cacheHead + 1) % size; // the oldest gives way
        --m_cacheCount;
    }
    m_entropyCache[(m_cacheHead + m_cacheCount) % size] = entropy;
    ++m_cacheCount;
}

uint64_t
RdmaQueuePair::Unwrap(uint32_t psn, uint64_t reference)
{
    // Signed 24-bit distance from the reference's low bits.
    int32_t d = static_cast<int32_t>((psn - static_cast<uint32_t>(reference)) & kPsnMask);
    if (d & 0x800000)
    {
        d -= 0x1000000;
    }
    return reference + d;
}

void
RdmaQueuePair::Receive(const FrameInfo& info)
{
    if (info.opcode == BthHeader::RC_ACKNOWLEDGE)
    {
        ReceiveAck(info);
    }
    else if (info.opcode == BthHeader::CNP)
    {
        ++m_counters.cnpsReceived;
        m_cc->NotifyCongestion();
    }
    else
    {
        ReceiveData(info);
    }
}

void
RdmaQueuePair::ReceiveAck(const FrameInfo& info)
{
    if (m_failed)
    {
        return;
    }
    if (m_entropyMode == RECYCLE_ENTROPY && !info.ecnEcho &&
        info.syndrome != AethHeader::kNakTrimmed)
    {
        // Its data frame's path was not congested (a trimmed one's was): take it again.
        Recycle(info.udpSrcPort);
    }
    const bool nak = (info.syndrome >> 5) == 0x3;
    // A selective or trimmed NAK is taken as one only in selective repeat (else it is a
    // go-back NAK).
    const bool selective = AethHeader::HasPsnWord(info.syndrome) && m_mode == SELECTIVE_REPEAT;
    const bool trimmed = info.syndrome == AethHeader::kNakTrimmed;
    // An ACK carries the last frame received in order; a NAK the frame expected next.
    const uint64_t una = nak ? Unwrap(info.psn, m_sndUna) : Unwrap(info.psn, m_sndUna) + 1;
    if (una > m_highestSent || una < m_sndUna)
    {
        if (selective && una < m_sndUna)
        {
            // Overtaken by a later acknowledgement (acknowledgements reorder too): its PSN
            // word still tells what arrived, or was trimmed.
            ++m_counters.naksReceived;
            const uint64_t seq = Unwrap(info.sackPsn, m_sndUna);
            trimmed ? Trimmed(seq) : Sacked(seq);
            if (trimmed && seq == m_sndUna)
            {
                ArmTimer(); // news of the oldest frame (below)
            }
            if (!m_waitingForPort && !m_pacing)
            {
                SendNext();
            }
        }
        return; // stale or from before a go-back
    }
    const uint64_t oldUna = m_sndUna;
    uint64_t ackedBytes = 0;
    while (!m_messages.empty() && m_messages.front().firstSeq + m_messages.front().frames <= una)
    {
        Message m = m_messages.front();
        m_messages.pop_front();
        ackedBytes += m.bytes;
        m_completedTrace(m.id, m.bytes);
        if (!m.done.IsNull())
        {
            m.done(m.id, m.bytes);
        }
    }
    const bool progress = una > m_sndUna;
    if (progress)
    {
        m_retries = 0;
        m_currentRto = m_rto;
        if (m_rttHead < m_rttSamples.size() && m_rttSamples[m_rttHead].seq < una)
        {
            CompleteRttSamples(una);
        }
    }
    m_sndUna = una;
    // After a go-back, frames sent before it may still be acknowledged: never resend those.
    m_sndNxt = std::max(m_sndNxt, m_sndUna);
    if (m_mode == SELECTIVE_REPEAT)
    {
        ForgetAcked(oldUna);
    }
    if (ackedBytes)
    {
        m_cc->NotifyAcked(ackedBytes);
    }
    if (m_feedback)
    {
        RdmaCongestionControl::AckFeedback ack;
        ack.ackedSeq = m_sndUna;
        ack.newlyAcked = m_sndUna - oldUna;
        ack.nextSeq = m_sndNxt;
        ack.ecnEcho = info.ecnEcho;
        ack.telemetry = info.hasTelemetry ? &info.telemetry : nullptr;
        m_cc->NotifyAck(ack);
    }
    if (nak)
    {
        ++m_counters.naksReceived;
        if (selective)
        {
            const uint64_t seq = Unwrap(info.sackPsn, m_sndUna);
            trimmed ? Trimmed(seq) : Sacked(seq);
        }
        else
        {
            m_sndNxt = una; // go back N
        }
    }
    m_framesInFlight = m_sndNxt - m_sndUna;
    if (m_sndUna >= m_sndNxt && m_sndNxt >= m_endSeq)
    {
        m_timerArmed = false; // nothing in flight; the pending event will find it so
    }
    else if (progress || (nak && !selective) ||
             (trimmed && selective && Unwrap(info.sackPsn, m_sndUna) == m_sndUna))
    {
        // Selective NAKs come with every frame past a gap: the timer runs from the last
        // progress, so a resend lost again is found a timeout after the gap, as in IRN.  A
        // trimmed NAK of the oldest frame is news of it too: it was not lost silently, and
        // its resend moves the deadline (the backoff stays, as only progress resets it).
        ArmTimer();
    }
    // Progress may open a window (selective repeat's, the congestion control's); a selective
    // NAK queues resends.
    if ((nak || (progress && (m_mode == SELECTIVE_REPEAT || m_windowFull))) && !m_waitingForPort &&
        !m_pacing)
    {
        SendNext();
    }
}

void
RdmaQueuePair::CompleteRttSamples(uint64_t una)
{
    Time sent;
    while (m_rttHead < m_rttSamples.size() && m_rttSamples[m_rttHead].seq < una)
    {
        sent = m_rttSamples[m_rttHead++].sent;
    }
    // Keep the samples still in flight at the front (they are fewer than the frames in
    // flight over the segment's).
    if (m_rttHead == m_rttSamples.size() || m_rttHead > 64)
    {
        m_rttSamples.erase(m_rttSamples.begin(), m_rttSamples.begin() + m_rttHead);
        m_rttHead = 0;
    }
    // The rest is the paths' delay, queues and the responder's (TIMELY takes a segment's
    // serialization off its completion time).
    m_cc->NotifyRtt(Max(FabricNow() - sent, Time(0)));
}

uint8_t&
RdmaQueuePair::SentState(uint64_t seq)
{
    if (m_sentState.empty())
    {
        m_sentState.assign(m_window, 0);
    }
    return m_sentState[seq % m_window];
}

bool
RdmaQueuePair::ResendDue()
{
    while (m_resendHead < m_resend.size())
    {
        const uint64_t seq = m_resend[m_resendHead];
        if (seq >= m_sndUna && !(SentState(seq) & kSacked))
        {
            return true;
        }
        if (seq >= m_sndUna)
        {
            SentState(seq) &= ~kQueued; // (below m_sndUna its slot is another frame's)
        }
        ++m_resendHead; // acknowledged since it was deemed lost
    }
    if (m_resendHead > 0)
    {
        m_resend.clear();
        m_resendHead = 0;
    }
    return false;
}

void
RdmaQueuePair::Sacked(uint64_t seq)
{
    if (seq < m_sndUna || seq >= m_highestSent)
    {
        return; // stale
    }
    SentState(seq) |= kSacked;
    m_highestSacked = std::max(m_highestSacked, seq + 1);
    // Frames ReorderThreshold or more before the highest one acknowledged, and not
    // acknowledged themselves, are lost; each is judged once.
    if (m_highestSacked < m_sndUna + m_reorderThreshold + 1)
    {
        return;
    }
    const uint64_t end = m_highestSacked - m_reorderThreshold; // frames below it
    for (uint64_t s = std::max(m_lossScan, m_sndUna); s < end; ++s)
    {
        if (!(SentState(s) & (kSacked | kResent)))
        {
            QueueResend(s);
        }
    }
    m_lossScan = std::max(m_lossScan, end);
}

void
RdmaQueuePair::Trimmed(uint64_t seq)
{
    if (seq < m_sndUna || seq >= m_highestSent)
    {
        return; // stale
    }
    // Each trimmed transmission is reported once, so a resend trimmed again is queued again;
    // one already queued (deemed lost meanwhile) is not queued twice.
    if (!(SentState(seq) & (kSacked | kQueued)))
    {
        QueueResend(seq);
    }
}

void
RdmaQueuePair::QueueResend(uint64_t seq)
{
    SentState(seq) |= kResent | kQueued;
    m_resend.push_back(seq);
}

void
RdmaQueuePair::ForgetAcked(uint64_t from)
{
    if (m_sentState.empty())
    {
        return;
    }
    for (uint64_t s = from; s < m_sndUna; ++s)
    {
        m_sentState[s % m_window] = 0;
    }
}

void
RdmaQueuePair::ArmTimer()
{
    // An acknowledgement only moves the deadline; the pending event, if it comes early, waits
    // again until it, and one that finds the timer disarmed ends.  A cancelled ns-3 event
    // stays queued until its time, so cancelling when nothing is in flight and scheduling anew
    // at the next message would keep one event per message of the last RTO in the queue
    // (2.1 M more events in a 1,024-GPU ring all-reduce).  Only a deadline earlier than the pending event
    // (the RTO was backed off when it was scheduled) replaces it.
    m_timeoutAt = FabricNow() + m_currentRto;
    m_timerArmed = true;
    if (!m_timerPending || m_timerEventAt > m_timeoutAt)
    {
        m_timer.Cancel();
        ScheduleTimeout();
    }
}

void
RdmaQueuePair::ScheduleTimeout()
{
    m_timerPending = true;
    m_timerEventAt = m_timeoutAt;
    m_timer = Simulator::Schedule(m_timeoutAt - FabricNow(), &RdmaQueuePair::Timeout, this);
}

void
RdmaQueuePair::Timeout()
{
    m_timerPending = false;
    if (!m_timerArmed)
    {
        return;
    }
    if (FabricNow() < m_timeoutAt)
    {
        ScheduleTimeout();
        return;
    }
    if (m_sndUna >= m_highestSent || m_failed)
    {
        m_timerArmed = false;
        return;
    }
    ++m_counters.timeouts;
    if (++m_retries > m_retryCount)
    {
        // IBA: retry count exceeded; the QP moves to the error state.
        NS_LOG_INFO("QP " << m_localQpn << " to host " << m_remoteHost
                          << ": retry count exceeded, failing " << m_messages.size()
                          << " messages");
        m_failed = true;
        m_timerArmed = false;
        m_counters.retryExhausted = 1;
        m_framesInFlight = 0; // the error state sends nothing more
        m_paceEvent.Cancel();
        m_pacing = false;
        m_failedTrace();
        if (!m_errorCallback.IsNull())
        {
            m_errorCallback();
        }
        return;
    }
    // Back off: each timeout in a row doubles the next one, up to the cap.
    m_currentRto = std::min(2 * m_currentRto, std::max(m_rtoMax, m_rto));
    NS_LOG_INFO("QP " << m_localQpn << " timeout: back to " << m_sndUna << ", next timeout "
                      << m_currentRto.As(Time::US));
    if (m_mode == SELECTIVE_REPEAT)
    {
        // Resend every frame not acknowledged either way, in order; new frames after them.
        m_resend.clear();
        m_resendHead = 0;
        for (uint64_t s = m_sndUna; s < m_highestSent; ++s)
        {
            uint8_t& state = SentState(s);
            state &= ~kQueued;
            if (!(state & kSacked))
            {
                QueueResend(s);
            }
        }
        m_lossScan = std::max(m_lossScan, m_highestSent);
    }
    else
    {
        m_sndNxt = m_sndUna;
        m_framesInFlight = 0;
    }
    ArmTimer();
    if (!m_waitingForPort && !m_pacing)
    {
        SendNext();
    }
}

void
RdmaQueuePair::ReceiveData(const FrameInfo& info)
{
    if (info.trimmed && m_mode == GO_BACK_N)
    {
        // A RoCE NIC discards it as a frame whose ICRC fails, before reading its ECN: a loss
        // like a drop.
        ++m_counters.trimmedReceived;
        return;
    }
    if (info.hasTelemetry)
    {
        // The ACK or NAK this frame brings echoes what the switches stamped on it (HPCC).
        m_echoing = true;
        m_echo = info.telemetry;
    }
    if (m_feedback & RdmaCongestionControl::kEcnEcho)
    {
        // DCTCP's receiver (RFC 8257 3.2, as the DCTCP paper and Linux run it): each ACK
        // echoes the CE state of the frames it covers; when the state changes, the frames
        // accepted before are acknowledged at once with the old state, and the frame that
        // changed it waits for the next ACK (AckInterval) like any other.
        const bool ce = info.ecn == Ipv4Header::ECN_CE;
        if (ce != m_ceState)
        {
            if (m_unacked > 0)
            {
                SendAck(AethHeader::kAck, m_ePsn - 1);
            }
            m_ceState = ce;
        }
    }
    else if (info.ecn == Ipv4Header::ECN_CE && !Telemetry() &&
             (!m_cnpSent || FabricNow() - m_lastCnp >= m_cnpInterval))
    {
        SendCnp();
    }
    if (m_entropyMode != FIXED_ENTROPY)
    {
        // The ACK or NAK this frame brings leaves with its port and, recycling, its mark (the
        // early ACK above went with the frames' before).
        m_echoEntropy = info.udpSrcPort;
        if (m_entropyMode == RECYCLE_ENTROPY && !(m_feedback & RdmaCongestionControl::kEcnEcho))
        {
            // A trimmed frame's path was congested too.
            m_ceState = info.ecn == Ipv4Header::ECN_CE || info.trimmed;
        }
    }
    const uint64_t seq = Unwrap(info.psn, m_ePsn);
    if (info.trimmed)
    {
        ReceiveTrimmed(seq);
    }
    else if (seq == m_ePsn)
    {
        m_nakOutstanding = false;
        m_counters.payloadReceived += info.payloadBytes;
        Accept(info.payloadBytes, IsLastOfMessage(info.opcode));
    }
    else if (seq > m_ePsn && m_mode == SELECTIVE_REPEAT)
    {
        PlaceOutOfOrder(seq, info);
    }
    else if (seq > m_ePsn)
    {
        m_counters.payloadDiscarded += info.payloadBytes;
        if (!m_nakOutstanding)
        {
            m_nakOutstanding = true;
            SendAck(AethHeader::kNakSequenceError, m_ePsn);
        }
    }
    else
    {
        m_counters.payloadDiscarded += info.payloadBytes;
        SendAck(AethHeader::kAck, m_ePsn - 1); // a duplicate: tell the requester where we are
    }
}

void
RdmaQueuePair::ReceiveTrimmed(uint64_t seq)
{
    ++m_counters.trimmedReceived;
    if (seq < m_ePsn)
    {
        SendAck(AethHeader::kAck, m_ePsn - 1); // a duplicate's: tell the requester where we are
        return;
    }
    // Ask for exactly that frame, unless it is beyond the window or already placed.
    const bool placed = !m_placed.empty() && m_placed[seq % m_window];
    if (seq < m_ePsn + m_window && !placed)
    {
        SendAck(AethHeader::kNakTrimmed, m_ePsn, seq);
    }
}

void
RdmaQueuePair::Accept(uint32_t payload, bool last)
{
    // The frame m_ePsn, then (selective repeat) the frames placed behind it, with one ACK at
    // the end for all of them (an ACK may cover several messages): one ACK per frame that
    // arrives, whose port a sprayed requester may reuse (Entropy).  The messages they end are
    // delivered after it: the NIC acknowledges in hardware before software sees a message.
    bool ended = false; // a message ended since the frame that arrived
    while (true)
    {
        ++m_ePsn;
        m_rxMessageBytes += payload;
        ++m_unacked;
        if (last)
        {
            ended = true;
            m_completed.push_back({++m_msn, m_rxMessageBytes});
            m_rxMessageBytes = 0;
        }
        uint32_t* next = m_placed.empty() ? nullptr : &m_placed[m_ePsn % m_window];
        if (next && *next)
        {
            payload = *next & ~(kPlaced | kPlacedLast);
            last = *next & kPlacedLast;
            *next = 0;
            continue;
        }
        // Selective repeat ACKs at least once a window: the requester waits for it.
        const uint32_t every =
            m_mode == SELECTIVE_REPEAT ? std::min(m_ackInterval, m_window) : m_ackInterval;
        if (m_unacked >= every || ended)
        {
            SendAck(AethHeader::kAck, m_ePsn - 1);
        }
        for (std::size_t i = 0; i < m_completed.size(); ++i)
        {
            m_receivedTrace(m_completed[i].first, m_completed[i].second);
            if (!m_receiveCallback.IsNull())
            {
                m_receiveCallback(m_completed[i].second);
            }
        }
        m_completed.clear();
        return;
    }
}

void
RdmaQueuePair::PlaceOutOfOrder(uint64_t seq, const FrameInfo& info)
{
    if (seq >= m_ePsn + m_window)
    {
        // Beyond the window, which the requester does not send past: not placed.
        m_counters.payloadDiscarded += info.payloadBytes;
        return;
    }
    if (m_placed.empty())
    {
        m_placed.resize(m_window);
    }
    uint32_t& slot = m_placed[seq % m_window];
    if (slot)
    {
        m_counters.payloadDiscarded += info.payloadBytes; // a duplicate
    }
    else
    {
        NS_ASSERT(info.payloadBytes < kPlacedLast);
        slot = kPlaced | (IsLastOfMessage(info.opcode) ? kPlacedLast : 0) | info.payloadBytes;
        m_counters.payloadReceived += info.payloadBytes;
    }
    // Every out-of-order frame is reported, so the requester learns what arrived.
    SendAck(AethHeader::kNakSelective, m_ePsn, seq);
}

void
RdmaQueuePair::SendCnp()
{
    m_cnpSent = true;
    m_lastCnp = FabricNow();
    ++m_counters.cnpsSent;
    DataFrameSpec spec;
    spec.dstHost = m_remoteHost;
    spec.udpSrcPort = m_udpSrcPort;
    spec.priority = m_ackPriority;
    spec.ecnCapable = false;
    spec.opcode = BthHeader::CNP;
    spec.destQp = m_remoteQpn;
    spec.payloadBytes = 16; // RoCEv2 CNP: 16 reserved bytes after the BTH (annex A17.9.3)
    m_endpoint->Send(spec, m_route);
}

void
RdmaQueuePair::SendAck(uint8_t syndrome, uint64_t psnSeq, uint64_t sackSeq)
{
    m_unacked = 0;
    ++(syndrome == AethHeader::kAck ? m_counters.acksSent : m_counters.naksSent);
    DataFrameSpec spec;
    spec.dstHost = m_remoteHost;
    spec.udpSrcPort = m_entropyMode == FIXED_ENTROPY ? m_udpSrcPort : m_echoEntropy;
    spec.priority = m_ackPriority;
    spec.ecnCapable = false;
    spec.opcode = BthHeader::RC_ACKNOWLEDGE;
    spec.destQp = m_remoteQpn;
    spec.psn = static_cast<uint32_t>(psnSeq & kPsnMask);
    spec.syndrome = syndrome;
    spec.msn = m_msn;
    spec.sackPsn = static_cast<uint32_t>(sackSeq & kPsnMask);
    spec.telemetry = m_echoing ? &m_echo : nullptr;
    spec.ecnEcho = m_ceState;
    m_endpoint->Send(spec, m_route);
}

} // namespace ns3
