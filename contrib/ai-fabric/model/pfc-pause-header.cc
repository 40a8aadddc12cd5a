#include "pfc-pause-header.h"

#include "ns3/assert.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcPauseHeader);

TypeId
PfcPauseHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcPauseHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PfcPauseHeader>();
    return tid;
}

TypeId
PfcPauseHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcPauseHeader::SetPause(uint8_t priority, uint16_t quanta)
{
    NS_ASSERT(priority < 8);
    m_enable |= static_cast<uint16_t>(1u << priority);
    m_quanta[priority] = quanta;
}

void
PfcPauseHeader::Print(std::ostream& os) const
{
    os << "PFC";
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << unsigned(p) << "=" << m_quanta[p];
        }
    }
}

void
PfcPauseHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_enable);
    for (uint16_t q : m_quanta)
    {
        i.WriteHtonU16(q);
    }
    i.WriteU8(0, kBodyBytes - 20);
}

uint32_t
PfcPauseHeader::Deserialize(Buffer::Iterator i)
{
    m_opcode = i.ReadNtohU16();
    m_enable = i.ReadNtohU16() & 0xff;
    for (auto& q : m_quanta)
    {
        q = i.ReadNtohU16();
    }
    return kBodyBytes;
}

} // namespace ns3
