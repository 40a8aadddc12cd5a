#include "aeth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AethHeader);

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
AethHeader::Print(std::ostream& os) const
{
    os << (IsNak() ? "NAK" : "ACK") << " syndrome=0x" << std::hex << unsigned(m_syndrome)
       << std::dec << " msn=" << m_msn;
    if (IsSelective())
    {
        os << " sack=" << m_sackPsn;
    }
}

void
AethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32((uint32_t(m_syndrome) << 24) | m_msn);
    if (IsSelective())
    {
        i.WriteHtonU32(m_sackPsn);
    }
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator i)
{
    const uint32_t w = i.ReadNtohU32();
    m_syndrome = static_cast<uint8_t>(w >> 24);
    m_msn = w & 0xffffff;
    if (IsSelective())
    {
        m_sackPsn = i.ReadNtohU32() & 0xffffff;
        return 8;
    }
    return 4;
}

} // namespace ns3
