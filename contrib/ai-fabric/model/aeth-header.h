#ifndef AI_FABRIC_AETH_HEADER_H
#define AI_FABRIC_AETH_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand ACK Extended Transport Header (4 bytes), after the BTH of an ACK or NAK.
 *
 * Syndrome(8) | MSN(24) (IBA vol. 1, 9.3.5).  The syndrome's top bits say ACK (000) or NAK
 * (011); a NAK with code 0 is a PSN sequence error, which asks the sender to go back to the
 * PSN carried in the BTH.
 */
class AethHeader : public Header
{
  public:
    /** ACK with the "invalid credit count" field: end-to-end credits are not modelled. */
    static constexpr uint8_t kAck = 0x1f;
    /** NAK: PSN sequence error (go back to the BTH PSN). */
    static constexpr uint8_t kNakSequenceError = 0x60;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override { return 4; }
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetSyndrome(uint8_t s) { m_syndrome = s; }
    uint8_t GetSyndrome() const { return m_syndrome; }
    bool IsNak() const { return (m_syndrome >> 5) == 0x3; }
    /** Message sequence number: messages completed at the responder (24 bits). */
    void SetMsn(uint32_t msn) { m_msn = msn & 0xffffff; }
    uint32_t GetMsn() const { return m_msn; }

  private:
    uint8_t m_syndrome{kAck};
    uint32_t m_msn{0};
};

} // namespace ns3

#endif
