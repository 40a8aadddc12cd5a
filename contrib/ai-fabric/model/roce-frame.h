#ifndef AI_FABRIC_ROCE_FRAME_H
#define AI_FABRIC_ROCE_FRAME_H

#include "aeth-header.h"
#include "bth-header.h"
#include "inband-telemetry.h"
#include "vlan-ethernet-header.h"

#include "ns3/header.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/udp-header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Sizes and addressing of RoCEv2 frames (see shared/REFERENCES.md "Wire format").
 */
namespace roce
{
constexpr uint32_t kPreambleSfdBytes = 8;   //!< IEEE 802.3 preamble + start frame delimiter
constexpr uint32_t kInterFrameGapBytes = 12; //!< IEEE 802.3 minimum inter-packet gap
constexpr uint32_t kPhyOverheadBytes = kPreambleSfdBytes + kInterFrameGapBytes; //!< per frame
constexpr uint32_t kFcsBytes = 4;           //!< Ethernet frame check sequence
constexpr uint32_t kIcrcBytes = 4;          //!< RoCEv2 invariant CRC
constexpr uint32_t kMinFrameBytes = 64;     //!< IEEE 802.3 minimum frame, header to FCS
constexpr uint16_t kUdpPort = 4791;         //!< IANA RoCEv2 UDP destination port
/**
 * The DSCP of a frame a switch trimmed (FrameInfo::trimmed).  Spectrum-4 remarks trimmed
 * packets to a DSCP the operator configures (0-63); the model fixes one, from RFC 2474's pool 2
 * (xxxx11, experimental or local use), so it never equals a class's CS<n> codepoint.
 */
constexpr uint8_t kTrimmedDscp = 3;
/** Ethernet+802.1Q (18) + IPv4 (20) + UDP (8) + BTH (12). */
constexpr uint32_t kDataHeaderBytes = 18 + 20 + 8 + 12;
/** Frame bytes of a data packet besides its payload: headers + ICRC + FCS = 66. */
constexpr uint32_t kDataFrameOverheadBytes = kDataHeaderBytes + kIcrcBytes + kFcsBytes;
/** Frame bytes of an ACK or NAK: a data frame's headers, ICRC and FCS with a 4-byte AETH. */
constexpr uint32_t kAckFrameBytes = kDataFrameOverheadBytes + 4;
/** Bytes a data packet with \p payload bytes occupies on the wire, preamble and IFG included. */
constexpr uint32_t
WireBytesForPayload(uint32_t payload)
{
    uint32_t frame = payload + kDataFrameOverheadBytes;
    return (frame < kMinFrameBytes ? kMinFrameBytes : frame) + kPhyOverheadBytes;
}
/** Bytes on the wire of a frame whose ns-3 packet (header to FCS) has \p frameBytes. */
constexpr uint32_t
WireBytesForFrame(uint32_t frameBytes)
{
    return (frameBytes < kMinFrameBytes ? kMinFrameBytes : frameBytes) + kPhyOverheadBytes;
}
/** Time on a wire of \p bitRate bit/s for a frame of \p frameBytes (header to FCS), in integer
 * picoseconds rounded up: exact for every Ethernet rate that divides 8e12. */
inline int64_t
WirePicoSeconds(uint32_t frameBytes, uint64_t bitRate)
{
    const unsigned __int128 bits =
        static_cast<unsigned __int128>(WireBytesForFrame(frameBytes)) * 8u * 1000000000000ull;
    return static_cast<int64_t>((bits + bitRate - 1) / bitRate);
}
/** The RC SEND opcode of a message's frame: ONLY, FIRST, MIDDLE or LAST (IBA table 38). */
inline uint8_t
SendOpcode(bool first, bool last)
{
    return first && last ? BthHeader::RC_SEND_ONLY
           : first       ? BthHeader::RC_SEND_FIRST
           : last        ? BthHeader::RC_SEND_LAST
                         : BthHeader::RC_SEND_MIDDLE;
}
/** The first QP number a NIC gives a data queue pair: IBA reserves QP0 (subnet management,
 * SMI) and QP1 (general services, GSI), and packet decoders such as Wireshark's read frames to
 * QP1 as management datagrams. */
constexpr uint32_t kFirstDataQpn = 2;
/** A UDP source port for flow entropy, hashed from \p key into the dynamic range 49152-65535
 * (RFC 6335) with Knuth's multiplicative hash. */
inline uint16_t
EntropyPort(uint32_t key)
{
    return static_cast<uint16_t>(49152 + ((key * 2654435761u) >> 18) % 16384);
}
/** The UDP source port of host \p hostId's data queue pair number \p qpn. */
inline uint16_t
QueuePairEntropy(uint32_t hostId, uint32_t qpn)
{
    // Hashed from the host and the QP's ordinal among its NIC's data QPs (1 for the first).
    return EntropyPort(hostId * 40503u + qpn - kFirstDataQpn + 1);
}
/** IPv4 address of fabric host \p hostId as a number: 10.0.0.0/8, host 0 at 10.0.0.1. */
constexpr uint32_t
HostAddressBits(uint32_t hostId)
{
    return 0x0a000001u + hostId;
}

/** IPv4 address of fabric host \p hostId (HostAddressBits). */
inline Ipv4Address
HostAddress(uint32_t hostId)
{
    return Ipv4Address(HostAddressBits(hostId));
}
/** Host id of a fabric IPv4 address (inverse of HostAddress). */
inline uint32_t
HostId(Ipv4Address a)
{
    return a.Get() - HostAddressBits(0);
}
} // namespace roce

