#include "icrc-trailer.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IcrcTrailer);

TypeId
IcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IcrcTrailer>();
    return tid;
}

TypeId
IcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
IcrcTrailer::Print(std::ostream& os) const
{
    os << "ICRC=0x" << std::hex << m_icrc << std::dec;
}

void
IcrcTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(4);
    end.WriteHtonU32(m_icrc);
}

uint32_t
IcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(4);
    m_icrc = end.ReadNtohU32();
    return 4;
}

} // namespace ns3
