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
    if (bth.GetTelemetry())
    {
        os << " | INT hops=" << telemetry.GetHops();
    }
}

uint32_t
RoceHeaderStack::GetSerializedSize() const
{
    return eth.GetSerializedSize() + ip.GetSerializedSize() + udp.GetSerializedSize() +
           bth.GetSerializedSize() + (HasAeth() ? aeth.GetSerializedSize() : 0) +
           (bth.GetTelemetry() ? InbandTelemetry::kHeaderBytes : 0);
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
    i.Next(bth.GetSerializedSize());
    if (HasAeth())
    {
        aeth.Serialize(i);
        i.Next(aeth.GetSerializedSize());
    }
    if (bth.GetTelemetry())
    {
        uint8_t b[InbandTelemetry::kHeaderBytes];
        telemetry.Write(b);
        i.Write(b, sizeof(b));
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
    i.Next(m);
    n += m;
    if (HasAeth())
    {
        m = aeth.Deserialize(i);
        i.Next(m);
        n += m;
    }
    if (bth.GetTelemetry())
    {
        uint8_t b[InbandTelemetry::kHeaderBytes];
        i.Read(b, sizeof(b));
        telemetry.Read(b);
        n += sizeof(b);
    }
    return n;
}

namespace roce
{
namespace
{

/**
 * The bytes of a RoceHeaderStack, written straight from a FrameInfo and the link's MACs: what
 * RoceHeaderStack::Serialize writes, without building its five per-layer ns-3 headers and
 * writing them a field at a time (each packet a trace sink, PCAP or another rank asks for is
 * made here).
 * The packet's metadata names it a RoceHeaderStack (GetInstanceTypeId), which it is byte for
 * byte: RoceHeaderStack reads, prints and removes it.  Test Frames.HeaderBytesAreThoseOfTheStack
 * compares the two writers.
 */
class HeaderBytes : public Header
{
  public:
    static constexpr uint32_t kIp = 18;  //!< offset of the IPv4 header
    static constexpr uint32_t kUdp = 38; //!< of the UDP header
    static constexpr uint32_t kBth = 46; //!< of the BTH
    static constexpr uint32_t kAeth = 58; //!< of an ACK's AETH

    /** Write the headers of the frame \p s describes, with the link's MACs. */
    void Write(const FrameInfo& s, Mac48Address srcMac, Mac48Address dstMac)
    {
        NS_ASSERT_MSG(s.destQp < (1u << 24), "DestQP is a 24-bit field");
        NS_ASSERT_MSG(s.priority < 8, "the 802.1Q PCP is a 3-bit field");
        const bool ack = s.opcode == BthHeader::RC_ACKNOWLEDGE;
        const bool sack = ack && AethHeader::HasPsnWord(s.syndrome);
        const uint32_t aeth = sack ? 8 : ack ? 4 : 0;
        const uint32_t telemetry = s.hasTelemetry ? InbandTelemetry::kHeaderBytes : 0;
        m_size = kAeth + aeth + telemetry;
        dstMac.CopyTo(m_b);
        srcMac.CopyTo(m_b + 6);
        Put16(12, VlanEthernetHeader::kTpid8021Q);
        Put16(14, static_cast<uint16_t>(s.priority << 13)); // PCP, DEI 0, VID 0
        Put16(16, VlanEthernetHeader::kEtherTypeIpv4);
        const uint32_t udpLength = 8 + 12 + aeth + telemetry + s.payloadBytes + kIcrcBytes;
        m_b[kIp] = 0x45; // version 4, IHL 5
        // DSCP CS<priority>, or the trimmed mark.
        const uint8_t dscp = s.trimmed ? kTrimmedDscp : static_cast<uint8_t>(s.priority << 3);
        m_b[kIp + 1] = static_cast<uint8_t>((dscp << 2) | s.ecn);
        Put16(kIp + 2, static_cast<uint16_t>(20 + udpLength));
        Put32(kIp + 4, 0); // identification, flags, fragment offset
        m_b[kIp + 8] = 64; // TTL
        m_b[kIp + 9] = 17; // UDP
        Put32(kIp + 12, HostAddressBits(s.srcHost));
        Put32(kIp + 16, HostAddressBits(s.dstHost));
        SetChecksum();
        Put16(kUdp, s.udpSrcPort);
        Put16(kUdp + 2, kUdpPort);
        Put16(kUdp + 4, static_cast<uint16_t>(udpLength));
        Put16(kUdp + 6, 0); // no UDP checksum
        m_b[kBth] = s.opcode;
        m_b[kBth + 1] = 0; // SE, M, PadCnt, TVer
        Put16(kBth + 2, 0xffff); // default partition key
        Put32(kBth + 4, s.destQp | (s.ecnEcho ? BthHeader::kBecnBit : 0));
        // AckReq 0
        Put32(kBth + 8, (s.psn & 0xffffff) | (s.hasTelemetry ? BthHeader::kTelemetryBit : 0));
        if (ack)
        {
            Put32(kAeth, (uint32_t(s.syndrome) << 24) | (s.msn & 0xffffff));
        }
        if (sack)
        {
            Put32(kAeth + 4, s.sackPsn & 0xffffff);
        }
        if (s.hasTelemetry)
        {
            s.telemetry.Write(m_b + kAeth + aeth);
        }
    }

    TypeId GetInstanceTypeId() const override { return RoceHeaderStack::GetTypeId(); }
    void Print(std::ostream& os) const override { os << "RoCEv2 headers, " << m_size << " bytes"; }
    uint32_t GetSerializedSize() const override { return m_size; }
    void Serialize(Buffer::Iterator i) const override { i.Write(m_b, m_size); }
    uint32_t Deserialize(Buffer::Iterator i) override
    {
        i.Read(m_b, kAeth);
        m_size = kAeth;
        if (m_b[kBth] == BthHeader::RC_ACKNOWLEDGE)
        {
            i.Read(m_b + kAeth, 4);
            m_size += 4;
            if (AethHeader::HasPsnWord(m_b[kAeth]))
            {
                i.Read(m_b + kAeth + 4, 4);
                m_size += 4;
            }
        }
        if (m_b[kBth + 8] & (BthHeader::kTelemetryBit >> 24))
        {
            i.Read(m_b + m_size, InbandTelemetry::kHeaderBytes);
            m_size += InbandTelemetry::kHeaderBytes;
        }
        return m_size;
    }

  private:
    void Put16(uint32_t at, uint16_t v)
    {
        m_b[at] = static_cast<uint8_t>(v >> 8);
        m_b[at + 1] = static_cast<uint8_t>(v);
    }

    void Put32(uint32_t at, uint32_t v)
    {
        Put16(at, static_cast<uint16_t>(v >> 16));
        Put16(at + 2, static_cast<uint16_t>(v));
    }

    /** The IPv4 header checksum (RFC 1071) over the header with the field zero. */
    void SetChecksum()
    {
        Put16(kIp + 10, 0);
        uint32_t sum = 0;
        for (uint32_t j = kIp; j < kIp + 20; j += 2)
        {
            sum += (uint32_t(m_b[j]) << 8) | m_b[j + 1];
        }
        while (sum >> 16)
        {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        Put16(kIp + 10, static_cast<uint16_t>(~sum));
    }

    uint8_t m_b[kAeth + 8 + InbandTelemetry::kHeaderBytes];
    uint32_t m_size{kAeth};
};

} // namespace

Ptr<Packet>
MakeDataFrame(const FrameInfo& info, Mac48Address srcMac, Mac48Address dstMac)
{
    // The payload is followed by the ICRC and the FCS, both zero: corruption is an event of the
    // link, not a checked CRC, so neither is computed, and their bytes are part of the zeroed
    // payload area rather than two trailers to add to every frame.
    Ptr<Packet> p = Create<Packet>(info.payloadBytes + kIcrcBytes + kFcsBytes);
    HeaderBytes h;
    h.Write(info, srcMac, dstMac);
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
        info.ecnEcho = s.ecnEcho;
        if (AethHeader::HasPsnWord(s.syndrome))
        {
            info.sackPsn = s.sackPsn & 0xffffff;
        }
    }
    if (s.telemetry)
    {
        info.hasTelemetry = true;
        info.telemetry = *s.telemetry;
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
    info.trimmed = h.ip.GetDscp() == kTrimmedDscp;
    info.opcode = h.bth.GetOpcode();
    info.destQp = h.bth.GetDestQp();
    info.ecnEcho = h.bth.GetBecn();
    info.psn = h.bth.GetPsn();
    info.payloadBytes = p.GetSize() - kDataFrameOverheadBytes;
    if (h.HasAeth())
    {
        info.payloadBytes -= h.aeth.GetSerializedSize();
        info.syndrome = h.aeth.GetSyndrome();
        info.msn = h.aeth.GetMsn();
        info.sackPsn = h.aeth.IsSelective() ? h.aeth.GetSackPsn() : 0;
    }
    info.hasTelemetry = h.bth.GetTelemetry();
    if (info.hasTelemetry)
    {
        info.payloadBytes -= InbandTelemetry::kHeaderBytes;
        info.telemetry = h.telemetry;
    }
    return true;
}

} // namespace roce
} // namespace ns3
