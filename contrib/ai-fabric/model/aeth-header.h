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
 *
 * Selective repeat (RdmaQueuePair's RetransmissionMode) adds a selective NAK, NAK code 5
 * (kNakSelective; codes 5 to 31 are reserved in IBA): the BTH PSN is the frame the responder
 * expects next, as in a sequence-error NAK, and a second 32-bit word after the AETH carries
 * the PSN of the out-of-order frame that arrived (8 reserved bits, then the PSN), as IRN's
 * NACK carries its cumulative and selective acknowledgements (Mittal et al., "Revisiting
 * Network Support for RDMA", SIGCOMM 2018).  Such an AETH is 8 bytes.
 *
 * A frame a switch trimmed (FabricSwitch's Trimming) is answered by NAK code 6
 * (kNakTrimmed, also reserved in IBA), laid out as a selective NAK: the BTH PSN is the frame
 * expected next and the second word the PSN of the trimmed frame, which the requester resends
 * at once (NDP's and Ultra Ethernet's NACK of a trimmed packet).
 */
class AethHeader : public Header
{
  public:
    /** ACK with the "invalid credit count" field: end-to-end credits are not modelled. */
    static constexpr uint8_t kAck = 0x1f;
    /** NAK: PSN sequence error (go back to the BTH PSN). */
    static constexpr uint8_t kNakSequenceError = 0x60;
    /** NAK code 5 (reserved in IBA): a selective NAK, with the SACK PSN word. */
    static constexpr uint8_t kNakSelective = 0x65;
    /** NAK code 6 (reserved in IBA): a trimmed frame arrived, its PSN in the second word. */
    static constexpr uint8_t kNakTrimmed = 0x66;

    /** Whether an AETH of \p syndrome carries the second (PSN) word: the selective NAKs. */
    static constexpr bool HasPsnWord(uint8_t syndrome)
    {
        return syndrome == kNakSelective || syndrome == kNakTrimmed;
    }

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override { return IsSelective() ? 8 : 4; }
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetSyndrome(uint8_t s) { m_syndrome = s; }
    uint8_t GetSyndrome() const { return m_syndrome; }
    bool IsNak() const { return (m_syndrome >> 5) == 0x3; }
    /** Whether it is a selective NAK (kNakSelective or kNakTrimmed), which carries a PSN. */
    bool IsSelective() const { return HasPsnWord(m_syndrome); }
    /** The PSN of the out-of-order (or trimmed) frame a selective NAK reports (24 bits). */
    void SetSackPsn(uint32_t psn) { m_sackPsn = psn & 0xffffff; }
    uint32_t GetSackPsn() const { return m_sackPsn; }
    /** Message sequence number: messages completed at the responder (24 bits). */
    void SetMsn(uint32_t msn) { m_msn = msn & 0xffffff; }
    uint32_t GetMsn() const { return m_msn; }

  private:
    uint8_t m_syndrome{kAck};
    uint32_t m_msn{0};
    uint32_t m_sackPsn{0};
};

} // namespace ns3

#endif
