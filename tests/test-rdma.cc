// RDMA reliable connections: line rate when lossless; every byte delivered by go-back-N when
// the fabric drops; frame accounting closes with retransmissions and acknowledgements.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;
using namespace aifabric_test;

namespace
{
struct Completions
{
    std::vector<std::pair<uint64_t, Time>> done; //!< message id, time
    void Record(uint64_t id, uint64_t) { done.emplace_back(id, Simulator::Now()); }
};

uint64_t
EndpointDeliveries(Ptr<FabricNetwork> net)
{
    uint64_t n = 0;
    for (uint32_t h = 0; h < net->GetNHosts(); ++h)
    {
        n += net->GetEndpoint(h)->GetFramesDelivered();
    }
    return n;
}
/** What a lossy incast into host 0 (PFC off) did. */
struct LossyIncast
{
    uint64_t completions{0};
    std::vector<uint64_t> received; //!< payload each responder accepted
    uint64_t retransmitted{0};
    FabricTotals totals;
    uint64_t delivered{0}; //!< frames delivered to hosts
};

/** \p senders each post \p messages of \p bytes to host 0 through a \p buffer switch. */
LossyIncast
RunLossyIncast(uint32_t senders, uint64_t bytes, uint32_t messages, const char* buffer,
               uint32_t startingPsn)
{
    FabricNetworkHelper helper;
    helper.SetMmuAttribute("PfcEnabled", BooleanValue(false));
    helper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize(buffer)));
    Ptr<FabricNetwork> net = helper.Install(Star(senders + 1, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("StartingPsn", UintegerValue(startingPsn));
    // Longer than a full go-back window takes to drain through the congested port, so a queue
    // pair is not starved past its retry count.
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(400)));
    rdma.Install(net);
    Completions c;
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        qps.push_back(rdma.Connect(net, s, 0));
        for (uint32_t m = 0; m < messages; ++m)
        {
            qps.back().first->PostSend(bytes, MakeCallback(&Completions::Record, &c));
        }
    }
    Simulator::Run();
    LossyIncast r;
    r.completions = c.done.size();
    for (const auto& [requester, responder] : qps)
    {
        r.received.push_back(responder->GetCounters().payloadReceived);
        r.retransmitted += requester->GetCounters().payloadRetransmitted;
    }
    r.totals = Totals(net);
    r.delivered = EndpointDeliveries(net);
    Simulator::Destroy();
    return r;
}
} // namespace

TEST(Rdma, LosslessMessageAtLineRateWithoutRetransmission)
{
    const uint64_t bytes = 64ull << 20;
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("400Gbps"), 2));
    RdmaHelper rdma;
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    Completions c;
    a->PostSend(bytes, MakeCallback(&Completions::Record, &c));
    Simulator::Run();

    ASSERT_EQ(c.done.size(), 1u);
    EXPECT_EQ(b->GetCounters().payloadReceived, bytes);
    EXPECT_EQ(a->GetCounters().payloadRetransmitted, 0u);
    EXPECT_EQ(a->GetCounters().framesSent, bytes / 4096);
    EXPECT_EQ(b->GetCounters().acksSent, bytes / 4096); // AckInterval 1
    const double goodput = double(bytes) * 8 / c.done[0].second.GetSeconds();
    const double closedForm = 400e9 * 4096.0 / roce::WireBytesForPayload(4096);
    EXPECT_NEAR(goodput / closedForm, 1.0, 0.005);
    EXPECT_LT(goodput, closedForm);
    Simulator::Destroy();
}

class RdmaPathMtu : public testing::TestWithParam<uint32_t>
{
};

TEST_P(RdmaPathMtu, MessageIsCutIntoMtuFramesAndRunsAtItsGoodput)
{
    const uint32_t mtu = GetParam();
    const uint64_t bytes = (4ull << 20) + 1; // one short last frame
    FabricNetworkHelper helper;
    helper.SetDeviceAttribute("PayloadMtu", UintegerValue(mtu));
    Ptr<FabricNetwork> net = helper.Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    Completions c;
    a->PostSend(bytes, MakeCallback(&Completions::Record, &c));
    Simulator::Run();
    ASSERT_EQ(c.done.size(), 1u);
    EXPECT_EQ(a->GetCounters().framesSent, (bytes + mtu - 1) / mtu);
    EXPECT_EQ(b->GetCounters().payloadReceived, bytes);
    const double goodput = double(bytes) * 8 / c.done[0].second.GetSeconds();
    const double closedForm = 100e9 * mtu / roce::WireBytesForPayload(mtu);
    EXPECT_NEAR(goodput / closedForm, 1.0, 0.005) << mtu;
    Simulator::Destroy();
}

