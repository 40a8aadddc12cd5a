#include "fabric-switch.h"

#include "ecmp-hash.h"
#include "fabric-channel.h"
#include "fabric-simulator-impl.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricSwitch>()
            .AddAttribute("ForwardingLatency",
                          "Time from a data frame's last bit in to its arrival at the egress "
                          "queue (parser, lookup, MMU).  Default 500 ns, the order of "
                          "store-and-forward port-to-port latency of data-center switch ASICs.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&FabricSwitch::m_forwardingLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("EcmpSeed",
                          "Seed of this switch's five-tuple hash.  Equal seeds at successive "
                          "tiers reproduce hash polarization; the network helper gives each "
                          "switch its own unless told otherwise.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LoadBalancing",
                          "How frames spread over equal-cost next hops.  FlowHash: ECMP, a "
                          "flow on the port its five-tuple hashes to.  PacketSpray: each frame "
                          "to the next port in turn.  Adaptive: each frame to the port with the "
                          "fewest bytes queued in its class (switch adaptive routing, as "
                          "Spectrum-X's; it reorders, so pair it with selective repeat), the "
                          "hashed port while it is within AdaptiveHysteresis of the least.  "
                          "Flowlet: a flow stays on its port until it pauses FlowletGap or "
                          "longer, then its next flowlet takes a port drawn from a hash of the "
                          "flow and the flowlet count (LetFlow, Vanini et al., NSDI 2017, draws "
                          "at random), from a table of FlowletTableSize entries indexed by the "
                          "flow's hash, whose colliding flows share an entry (its port and "
                          "gap), as in hardware.  Adaptive and Flowlet skip ports whose link "
                          "is down (next hops until routing converges).",
                          EnumValue(FLOW_HASH),
                          MakeEnumAccessor(&FabricSwitch::m_loadBalancing),
                          MakeEnumChecker(FLOW_HASH,
                                          "FlowHash",
                                          PACKET_SPRAY,
                                          "PacketSpray",
                                          ADAPTIVE,
                                          "Adaptive",
                                          FLOWLET,
                                          "Flowlet"))
            .AddAttribute("AdaptiveHysteresis",
                          "Adaptive: a frame takes its flow's hashed port unless another has "
                          "more than this many fewer bytes queued in the frame's class, so "
                          "flows stay in order until queues differ.  Default 0: always the least "
                          "queued (the hashed port among equals).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_hysteresis),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FlowletGap",
                          "Flowlet: a pause of a flow this long or longer ends its flowlet.  "
                          "Default 50 us, LetFlow's flowlet timeout for its testbed's 10G links "
                          "(150-500 us in its simulations); it should exceed the difference in "
                          "delay between paths, or flowlets reorder.",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&FabricSwitch::m_flowletGap),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FlowletTableSize",
                          "Flowlet: entries of the switch's flowlet table.  Default 4096.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FabricSwitch::m_flowletEntries),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("Trimming",
                          "A data frame of a lossy class (every class when the MMU's "
                          "PfcEnabled is false) that the buffer cannot hold is cut to its "
                          "headers (66 bytes with ICRC and FCS; DSCP remarked to 3, "
                          "roce::kTrimmedDscp) and queued in class TrimClass instead of "
                          "dropped, so its receiver asks for exactly it (NDP; Spectrum-4's "
                          "packet trimming).  Counted per egress port and traced (Trim); a "
                          "trimmed frame the buffer cannot hold either is dropped.  ACKs, NAKs "
                          "and CNPs are never trimmed.  Only selective repeat reads a trimmed "
                          "frame; go-back-N discards it (RdmaQueuePair).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_trimming),
                          MakeBooleanChecker())
            .AddAttribute("TrimClass",
                          "Trimming: the traffic class (802.1Q PCP) trimmed frames are queued "
                          "in.  Default 7, the class of acknowledgements (RdmaQueuePair's "
                          "AckPriority), served first under strict priority.",
                          UintegerValue(7),
                          MakeUintegerAccessor(&FabricSwitch::m_trimClass),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("Telemetry",
                          "Stamp an in-band telemetry record (InbandTelemetry: link rate, "
                          "time, bytes sent, bytes queued) on each data frame that carries a "
                          "telemetry header as it leaves a port, as HPCC's INT switches do.  "
                          "Default true; the port's rate must then be one a record names (1, "
                          "10, 25, 40, 50, 100, 200, 400, 800 or 1600 Gb/s).  The network "
                          "helper turns it off on NVSwitches: HPCC controls the Ethernet "
                          "fabric.  HPCC needs it (the runner refuses hpcc without it).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_telemetry),
                          MakeBooleanChecker());
    return tid;
}

