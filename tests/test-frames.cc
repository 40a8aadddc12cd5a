// Wire format: frame sizes and field round trips against the RoCEv2 / 802.1Qbb layouts.
#include "fabric-fixture.h"

#include "ns3/ethernet-trailer.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
const Mac48Address kSrcMac("02:00:00:00:01:0a"); //!< the link's MACs the frames are built with
const Mac48Address kDstMac("02:00:00:00:ff:03");

/** The packet of the frame \p spec describes, as a port makes it for a trace sink. */
Ptr<Packet>
FrameOf(const DataFrameSpec& spec)
{
    return roce::MakeDataFrame(roce::InfoOf(spec), kSrcMac, kDstMac);
}
} // namespace

TEST(Frames, DataFrameSizeIsPayloadPlusHeaders)
{
    // Eth+802.1Q 18, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4 (shared/REFERENCES.md).
    for (uint32_t payload : {1u, 256u, 1024u, 4096u})
    {
        DataFrameSpec spec;
        spec.payloadBytes = payload;
        Ptr<Packet> p = FrameOf(spec);
        EXPECT_EQ(p->GetSize(), payload + 18 + 20 + 8 + 12 + 4 + 4);
    }
    // Preamble+SFD 8 and IFG 12 on the wire; frames pad to 64 bytes.
    EXPECT_EQ(roce::WireBytesForPayload(4096), 4096u + 66 + 20);
    EXPECT_EQ(roce::WireBytesForPayload(1), 67u + 20);
    EXPECT_EQ(roce::WireBytesForFrame(30), 64u + 20);
}

TEST(Frames, DataFrameFieldsRoundTrip)
{
    DataFrameSpec spec;
    spec.srcHost = 7;
    spec.dstHost = 1234;
    spec.udpSrcPort = 50001;
    spec.priority = 5;
    spec.opcode = BthHeader::RC_SEND_MIDDLE;
    spec.destQp = 0xabcdef;
    spec.psn = 0x123456;
    spec.payloadBytes = 1000;
    Ptr<Packet> p = FrameOf(spec);
    FrameInfo info;
    ASSERT_TRUE(roce::ParseDataFrame(*p, info));
    EXPECT_EQ(info.srcHost, 7u);
    EXPECT_EQ(info.dstHost, 1234u);
    EXPECT_EQ(info.udpSrcPort, 50001);
    EXPECT_EQ(info.priority, 5);
    EXPECT_EQ(info.ecn, Ipv4Header::ECN_ECT0);
    EXPECT_EQ(info.opcode, BthHeader::RC_SEND_MIDDLE);
    EXPECT_EQ(info.destQp, 0xabcdefu);
    EXPECT_EQ(info.psn, 0x123456u);
    EXPECT_EQ(info.payloadBytes, 1000u);

    // The bytes on the wire: 802.1Q TPID, PCP, EtherType IPv4, UDP port 4791, UDP length.
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    EXPECT_EQ((b[12] << 8) | b[13], 0x8100);
    EXPECT_EQ(b[14] >> 5, 5);
    EXPECT_EQ((b[16] << 8) | b[17], 0x0800);
    EXPECT_EQ(b[18], 0x45); // IPv4, IHL 5
    EXPECT_EQ(b[18 + 1] & 0x3, 0x2); // ECT(0)
    EXPECT_EQ((b[18 + 2] << 8) | b[18 + 3], 20 + 8 + 12 + 1000 + 4); // IPv4 total length
    EXPECT_EQ(b[18 + 9], 17);                                        // UDP
    EXPECT_EQ((b[38 + 2] << 8) | b[38 + 3], 4791);
    EXPECT_EQ((b[38 + 4] << 8) | b[38 + 5], 8 + 12 + 1000 + 4); // UDP length
    EXPECT_EQ(b[46], BthHeader::RC_SEND_MIDDLE);

    // A port marks a frame CE in its info; the packet it makes for a trace sink says so.
    FrameInfo carried = roce::InfoOf(spec);
    carried.ecn = Ipv4Header::ECN_CE;
    p = roce::MakeDataFrame(carried, kSrcMac, kDstMac);
    ASSERT_TRUE(roce::ParseDataFrame(*p, info));
    EXPECT_EQ(info.ecn, Ipv4Header::ECN_CE);
    EXPECT_EQ(carried, info);
    EXPECT_EQ(p->GetSize(), 1000u + 66);
}

