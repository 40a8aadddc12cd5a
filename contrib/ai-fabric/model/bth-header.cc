#include "bth-header.h"

#include "ns3/assert.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BthHeader);

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
BthHeader::SetDestQp(uint32_t qp)
{
    NS_ASSERT_MSG(qp < (1u << 24), "DestQP is a 24-bit field");
    m_destQp = qp;
}

void
BthHeader::Print(std::ostream& os) const
{
    os << "BTH op=0x" << std::hex << unsigned(m_opcode) << std::dec << " qp=" << m_destQp
       << " psn=" << m_psn << (m_ackRequest ? " A" : "") << (m_telemetry ? " INT" : "")
       << (m_becn ? " BECN" : "");
}

void
BthHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(m_opcode);
    i.WriteU8(0x00); // SE=0, M=0, PadCnt=0, TVer=0
    i.WriteHtonU16(m_pkey);
    i.WriteHtonU32(m_destQp | (m_becn ? kBecnBit : 0u)); // FECN, BECN, 6 reserved bits
    i.WriteHtonU32((m_ackRequest ? 0x80000000u : 0u) | (m_telemetry ? kTelemetryBit : 0u) | m_psn);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator i)
{
    m_opcode = i.ReadU8();
    i.ReadU8();
    m_pkey = i.ReadNtohU16();
    const uint32_t qp = i.ReadNtohU32();
    m_destQp = qp & 0xffffff;
    m_becn = (qp & kBecnBit) != 0;
    uint32_t w = i.ReadNtohU32();
    m_ackRequest = (w & 0x80000000u) != 0;
    m_telemetry = (w & kTelemetryBit) != 0;
    m_psn = w & 0xffffff;
    return 12;
}

} // namespace ns3