FabricSwitch::FabricSwitch() = default;

void
FabricSwitch::DoDispose()
{
    m_ports.clear();
    m_mmu = nullptr;
    Object::DoDispose();
}

void
FabricSwitch::AddPort(Ptr<FabricNetDevice> port)
{
    const auto index = static_cast<uint16_t>(m_ports.size());
    NS_ABORT_MSG_IF(port->GetIfIndex() != index,
                    "FabricSwitch ports must be the node's devices in order");
    m_ports.push_back(port);
    port->SetForwardingLatency(m_forwardingLatency);
    port->SetOwner(this);
    port->SetTelemetryStamping(m_telemetry);
}

bool
FabricSwitch::Finalize()
{
    if (!m_mmu)
    {
        m_mmu = CreateObject<SharedBufferMmu>();
    }
    // PFC headroom per port: what can still arrive after the XOFF decision (IEEE 802.1Qbb's
    // delay model).  The frame that crossed the threshold; the frame this port is sending
    // before the PFC frame can go; the PFC frame; the peer's response time (802.3 Annex
    // 31B.3.7: it may start frames that long after the XOFF arrived; both ends of a link keep
    // the same budget, the peer's rate being this port's); the frame the peer is sending when
    // it stops; the cable round trip and this switch's forwarding pipeline at line rate; and one
    // frame for rounding the in-flight bytes up to whole frames.
    std::vector<uint64_t> headroom;
    for (const auto& port : m_ports)
    {
        Ptr<FabricChannel> ch = port->GetFabricChannel();
        const double bytesPerSecond = ch->GetDataRate().GetBitRate() / 8.0;
        const double flight = (2 * ch->GetDelay() + m_forwardingLatency).GetSeconds();
        const uint64_t frame = roce::WireBytesForPayload(port->GetPayloadMtu());
        headroom.push_back(4 * frame + roce::kMinFrameBytes + port->GetPfcResponseBytes() +
                           static_cast<uint64_t>(bytesPerSecond * flight + 1));
    }
    m_mmu->SetPauseHandler(MakeCallback(&FabricSwitch::PauseIngress, this));
    return m_mmu->Configure(headroom);
}

uint16_t
FabricSwitch::ChooseEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info)
{
    const auto n = static_cast<uint32_t>(hops.size());
    if (n == 1)
    {
        return hops[0];
    }
    switch (m_loadBalancing)
    {
    case FLOW_HASH:
        return HashEgress(hops, info);
    case PACKET_SPRAY:
        return hops[m_sprayNext++ % n];
    case ADAPTIVE:
        return AdaptiveEgress(hops, info);
    case FLOWLET:
        return FlowletEgress(hops, info);
    }
    return HashEgress(hops, info);
}

uint16_t
FabricSwitch::AdaptiveEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const
{
    // The least-queued port that is up, scanning from the hashed one (so equal queues keep
    // the flow's own port, and a flow diverted among equals goes to the next in turn); the
    // hashed port itself while within the hysteresis of it.  A port whose link is down (still
    // a next hop until routing converges) has empty queues but takes nothing.
    const std::size_t n = hops.size();
    const std::size_t hashed = FlowHash(info, m_seed) % n;
    const FabricNetDevice& own = *m_ports[hops[hashed]];
    const bool ownUp = own.IsLinkUp();
    const uint64_t ownBytes = own.GetQueueBytes(info.priority);
    std::size_t best = hashed;
    uint64_t bestBytes = ownUp ? ownBytes : UINT64_MAX;
    for (std::size_t k = 1; k < n; ++k)
    {
        const std::size_t i = (hashed + k) % n;
        const FabricNetDevice& port = *m_ports[hops[i]];
        const uint64_t bytes = port.GetQueueBytes(info.priority);
        if (bytes < bestBytes && port.IsLinkUp())
        {
            best = i;
            bestBytes = bytes;
        }
    }
    return hops[ownUp && ownBytes - bestBytes <= m_hysteresis ? hashed : best];
}