namespace
{
/** Frames of every kind the transport sends, fields at their widest: a data frame, a one-byte
 * frame without ECN, a NAK (its MSN wider than AETH's 24 bits) and a CNP. */
std::vector<DataFrameSpec>
VariedFrames()
{
    DataFrameSpec data;
    data.srcHost = 3;
    data.dstHost = 70000;
    data.udpSrcPort = 60001;
    data.priority = 3;
    data.opcode = BthHeader::RC_SEND_FIRST;
    data.destQp = 0xfedcba;
    data.psn = 0xfffffe;
    data.payloadBytes = 4096;
    DataFrameSpec small = data;
    small.priority = 0;
    small.ecnCapable = false;
    small.opcode = BthHeader::RC_SEND_ONLY;
    small.payloadBytes = 1;
    DataFrameSpec ack = data;
    ack.priority = 7;
    ack.ecnCapable = false;
    ack.opcode = BthHeader::RC_ACKNOWLEDGE;
    ack.payloadBytes = 0;
    ack.syndrome = AethHeader::kNakSequenceError;
    ack.msn = 0x1abcdef;
    DataFrameSpec sack = ack;
    sack.syndrome = AethHeader::kNakSelective;
    sack.sackPsn = 0x1234567; // 24 bits kept
    DataFrameSpec trimNak = sack;
    trimNak.syndrome = AethHeader::kNakTrimmed;
    DataFrameSpec cnp = ack;
    cnp.opcode = BthHeader::CNP;
    cnp.payloadBytes = 16;
    // HPCC's: a data frame with the telemetry two switches stamped, and an ACK echoing it.
    static const InbandTelemetry stamped = []() {
        InbandTelemetry t;
        t.Push(InbandTelemetry::RateCode(100000000000ull), MicroSeconds(17), 123456789, 30000);
        t.Push(InbandTelemetry::RateCode(400000000000ull), Seconds(2), 1ull << 40, 1ull << 40);
        return t;
    }();
    DataFrameSpec stampedData = data;
    stampedData.telemetry = &stamped;
    DataFrameSpec echo = ack;
    echo.syndrome = AethHeader::kAck;
    echo.telemetry = &stamped;
    DataFrameSpec echoSack = sack;
    echoSack.telemetry = &stamped;
    // DCTCP's: an ACK with the ECN echo (BTH BECN).
    DataFrameSpec ecnEcho = echo;
    ecnEcho.telemetry = nullptr;
    ecnEcho.ecnEcho = true;
    return {data, small, ack, sack, trimNak, cnp, stampedData, echo, echoSack, ecnEcho};
}
} // namespace

TEST(Frames, CarriedInfoIsWhatTheBytesSay)
{
    // Ports pass InfoOf(spec) along instead of parsing: it must be what a parse would read.
    for (const DataFrameSpec& spec : VariedFrames())
    {
        FrameInfo parsed;
        Ptr<Packet> p = FrameOf(spec);
        ASSERT_TRUE(roce::ParseDataFrame(*p, parsed));
        EXPECT_EQ(roce::InfoOf(spec), parsed) << "opcode " << unsigned(spec.opcode);
        // Hops take the frame's size from its info, not from the packet.
        EXPECT_EQ(roce::FrameBytes(roce::InfoOf(spec)), p->GetSize()) << "opcode " << unsigned(spec.opcode);
    }
}

