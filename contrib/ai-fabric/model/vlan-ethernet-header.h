#ifndef AI_FABRIC_VLAN_ETHERNET_HEADER_H
#define AI_FABRIC_VLAN_ETHERNET_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Ethernet II header with an optional IEEE 802.1Q tag.
 *
 * 14 bytes untagged, 18 bytes tagged (TPID 0x8100, then PCP/DEI/VID).  Preamble, SFD and the
 * inter-frame gap are not bytes of the frame; FabricNetDevice charges them on the wire
 * (IEEE 802.3 clause 3; 802.1Q clause 9).
 */
class VlanEthernetHeader : public Header
{
  public:
    static constexpr uint16_t kTpid8021Q = 0x8100;    //!< 802.1Q tag protocol identifier
    static constexpr uint16_t kEtherTypeIpv4 = 0x0800; //!< IPv4 EtherType
    static constexpr uint16_t kEtherTypeMacControl = 0x8808; //!< MAC control (PFC) EtherType

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetDestination(Mac48Address a) { m_destination = a; }
    void SetSource(Mac48Address a) { m_source = a; }
    Mac48Address GetDestination() const { return m_destination; }
    Mac48Address GetSource() const { return m_source; }
    void SetEtherType(uint16_t t) { m_etherType = t; }
    uint16_t GetEtherType() const { return m_etherType; }
    /** Add an 802.1Q tag with priority code point \p pcp (0..7) and VLAN id \p vid. */
    void SetVlanTag(uint8_t pcp, uint16_t vid);
    bool HasVlanTag() const { return m_tagged; }
    uint8_t GetPcp() const { return m_pcp; }   //!< 802.1Q priority code point (0 if untagged)
    uint16_t GetVid() const { return m_vid; } //!< 802.1Q VLAN identifier

  private:
    Mac48Address m_destination;
    Mac48Address m_source;
    bool m_tagged{false};
    uint8_t m_pcp{0};
    uint16_t m_vid{0};
    uint16_t m_etherType{kEtherTypeIpv4};
};

} // namespace ns3

#endif