uint16_t
FabricSwitch::FlowletEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info)
{
    if (m_flowlets.size() != m_flowletEntries)
    {
        m_flowlets.assign(m_flowletEntries, Flowlet());
    }
    // Untagged, as in hardware: flows whose hashes collide share an entry, its port and gap.
    const uint32_t flow = FlowHash(info, m_seed);
    Flowlet& f = m_flowlets[flow % m_flowlets.size()];
    const int64_t now = FabricNow().GetTimeStep();
    const bool sameFlowlet = f.lastTs != kNever && now - f.lastTs < m_flowletGap.GetTimeStep() &&
                             std::find(hops.begin(), hops.end(), f.port) != hops.end() &&
                             m_ports[f.port]->IsLinkUp();
    if (!sameFlowlet)
    {
        f.count = f.lastTs == kNever ? 0 : f.count + 1;
        f.port = FlowletPort(hops, info, f.count);
    }
    f.lastTs = now;
    return f.port;
}

uint16_t
FabricSwitch::FlowletPort(const ForwardingTable::PortSet& hops,
                          const FrameInfo& info,
                          uint32_t count) const
{
    // Drawn from the flow and the flowlet count (count mixed into the seed); a port that is
    // down passes to the next one up.
    const std::size_t n = hops.size();
    const std::size_t drawn = FlowHash(info, m_seed + 0x9e3779b9u * (count + 1)) % n;
    for (std::size_t k = 0; k < n; ++k)
    {
        const uint16_t p = hops[(drawn + k) % n];
        if (m_ports[p]->IsLinkUp())
        {
            return p;
        }
    }
    return hops[drawn];
}

uint16_t
FabricSwitch::FlowEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const
{
    return m_loadBalancing == FLOWLET ? FlowletPort(hops, info, 0) : HashEgress(hops, info);
}

uint16_t
FabricSwitch::HashEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const
{
    return hops.size() == 1 ? hops[0] : hops[FlowHash(info, m_seed) % hops.size()];
}

void
FabricSwitch::ReceiveFrame(FabricNetDevice* ingress, const FrameInfo& info)
{
    const ForwardingTable::PortSet& hops = m_table.NextHops(info.dstHost);
    if (hops.empty())
    {
        ingress->RecordDrop(info, FabricNetDevice::Side::In, DropReason::NoRoute);
        return;
    }
    const uint16_t e = ChooseEgress(hops, info);
    const Ptr<FabricNetDevice>& egress = m_ports[e];
    if (!egress->IsLinkUp())
    {
        egress->RecordDrop(info, FabricNetDevice::Side::Out, DropReason::LinkDown);
        return;
    }
    const auto in = static_cast<uint16_t>(ingress->GetIfIndex());
    DropReason reason = DropReason::BufferFull;
    if (!m_mmu->Admit(in, e, info.priority, roce::FrameBytes(info), reason))
    {
        if (m_trimming && reason == DropReason::BufferFull && Trimmable(info))
        {
            Trim(in, e, info);
        }
        else
        {
            egress->RecordDrop(info, FabricNetDevice::Side::Out, reason);
        }
        return;
    }
    ++m_forwarded;
    egress->Enqueue(info, in);
}

bool
FabricSwitch::Trimmable(const FrameInfo& info)
{
    return info.opcode != BthHeader::RC_ACKNOWLEDGE && info.opcode != BthHeader::CNP &&
           !info.trimmed;
}

void
FabricSwitch::Trim(uint16_t in, uint16_t e, const FrameInfo& info)
{
    const Ptr<FabricNetDevice>& egress = m_ports[e];
    FrameInfo cut = info;
    cut.payloadBytes = 0;
    cut.trimmed = true;
    cut.priority = m_trimClass;
    DropReason reason = DropReason::BufferFull;
    if (!m_mmu->Admit(in, e, cut.priority, roce::FrameBytes(cut), reason))
    {
        egress->RecordDrop(info, FabricNetDevice::Side::Out, reason);
        return;
    }
    egress->RecordTrim(info);
    ++m_forwarded;
    egress->Enqueue(cut, in);
}

void
FabricSwitch::FrameDequeued(uint16_t egress, uint16_t ingress, uint8_t priority, uint32_t bytes)
{
    m_mmu->Release(ingress, egress, priority, bytes);
}

void
FabricSwitch::PauseIngress(uint16_t ingress, uint8_t priority, bool pause)
{
    m_ports[ingress]->AssertPause(priority, pause);
}

} // namespace ns3