namespace
{
/** The frame \p s describes as ns-3's per-layer headers write it (RoceHeaderStack), the
 * reference for MakeDataFrame's own writer; \p ecn overrides the spec's codepoint.  The MACs
 * are kSrcMac and kDstMac. */
std::vector<uint8_t>
StackBytes(const DataFrameSpec& s, Ipv4Header::EcnType ecn)
{
    RoceHeaderStack h;
    h.eth.SetSource(kSrcMac);
    h.eth.SetDestination(kDstMac);
    h.eth.SetVlanTag(s.priority, 0);
    h.eth.SetEtherType(VlanEthernetHeader::kEtherTypeIpv4);
    h.bth.SetOpcode(s.opcode);
    h.bth.SetDestQp(s.destQp);
    h.bth.SetPsn(s.psn);
    h.aeth.SetSyndrome(s.syndrome);
    h.aeth.SetMsn(s.msn);
    h.aeth.SetSackPsn(s.sackPsn);
    h.bth.SetTelemetry(s.telemetry != nullptr);
    h.bth.SetBecn(s.ecnEcho);
    if (s.telemetry)
    {
        h.telemetry = *s.telemetry;
    }
    const uint32_t udpPayload = 12 + (h.HasAeth() ? h.aeth.GetSerializedSize() : 0) +
                                (s.telemetry ? InbandTelemetry::kHeaderBytes : 0) + s.payloadBytes +
                                roce::kIcrcBytes;
    h.udp.SetSourcePort(s.udpSrcPort);
    h.udp.SetDestinationPort(roce::kUdpPort);
    h.udp.ForcePayloadSize(static_cast<uint16_t>(8 + udpPayload));
    h.ip.SetSource(roce::HostAddress(s.srcHost));
    h.ip.SetDestination(roce::HostAddress(s.dstHost));
    h.ip.SetProtocol(17);
    h.ip.SetTtl(64);
    h.ip.SetDscp(static_cast<Ipv4Header::DscpType>(s.priority << 3));
    h.ip.SetEcn(ecn);
    h.ip.SetPayloadSize(8 + udpPayload);
    h.ip.EnableChecksum();
    Ptr<Packet> p = Create<Packet>(s.payloadBytes + roce::kIcrcBytes + roce::kFcsBytes);
    p->AddHeader(h);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

std::vector<uint8_t>
BytesOf(const Ptr<Packet>& p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}
} // namespace

TEST(Frames, HeaderBytesAreThoseOfTheStack)
{
    // MakeDataFrame writes the header bytes itself (no per-layer header objects); ns-3's
    // Ipv4Header, UdpHeader and ours must read the same bytes, the IPv4 checksum included,
    // with and without a CE mark.
    for (const DataFrameSpec& spec : VariedFrames())
    {
        Ptr<Packet> p = FrameOf(spec);
        const auto ecn = spec.ecnCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT;
        EXPECT_EQ(BytesOf(p), StackBytes(spec, ecn)) << "opcode " << unsigned(spec.opcode);
        FrameInfo info = roce::InfoOf(spec);
        info.ecn = Ipv4Header::ECN_CE;
        EXPECT_EQ(BytesOf(roce::MakeDataFrame(info, kSrcMac, kDstMac)),
                  StackBytes(spec, Ipv4Header::ECN_CE))
            << "CE, opcode " << unsigned(spec.opcode);
    }
}

TEST(Frames, PfcFrameIsMinimumSizeMacControl)
{
    PfcPauseHeader pfc;
    pfc.SetPause(3, 0xffff);
    VlanEthernetHeader eth;
    eth.SetEtherType(VlanEthernetHeader::kEtherTypeMacControl);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);
    p->AddHeader(eth);
    p->AddTrailer(EthernetTrailer());
    EXPECT_EQ(p->GetSize(), roce::kMinFrameBytes);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    EXPECT_EQ((b[12] << 8) | b[13], 0x8808);
    EXPECT_EQ((b[14] << 8) | b[15], 0x0101);
    EXPECT_EQ((b[16] << 8) | b[17], 1 << 3);             // class-enable vector
    EXPECT_EQ((b[18 + 2 * 3] << 8) | b[19 + 2 * 3], 0xffff); // pause time of class 3
    FrameInfo info;
    EXPECT_FALSE(roce::ParseDataFrame(*p, info));
}

TEST(Frames, AckCarriesAethAfterBth)
{
    DataFrameSpec spec;
    spec.opcode = BthHeader::RC_ACKNOWLEDGE;
    spec.syndrome = AethHeader::kNakSequenceError;
    spec.msn = 77;
    spec.psn = 1234;
    Ptr<Packet> p = FrameOf(spec);
    EXPECT_EQ(p->GetSize(), roce::kDataFrameOverheadBytes + 4); // BTH + AETH, no payload
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    EXPECT_EQ(b[46], BthHeader::RC_ACKNOWLEDGE);
    EXPECT_EQ(b[58], AethHeader::kNakSequenceError); // AETH right after the 12-byte BTH
    EXPECT_EQ((b[59] << 16) | (b[60] << 8) | b[61], 77);
    FrameInfo info;
    ASSERT_TRUE(roce::ParseDataFrame(*p, info));
    EXPECT_EQ(info.payloadBytes, 0u);
    EXPECT_EQ(info.syndrome, AethHeader::kNakSequenceError);
    EXPECT_EQ(info.msn, 77u);
    EXPECT_EQ(info.psn, 1234u);
}