/**
 * \ingroup ai-fabric
 * \brief The header stack of a RoCEv2 frame: 802.1Q Ethernet, IPv4, UDP, BTH, and the AETH
 * of an acknowledgement.
 *
 * Each layer is its own ns-3 header class; this one reads or writes them in order in one pass
 * (MakeDataFrame, ParseDataFrame).  Deserialize stops after the Ethernet header when the frame
 * is not IPv4 (check IsIpv4()).
 */
class RoceHeaderStack : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    bool IsIpv4() const { return eth.GetEtherType() == VlanEthernetHeader::kEtherTypeIpv4; }
    /** Whether an AETH follows the BTH (ACK and NAK frames). */
    bool HasAeth() const { return bth.GetOpcode() == BthHeader::RC_ACKNOWLEDGE; }

    VlanEthernetHeader eth; //!< layer 2 with the 802.1Q PCP carrying the traffic class
    Ipv4Header ip;          //!< layer 3 with DSCP and the ECN codepoint
    UdpHeader udp;          //!< destination port 4791, source port as ECMP entropy
    BthHeader bth;          //!< InfiniBand transport header
    AethHeader aeth;        //!< present only when HasAeth()
    /** Present only when the BTH's telemetry bit is set (BthHeader::GetTelemetry) */
    InbandTelemetry telemetry;
};

/** A data frame as it travels: what a hop needs to know of it, and all its header bytes
 * hold (the Ethernet MACs are the link's).  Carried from port to port instead of a packet, so
 * no hop parses headers or touches a packet; roce::MakeDataFrame builds the bytes on demand. */
struct FrameInfo
{
    uint32_t srcHost{0};     //!< sending host id
    uint32_t dstHost{0};     //!< destination host id
    uint16_t udpSrcPort{0};  //!< flow entropy
    uint8_t priority{0};     //!< 802.1Q PCP = traffic class
    uint8_t opcode{0};       //!< BTH opcode
    Ipv4Header::EcnType ecn{Ipv4Header::ECN_NotECT}; //!< ECN codepoint
    uint32_t destQp{0};      //!< BTH destination queue pair
    uint32_t psn{0};         //!< BTH packet sequence number
    uint32_t payloadBytes{0}; //!< transport payload bytes
    uint32_t msn{0};         //!< AETH message sequence number of an ACK/NAK
    uint32_t sackPsn{0};     //!< the PSN word of a selective NAK (AethHeader::HasPsnWord)
    uint8_t syndrome{0};     //!< AETH syndrome of an ACK/NAK
    /** A switch cut the frame to its headers (its payload was dropped; DSCP roce::kTrimmedDscp) */
    bool trimmed{false};
    /** An ACK/NAK's BTH BECN bit: its responder saw the frames it acknowledges CE-marked
     * (ECN echo for DCTCP, RdmaCongestionControl::kEcnEcho; for entropy recycling,
     * RdmaQueuePair's Entropy Recycle, the frame that brought it marked or trimmed) */
    bool ecnEcho{false};
    /** The frame carries an in-band telemetry header (HPCC): \p telemetry holds it */
    bool hasTelemetry{false};
    InbandTelemetry telemetry; //!< what switches stamped (a data frame) or echo (an ACK/NAK)

