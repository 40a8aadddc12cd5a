#include "fabric-switch.h"

#include "ecmp-hash.h"
#include "fabric-channel.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

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
                          "How frames spread over equal-cost next hops.",
                          EnumValue(FLOW_HASH),
                          MakeEnumAccessor(&FabricSwitch::m_loadBalancing),
                          MakeEnumChecker(FLOW_HASH,
                                          "FlowHash",
                                          PACKET_SPRAY,
                                          "PacketSpray"));
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
    if (m_loadBalancing == PACKET_SPRAY)
    {
        return hops[m_sprayNext++ % n];
    }
    return HashEgress(hops, info);
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
        egress->RecordDrop(info, FabricNetDevice::Side::Out, reason);
        return;
    }
    ++m_forwarded;
    egress->Enqueue(info, in);
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