TEST(Frames, SelectiveNakCarriesItsSackPsnAfterTheAeth)
{
    DataFrameSpec spec;
    spec.opcode = BthHeader::RC_ACKNOWLEDGE;
    spec.syndrome = AethHeader::kNakSelective;
    spec.msn = 5;
    spec.psn = 1234;
    spec.sackPsn = 0xabcdef;
    Ptr<Packet> p = FrameOf(spec);
    EXPECT_EQ(p->GetSize(), roce::kDataFrameOverheadBytes + 8); // AETH and the SACK word
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    EXPECT_EQ(b[58], AethHeader::kNakSelective);
    EXPECT_EQ(b[62], 0); // reserved
    EXPECT_EQ((b[63] << 16) | (b[64] << 8) | b[65], 0xabcdef);
    RoceHeaderStack h;
    EXPECT_EQ(p->PeekHeader(h), 66u);
    EXPECT_TRUE(h.aeth.IsNak() && h.aeth.IsSelective());
    EXPECT_EQ(h.aeth.GetSackPsn(), 0xabcdefu);
    FrameInfo info;
    ASSERT_TRUE(roce::ParseDataFrame(*p, info));
    EXPECT_EQ(info.payloadBytes, 0u);
    EXPECT_EQ(info.sackPsn, 0xabcdefu);
    EXPECT_EQ(info.psn, 1234u);
}

TEST(Frames, ATrimmedFrameIsItsHeadersWithTheTrimmedDscp)
{
    // What a trimming switch forwards: the data frame's headers in the trim class, its DSCP
    // remarked, the IPv4 and UDP lengths those of the cut frame.
    DataFrameSpec spec;
    spec.srcHost = 3;
    spec.dstHost = 9;
    spec.priority = 3;
    spec.opcode = BthHeader::RC_SEND_MIDDLE;
    spec.psn = 4321;
    spec.payloadBytes = 4096;
    FrameInfo cut = roce::InfoOf(spec);
    cut.payloadBytes = 0;
    cut.trimmed = true;
    cut.priority = 7;
    Ptr<Packet> p = roce::MakeDataFrame(cut,
                                        Mac48Address("00:00:00:00:00:01"),
                                        Mac48Address("00:00:00:00:00:02"));
    EXPECT_EQ(p->GetSize(), roce::kDataFrameOverheadBytes);
    EXPECT_EQ(roce::FrameBytes(cut), roce::kDataFrameOverheadBytes);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    EXPECT_EQ(b[14] >> 5, 7);                         // PCP: the trim class
    EXPECT_EQ(b[19] >> 2, roce::kTrimmedDscp);        // DSCP remarked
    EXPECT_EQ((b[20] << 8) | b[21], 20 + 8 + 12 + 4); // IPv4 total length: no payload
    FrameInfo parsed;
    ASSERT_TRUE(roce::ParseDataFrame(*p, parsed));
    EXPECT_EQ(parsed, cut);
    EXPECT_TRUE(parsed.trimmed);
    // Whole frames of every class (DSCP CS0 to CS7) are not read as trimmed.
    for (uint8_t c = 0; c < 8; ++c)
    {
        FrameInfo whole = roce::InfoOf(spec);
        whole.priority = c;
        ASSERT_TRUE(roce::ParseDataFrame(*roce::MakeDataFrame(whole,
                                                              Mac48Address("00:00:00:00:00:01"),
                                                              Mac48Address("00:00:00:00:00:02")),
                                         parsed));
        EXPECT_FALSE(parsed.trimmed) << "class " << unsigned(c);
        EXPECT_EQ(parsed, whole);
    }
}

namespace
{
/** Every data frame a trace sink was handed, with the port whose trace it was. */
struct SeenFrames
{
    struct Seen
    {
        Ptr<FabricNetDevice> port;
        bool outgoing;
        Mac48Address src;
        Mac48Address dst;
        FrameInfo info;
    };

    std::vector<Seen> frames;

    static void Record(SeenFrames* s, Ptr<FabricNetDevice> port, bool outgoing, Ptr<const Packet> p)
    {
        RoceHeaderStack h;
        p->PeekHeader(h);
        Seen seen{port, outgoing, h.eth.GetSource(), h.eth.GetDestination(), {}};
        if (roce::ParseDataFrame(*p, seen.info))
        {
            s->frames.push_back(seen);
        }
    }
};
} // namespace