    bool operator==(const FrameInfo& o) const
    {
        return srcHost == o.srcHost && dstHost == o.dstHost && udpSrcPort == o.udpSrcPort &&
               priority == o.priority && ecn == o.ecn && opcode == o.opcode && destQp == o.destQp &&
               psn == o.psn && payloadBytes == o.payloadBytes && syndrome == o.syndrome &&
               msn == o.msn && sackPsn == o.sackPsn && trimmed == o.trimmed &&
               ecnEcho == o.ecnEcho &&
               hasTelemetry == o.hasTelemetry && (!hasTelemetry || telemetry == o.telemetry);
    }
};

/** What a sender asks for: the fields of a data frame to send (FabricEndpoint::Send). */
struct DataFrameSpec
{
    uint32_t srcHost{0};
    uint32_t dstHost{0};
    uint16_t udpSrcPort{0};
    uint8_t priority{3};
    bool ecnCapable{true};
    uint8_t opcode{BthHeader::RC_SEND_ONLY};
    uint32_t destQp{0};
    uint32_t psn{0};
    uint32_t payloadBytes{0};
    uint8_t syndrome{AethHeader::kAck}; //!< for RC_ACKNOWLEDGE frames
    uint32_t msn{0};                     //!< for RC_ACKNOWLEDGE frames
    uint32_t sackPsn{0};                 //!< for a selective NAK (AethHeader::HasPsnWord)
    bool ecnEcho{false};                 //!< for RC_ACKNOWLEDGE frames: the BECN bit
    /** The telemetry header to carry: an empty one for switches to stamp (a data frame), the
     * data frame's for an ACK/NAK to echo; null for none */
    const InbandTelemetry* telemetry{nullptr};
};

namespace roce
{
/**
 * The bytes (header to FCS) of the frame \p info describes, what its packet's GetSize() says:
 * hops read it here rather than from the packet, which another hop touched long ago.
 */
inline uint32_t
FrameBytes(const FrameInfo& info)
{
    // The AETH of an ACK or NAK: 4 bytes, 8 with a selective NAK's PSN word.
    return kDataFrameOverheadBytes + info.payloadBytes +
           (info.opcode != BthHeader::RC_ACKNOWLEDGE ? 0
            : AethHeader::HasPsnWord(info.syndrome)  ? 8
                                                     : 4) +
           (info.hasTelemetry ? InbandTelemetry::kHeaderBytes : 0);
}

/**
 * Build the RoCEv2 frame \p info describes as it crosses the link from \p srcMac to \p dstMac
 * (headers, AETH for an ACK, zero-filled payload, then the ICRC and FCS as 8 zero bytes: neither
 * is computed).  Frames travel as their FrameInfo; a port builds the packet only for a trace
 * sink, PCAP or a rank boundary (FabricNetDevice::MakePacket), with its link's MACs, as a
 * routed (L3) fabric rewrites them at every hop.
 */
Ptr<Packet> MakeDataFrame(const FrameInfo& info, Mac48Address srcMac, Mac48Address dstMac);
/** The FrameInfo of the frame \p spec describes (what ParseDataFrame reads from its bytes). */
FrameInfo InfoOf(const DataFrameSpec& spec);
/** Classify a frame; false if it is not an IPv4 RoCEv2 data frame. */
bool ParseDataFrame(const Packet& p, FrameInfo& info);
} // namespace roce

} // namespace ns3

#endif
