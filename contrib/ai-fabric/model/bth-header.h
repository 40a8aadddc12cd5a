#ifndef AI_FABRIC_BTH_HEADER_H
#define AI_FABRIC_BTH_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand Base Transport Header (12 bytes), as carried by RoCEv2 over UDP port 4791.
 *
 * Layout per the InfiniBand Architecture Specification vol. 1, 9.2 (and RoCEv2 annex A17):
 * OpCode(8) | SE(1) M(1) PadCnt(2) TVer(4) | P_Key(16) | reserved(8) | DestQP(24) |
 * AckReq(1) reserved(7) | PSN(24).
 */
class BthHeader : public Header
{
  public:
    /** Reliable-connection opcodes used by the fabric (IBA table 38). */
    enum Opcode : uint8_t
    {
        RC_SEND_FIRST = 0x00,
        RC_SEND_MIDDLE = 0x01,
        RC_SEND_LAST = 0x02,
        RC_SEND_ONLY = 0x04,
        RC_ACKNOWLEDGE = 0x11,
        CNP = 0x81, //!< RoCEv2 congestion notification packet
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override { return 12; }
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetOpcode(uint8_t op) { m_opcode = op; }
    uint8_t GetOpcode() const { return m_opcode; }
    void SetDestQp(uint32_t qp);
    uint32_t GetDestQp() const { return m_destQp; }
    void SetPsn(uint32_t psn) { m_psn = psn & 0xffffff; }
    uint32_t GetPsn() const { return m_psn; }
    void SetAckRequest(bool a) { m_ackRequest = a; }
    bool GetAckRequest() const { return m_ackRequest; }
    void SetPartitionKey(uint16_t k) { m_pkey = k; }
    uint16_t GetPartitionKey() const { return m_pkey; }

  private:
    uint8_t m_opcode{RC_SEND_ONLY};
    uint16_t m_pkey{0xffff}; //!< default partition key (IBA 10.9.1.1)
    uint32_t m_destQp{0};
    bool m_ackRequest{false};
    uint32_t m_psn{0};
};

} // namespace ns3

#endif
