#include "vlan-ethernet-header.h"

#include "ns3/address-utils.h"
#include "ns3/assert.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(VlanEthernetHeader);

TypeId
VlanEthernetHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::VlanEthernetHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<VlanEthernetHeader>();
    return tid;
}

TypeId
VlanEthernetHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
VlanEthernetHeader::SetVlanTag(uint8_t pcp, uint16_t vid)
{
    NS_ASSERT_MSG(pcp < 8 && vid < 4096, "802.1Q PCP is 3 bits and VID 12 bits");
    m_tagged = true;
    m_pcp = pcp;
    m_vid = vid;
}

void
VlanEthernetHeader::Print(std::ostream& os) const
{
    os << m_source << " > " << m_destination;
    if (m_tagged)
    {
        os << " 802.1Q pcp=" << unsigned(m_pcp) << " vid=" << m_vid;
    }
    os << " type=0x" << std::hex << m_etherType << std::dec;
}

uint32_t
VlanEthernetHeader::GetSerializedSize() const
{
    return m_tagged ? 18 : 14;
}

void
VlanEthernetHeader::Serialize(Buffer::Iterator i) const
{
    WriteTo(i, m_destination);
    WriteTo(i, m_source);
    if (m_tagged)
    {
        i.WriteHtonU16(kTpid8021Q);
        i.WriteHtonU16(static_cast<uint16_t>((m_pcp << 13) | m_vid)); // DEI = 0
    }
    i.WriteHtonU16(m_etherType);
}

uint32_t
VlanEthernetHeader::Deserialize(Buffer::Iterator i)
{
    ReadFrom(i, m_destination);
    ReadFrom(i, m_source);
    uint16_t type = i.ReadNtohU16();
    m_tagged = (type == kTpid8021Q);
    if (m_tagged)
    {
        uint16_t tci = i.ReadNtohU16();
        m_pcp = static_cast<uint8_t>(tci >> 13);
        m_vid = tci & 0x0fff;
        type = i.ReadNtohU16();
    }
    else
    {
        m_pcp = 0;
        m_vid = 0;
    }
    m_etherType = type;
    return GetSerializedSize();
}

} // namespace ns3
