#ifndef AI_FABRIC_PFC_PAUSE_HEADER_H
#define AI_FABRIC_PFC_PAUSE_HEADER_H

#include "ns3/header.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief IEEE 802.1Qbb priority-based flow control frame body (MAC control opcode 0x0101).
 *
 * Follows an untagged Ethernet header (EtherType 0x8808, destination 01:80:C2:00:00:01):
 * opcode(16) | priority-enable vector(16) | eight pause times of 16 bits in quanta of 512 bit
 * times | zero padding to the 64-byte minimum frame (802.1Qbb clause 36.1.2; 802.3 annex 31D).
 * A pause time of zero for an enabled class resumes it (XON).
 */
class PfcPauseHeader : public Header
{
  public:
    static constexpr uint16_t kOpcodePfc = 0x0101; //!< 802.3 annex 31D PFC opcode
    static constexpr uint32_t kBitsPerQuantum = 512; //!< pause quantum = 512 bit times
    static constexpr uint32_t kBodyBytes = 46;       //!< 20 bytes of fields + 26 of padding

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override { return kBodyBytes; }
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /** Enable class \p priority (0..7) with a pause time of \p quanta (0 = resume). */
    void SetPause(uint8_t priority, uint16_t quanta);
    bool IsEnabled(uint8_t priority) const { return (m_enable >> priority) & 1; }
    uint16_t GetQuanta(uint8_t priority) const { return m_quanta[priority]; }
    uint16_t GetOpcode() const { return m_opcode; }

  private:
    uint16_t m_opcode{kOpcodePfc};
    uint16_t m_enable{0};
    std::array<uint16_t, 8> m_quanta{};
};

} // namespace ns3

#endif
