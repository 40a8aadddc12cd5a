#include "roce-frame.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHeaderStack);

TypeId
RoceHeaderStack::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeaderStack")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceHeaderStack>();
    return tid;
}

TypeId
RoceHeaderStack::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceHeaderStack::Print(std::ostream& os) const
{
    eth.Print(os);
    os << " | ";
    ip.Print(os);
    os << " | ";
    udp.Print(os);
    os << " | ";
    bth.Print(os);
    if (HasAeth())
    {
        os << " | ";
        aeth.Print(os);
    }
}

uint32_t
RoceHeaderStack::GetSerializedSize() const
{
    return eth.GetSerializedSize() + ip.GetSerializedSize() + udp.GetSerializedSize() +
           bth.GetSerializedSize() + (HasAeth() ? aeth.GetSerializedSize() : 0);
}

void
RoceHeaderStack::Serialize(Buffer::Iterator i) const
{
    eth.Serialize(i);
    i.Next(eth.GetSerializedSize());
    ip.Serialize(i);
    i.Next(ip.GetSerializedSize());
    udp.Serialize(i);
    i.Next(udp.GetSerializedSize());
    bth.Serialize(i);
    if (HasAeth())
    {
        i.Next(bth.GetSerializedSize());
        aeth.Serialize(i);
    }
}

uint32_t
RoceHeaderStack::Deserialize(Buffer::Iterator i)
{
    uint32_t n = eth.Deserialize(i);
    if (!IsIpv4())
    {
        return n;
    }
    i.Next(n);
    uint32_t m = ip.Deserialize(i);
    i.Next(m);
    n += m;
    m = udp.Deserialize(i);
    i.Next(m);
    n += m;
    m = bth.Deserialize(i);
    n += m;
    if (HasAeth())
    {
        i.Next(m);
        n += aeth.Deserialize(i);
    }
    return n;
}

namespace roce
{

Ptr<Packet>
MakeDataFrame(const DataFrameSpec& s)
{
    // The payload is followed by the ICRC and the FCS, both zero: corruption is an event of the
    // link, not a checked CRC, so neither is computed, and their bytes are part of the zeroed
    // payload area rather than two trailers to add to every frame.
    Ptr<Packet> p = Create<Packet>(s.payloadBytes + kIcrcBytes + kFcsBytes);
    RoceHeaderStack h;
    h.eth.SetSource(s.srcMac);
    h.eth.SetDestination(s.dstMac);
    h.eth.SetVlanTag(s.priority, 0);
    h.eth.SetEtherType(VlanEthernetHeader::kEtherTypeIpv4);
    h.bth.SetOpcode(s.opcode);
    h.bth.SetDestQp(s.destQp);
    h.bth.SetPsn(s.psn);
    h.aeth.SetSyndrome(s.syndrome);
    h.aeth.SetMsn(s.msn);
    const uint32_t transportHeaders =
        h.bth.GetSerializedSize() + (h.HasAeth() ? h.aeth.GetSerializedSize() : 0);
    const uint32_t udpPayload = transportHeaders + s.payloadBytes + kIcrcBytes;
    h.udp.SetSourcePort(s.udpSrcPort);
    h.udp.SetDestinationPort(kUdpPort);
    // UdpHeader writes the forced size as the UDP length field: header + payload.
    h.udp.ForcePayloadSize(static_cast<uint16_t>(h.udp.GetSerializedSize() + udpPayload));
    h.ip.SetSource(HostAddress(s.srcHost));
    h.ip.SetDestination(HostAddress(s.dstHost));
    h.ip.SetProtocol(17);
    h.ip.SetTtl(64);
    h.ip.SetDscp(static_cast<Ipv4Header::DscpType>(s.priority << 3)); // CS<priority>
    h.ip.SetEcn(s.ecnCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    h.ip.SetPayloadSize(h.udp.GetSerializedSize() + udpPayload);
    h.ip.EnableChecksum();
    p->AddHeader(h);
    return p;
}

FrameInfo
InfoOf(const DataFrameSpec& s)
{
    FrameInfo info;
    info.srcHost = s.srcHost;
    info.dstHost = s.dstHost;
    info.udpSrcPort = s.udpSrcPort;
    info.priority = s.priority;
    info.ecn = s.ecnCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT;
    info.opcode = s.opcode;
    info.destQp = s.destQp & 0xffffff; // BTH: 24 bits
    info.psn = s.psn & 0xffffff;
    info.payloadBytes = s.payloadBytes;
    if (s.opcode == BthHeader::RC_ACKNOWLEDGE)
    {
        info.syndrome = s.syndrome;
        info.msn = s.msn & 0xffffff; // AETH: 24 bits
    }
    return info;
}

bool
ParseDataFrame(const Packet& p, FrameInfo& info)
{
    RoceHeaderStack h;
    p.PeekHeader(h);
    if (!h.IsIpv4())
    {
        return false;
    }
    info.srcHost = HostId(h.ip.GetSource());
    info.dstHost = HostId(h.ip.GetDestination());
    info.udpSrcPort = h.udp.GetSourcePort();
    info.priority = h.eth.GetPcp();
    info.ecn = h.ip.GetEcn();
    info.opcode = h.bth.GetOpcode();
    info.destQp = h.bth.GetDestQp();
    info.psn = h.bth.GetPsn();
    info.payloadBytes = p.GetSize() - kDataFrameOverheadBytes;
    if (h.HasAeth())
    {
        info.payloadBytes -= h.aeth.GetSerializedSize();
        info.syndrome = h.aeth.GetSyndrome();
        info.msn = h.aeth.GetMsn();
    }
    return true;
}

void
MarkCongestionExperienced(Ptr<Packet> p, FrameInfo& info)
{
    info.ecn = Ipv4Header::ECN_CE;
    RoceHeaderStack h;
    p->RemoveHeader(h);
    h.ip.SetEcn(Ipv4Header::ECN_CE);
    h.ip.EnableChecksum();
    p->AddHeader(h);
}

} // namespace roce
} // namespace ns3