TEST(Frames, PacketsAreMadeOnlyForSinksWithTheirLinksMacs)
{
    // A data frame travels as its FrameInfo: a transfer without packet trace sinks makes no
    // packet, with the statistics every scenario keeps (ns-3 numbers packets in the order they
    // are made: the probe after the run is the next).
    {
        Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
        FabricStatsHelper stats;
        stats.Install(net, MessageSourceHelper());
        RdmaHelper rdma;
        rdma.Install(net);
        auto [a, b] = rdma.Connect(net, 0, 1);
        a->PostSend(1 << 20, {});
        const uint64_t before = Create<Packet>()->GetUid();
        Simulator::Run();
        EXPECT_EQ(b->GetCounters().payloadReceived, uint64_t(1) << 20);
        EXPECT_EQ(Create<Packet>()->GetUid(), before + 1);
        EXPECT_EQ(stats.GetPayloadDelivered(), uint64_t(1) << 20);
        Simulator::Destroy();
    }
    // With sinks on both links of host 0 -> switch -> host 1, each packet carries the MACs of
    // the link it is on (a routed fabric's hop-by-hop rewrite) and the frame's info.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    SeenFrames seen;
    for (uint32_t h : {0u, 1u})
    {
        const Ptr<FabricNetDevice> host = net->GetEndpoint(h)->GetPort(0);
        const Ptr<FabricNetDevice> sw = host->GetFabricChannel()->GetPeer(host);
        for (const Ptr<FabricNetDevice>& port : {host, sw})
        {
            port->TraceConnectWithoutContext(
                "Tx",
                MakeBoundCallback(&SeenFrames::Record, &seen, port, true));
            port->TraceConnectWithoutContext(
                "Rx",
                MakeBoundCallback(&SeenFrames::Record, &seen, port, false));
        }
    }
    a->PostSend(64 << 10, {});
    Simulator::Run();
    const uint32_t frames = (64 << 10) / net->GetEndpoint(0)->GetPort(0)->GetPayloadMtu();
    // Data frames and their ACKs, each seen leaving and arriving on two links.
    EXPECT_GE(seen.frames.size(), 2u * 2 * 2 * frames);
    uint32_t data = 0;
    for (const auto& s : seen.frames)
    {
        const Ptr<FabricNetDevice> peer = s.port->GetFabricChannel()->GetPeer(s.port);
        EXPECT_EQ(s.src, s.outgoing ? s.port->GetMacAddress() : peer->GetMacAddress());
        EXPECT_EQ(s.dst, s.outgoing ? peer->GetMacAddress() : s.port->GetMacAddress());
        data += s.info.payloadBytes > 0 && s.info.srcHost == 0 && s.info.dstHost == 1;
    }
    EXPECT_EQ(data, 2u * 2 * frames); // every data frame: 2 links, sent and received

    // A drop's packet too: a frame host 0 has no route for is dropped at its port, as sent.
    struct Dropped
    {
        std::vector<Mac48Address> macs;

        void Record(Ptr<const Packet> p, DropReason)
        {
            RoceHeaderStack h;
            p->PeekHeader(h);
            macs = {h.eth.GetSource(), h.eth.GetDestination()};
        }
    } dropped;

    const Ptr<FabricNetDevice> host = net->GetEndpoint(0)->GetPort(0);
    host->TraceConnectWithoutContext("Drop", MakeCallback(&Dropped::Record, &dropped));
    DataFrameSpec nowhere;
    nowhere.dstHost = 99;
    EXPECT_FALSE(net->GetEndpoint(0)->Send(nowhere));
    const Mac48Address sw = host->GetFabricChannel()->GetPeer(host)->GetMacAddress();
    EXPECT_EQ(dropped.macs, (std::vector<Mac48Address>{host->GetMacAddress(), sw}));
    Simulator::Destroy();
}

TEST(FrameQueue, KeepsOrderAcrossWrapAndGrowth)
{
    // A port's class queue is a ring that doubles when full: frames leave in the order they
    // came whether the ring wrapped or grew while wrapped.
    FrameQueue q;
    EXPECT_TRUE(q.IsEmpty());
    uint32_t pushed = 0;
    uint32_t popped = 0;
    const auto push = [&](uint32_t n) {
        for (uint32_t i = 0; i < n; ++i, ++pushed)
        {
            FrameInfo info;
            info.psn = pushed;
            q.Push(info, static_cast<uint16_t>(pushed % 7));
        }
    };
    const auto pop = [&](uint32_t n) {
        for (uint32_t i = 0; i < n; ++i, ++popped)
        {
            ASSERT_FALSE(q.IsEmpty());
            EXPECT_EQ(q.Front().info.psn, popped);
            EXPECT_EQ(q.Front().ingressPort, popped % 7);
            q.Pop();
        }
    };
    push(3); // 4 slots
    pop(2);
    push(3); // wraps: slots 3, 0, 1 after 2
    push(4); // full while wrapped: grows to 8 (push(20) below grows it to 16, then 32)
    EXPECT_EQ(q.GetSize(), 8u);
    pop(5);
    push(20);
    pop(23);
    EXPECT_TRUE(q.IsEmpty());
    EXPECT_EQ(pushed, popped);
    q.Clear();
    push(1);
    pop(1);
}