INSTANTIATE_TEST_SUITE_P(IbaPathMtus, RdmaPathMtu, testing::Values(1024u, 2048u, 4096u));

TEST(Rdma, MessagesOnOneQueuePairCompleteInOrder)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("AckInterval", UintegerValue(8));
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    Completions c;
    for (uint64_t bytes : {1u, 4096u, 4097u, 100000u, 1u << 20})
    {
        a->PostSend(bytes, MakeCallback(&Completions::Record, &c));
    }
    Simulator::Run();
    ASSERT_EQ(c.done.size(), 5u);
    for (uint64_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(c.done[i].first, i);
    }
    EXPECT_EQ(b->GetCounters().payloadReceived, 1u + 4096 + 4097 + 100000 + (1u << 20));
    EXPECT_EQ(a->GetOutstandingMessages(), 0u);
    Simulator::Destroy();
}

TEST(Rdma, LossyIncastDeliversEveryByteByRetransmission)
{
    const uint64_t bytes = 1 << 20;
    const LossyIncast r = RunLossyIncast(8, bytes, 1, "1MiB", 0);
    EXPECT_EQ(r.completions, 8u);
    for (uint64_t received : r.received)
    {
        EXPECT_EQ(received, bytes);
    }
    EXPECT_GT(r.totals.framesDropped, 0u);
    EXPECT_GT(r.retransmitted, 0u);
    // Every frame hosts sent (data, retransmissions, ACKs, NAKs) was delivered or dropped.
    EXPECT_EQ(r.totals.hostDataFramesSent, r.delivered + r.totals.framesDropped);
}

TEST(Rdma, LosslessIncastWithPfcNeedsNoRetransmission)
{
    const uint32_t senders = 8;
    FabricNetworkHelper helper;
    helper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("1MiB")));
    Ptr<FabricNetwork> net = helper.Install(Star(senders + 1, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.Install(net);
    Completions c;
    std::vector<Ptr<RdmaQueuePair>> requesters;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        requesters.push_back(rdma.Connect(net, s, 0).first);
        requesters.back()->PostSend(1 << 20, MakeCallback(&Completions::Record, &c));
    }
    Simulator::Run();
    EXPECT_EQ(c.done.size(), senders);
    const FabricTotals t = Totals(net);
    EXPECT_EQ(t.framesDropped, 0u);
    EXPECT_GT(t.pfcPausesSent, 0u);
    for (const auto& qp : requesters)
    {
        EXPECT_EQ(qp->GetCounters().payloadRetransmitted, 0u);
        EXPECT_EQ(qp->GetCounters().timeouts, 0u);
    }
    Simulator::Destroy();
}

TEST(Rdma, SpuriousTimeoutsResendOnlyWhatIsUnacknowledged)
{
    // A timeout shorter than the round trip (2 km cables: about 40 us): the requester goes back
    // at 30 us while its first copies are in flight, and is then throttled (as by CNPs) so its
    // resends trail far behind the ACKs of the first copies.  Those ACKs complete the message;
    // the requester must stop there, not resend frames of a message it no longer holds.
    const uint64_t bytes = 64 * 4096;
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2000));
    RdmaHelper rdma;
    rdma.SetNicAttribute("CongestionControl", TypeIdValue(DcqcnCongestionControl::GetTypeId()));
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(30)));
    rdma.Install(net);
    auto [requester, responder] = rdma.Connect(net, 1, 0);
    Completions c;
    requester->PostSend(bytes, MakeCallback(&Completions::Record, &c));
    Ptr<RdmaCongestionControl> cc = requester->GetCongestionControl();
    for (int cut = 0; cut < 7; ++cut)
    {
        Simulator::Schedule(MicroSeconds(31), &RdmaCongestionControl::NotifyCongestion, cc);
    }
    Simulator::Run();
    ASSERT_EQ(c.done.size(), 1u);
    const RdmaQpCounters& sent = requester->GetCounters();
    EXPECT_EQ(sent.timeouts, 1u);
    EXPECT_EQ(responder->GetCounters().payloadReceived, bytes);
    EXPECT_GT(sent.payloadRetransmitted, 0u);
    EXPECT_LT(sent.payloadRetransmitted, bytes / 4) << "resent past the ACKs";
    EXPECT_EQ(sent.payloadSent, bytes + sent.payloadRetransmitted);
    Simulator::Destroy();
}

