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
 * The byte before DestQP holds IBA's FECN and BECN bits (bits 7 and 6; reserved bits in RoCE,
 * which signals congestion with IP ECN): the model sets BECN on an ACK whose responder saw CE,
 * DCTCP's ECN echo.
 * The model uses the first of the 7 reserved bits after AckReq as its telemetry bit: set, an
 * InbandTelemetry header follows the BTH (data) or the AETH (ACK/NAK).  IBA reserves the bit
 * (senders send 0); it is the model's choice, as HPCC's prototype chose its own encoding.
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

    /** The telemetry bit in the BTH's last word (AckReq is bit 31). */
    static constexpr uint32_t kTelemetryBit = 0x40000000u;
    /** IBA's BECN bit in the BTH's second word (the byte before DestQP). */
    static constexpr uint32_t kBecnBit = 0x40000000u;

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
    /** Whether an InbandTelemetry header follows (the model's bit; see the class). */
    void SetTelemetry(bool t) { m_telemetry = t; }
    /** IBA's backward explicit congestion notification bit (the model's ECN echo). */
    void SetBecn(bool b) { m_becn = b; }
    bool GetBecn() const { return m_becn; }
    bool GetTelemetry() const { return m_telemetry; }
    void SetPartitionKey(uint16_t k) { m_pkey = k; }
    uint16_t GetPartitionKey() const { return m_pkey; }

  private:
    uint8_t m_opcode{RC_SEND_ONLY};
    uint16_t m_pkey{0xffff}; //!< default partition key (IBA 10.9.1.1)
    uint32_t m_destQp{0};
    bool m_ackRequest{false};
    bool m_telemetry{false};
    bool m_becn{false};
    uint32_t m_psn{0};
};

} // namespace ns3

#endif