TEST(Rdma, PsnWrapsAroundInsideMessages)
{
    // Start 100 frames before 2^24: every message here crosses the PSN wrap, and in the lossy
    // incast so do the NAKs and go-back-N retransmissions.
    const uint64_t bytes = 1 << 20; // 256 frames
    const LossyIncast r = RunLossyIncast(4, bytes, 2, "512KiB", (1u << 24) - 100);
    EXPECT_EQ(r.completions, 8u);
    for (uint64_t received : r.received)
    {
        EXPECT_EQ(received, 2 * bytes);
    }
    EXPECT_GT(r.totals.framesDropped, 0u);
    EXPECT_GT(r.retransmitted, 0u);
    EXPECT_EQ(r.totals.hostDataFramesSent, r.delivered + r.totals.framesDropped);
}

TEST(Rdma, QueuePairsBetweenOnePairSpreadOverEcmpPaths)
{
    // Queue pairs of the same two hosts differ only in their UDP source port (RoCEv2's
    // entropy field): ECMP must see them as different flows and use several cores.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(FatTreeTopologyHelper(4).Build());
    RdmaHelper rdma;
    rdma.Install(net);
    const uint32_t qps = 16;
    std::set<uint64_t> ports;
    for (uint32_t q = 0; q < qps; ++q)
    {
        Ptr<RdmaQueuePair> qp = rdma.Connect(net, 0, 15).first; // 15: another pod
        UintegerValue port;
        qp->GetAttribute("UdpSourcePort", port);
        ports.insert(port.Get());
        qp->PostSend(256 << 10, Callback<void, uint64_t, uint64_t>());
    }
    Simulator::Run();
    EXPECT_EQ(ports.size(), qps);
    const FabricTopology& topo = net->GetTopology();
    uint32_t coresUsed = 0;
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (topo.GetNode(n).role != FabricTopology::Role::Core)
        {
            continue;
        }
        uint64_t frames = 0;
        Ptr<Node> node = net->GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            frames += DynamicCast<FabricNetDevice>(node->GetDevice(d))->GetCounters().txFrames;
        }
        coresUsed += frames > 64 ? 1 : 0; // more than one QP's ACKs
    }
    EXPECT_GE(coresUsed, 3u) << "16 flows over 4 cores";
    Simulator::Destroy();
}

TEST(Rdma, DataQueuePairsAreNumberedAboveTheReservedQp0AndQp1)
{
    // IBA reserves QP0 (SMI) and QP1 (GSI); Wireshark decodes frames to QP1 as management
    // datagrams.  Every data frame and ACK must name a QP from 2 up.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.Install(net);
    std::set<uint32_t> destQps;
    struct Seen
    {
        std::set<uint32_t>* qps;

        void Deliver(const FrameInfo& info)
        {
            qps->insert(info.destQp);
        }
    } seen{&destQps};
    for (uint32_t h = 0; h < 2; ++h)
    {
        net->GetEndpoint(h)->TraceConnectWithoutContext("Deliver",
                                                        MakeCallback(&Seen::Deliver, &seen));
    }
    for (uint32_t q = 0; q < 3; ++q)
    {
        auto [a, b] = rdma.Connect(net, 0, 1);
        EXPECT_EQ(a->GetLocalQpn(), roce::kFirstDataQpn + q);
        EXPECT_EQ(b->GetLocalQpn(), roce::kFirstDataQpn + q);
        a->PostSend(64 << 10, Callback<void, uint64_t, uint64_t>());
    }
    Simulator::Run();
    EXPECT_EQ(destQps, (std::set<uint32_t>{2, 3, 4}));
    Simulator::Destroy();
}
