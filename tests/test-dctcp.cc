// DCTCP for RDMA (DctcpCongestionControl): each ACK moves alpha and the rate as RFC 8257 says
// (hand-computed steps), the responder's ACKs echo exactly the CE marks of the frames they
// cover (its state machine with coalesced ACKs), and an incast holds the queue near the
// marking step with the bottleneck busy.
#include "fabric-fixture.h"

#include "ns3/dctcp-congestion-control.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
void
Ack(const Ptr<RdmaCongestionControl>& cc, uint64_t acked, uint64_t newly, uint64_t next, bool ece)
{
    RdmaCongestionControl::AckFeedback ack;
    ack.ackedSeq = acked;
    ack.newlyAcked = newly;
    ack.nextSeq = next;
    ack.ecnEcho = ece;
    cc->NotifyAck(ack);
}
} // namespace

TEST(Dctcp, EachAckMovesAlphaAndTheRateAsRfc8257Says)
{
    Ptr<DctcpCongestionControl> cc = CreateObject<DctcpCongestionControl>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Attach(DataRate("100Gbps"));
    const auto rate = [&cc]() { return double(cc->GetRate().GetBitRate()); };
    // The first ACK begins the first observation window, to frame 10.
    Ack(cc, 1, 1, 10, false);
    EXPECT_EQ(rate(), 100e9);
    // An echo: the rate is cut by alpha / 2 (alpha starts at 1), once until an ACK past 11.
    Ack(cc, 2, 1, 11, true);
    EXPECT_EQ(rate(), 50e9);
    Ack(cc, 3, 1, 12, true);
    EXPECT_EQ(rate(), 50e9);
    for (uint64_t a = 4; a <= 10; ++a)
    {
        Ack(cc, a, 1, a + 9, false);
    }
    // Past frame 10 the window ends: 11 frames, 2 marked; the window cut, so no increase.
    Ack(cc, 11, 1, 20, false);
    double alpha = 15.0 / 16 + 2.0 / 11 / 16;
    EXPECT_EQ(rate(), 50e9);
    // A window without marks and without a cut: alpha decays, the rate rises 1 Gb/s.
    Ack(cc, 21, 10, 30, false);
    alpha *= 15.0 / 16;
    EXPECT_EQ(rate(), 51e9);
    // The next echo cuts by the new alpha.
    Ack(cc, 22, 1, 31, true);
    EXPECT_NEAR(rate(), 51e9 * (1 - alpha / 2), 1);
    EXPECT_EQ(cc->GetWindowBytes(), uint64_t(std::ceil(rate() * 10e-6 / 8)));
}

namespace
{
/** What crossed a connection: the data frames the responder got, the ACKs the requester got. */
struct Seen
{
    std::vector<std::pair<uint32_t, bool>> data; //!< PSN, CE
    std::vector<std::pair<uint32_t, bool>> acks; //!< PSN acknowledged, echo
};

void
OnResponder(Seen* s, const FrameInfo& f)
{
    if (f.opcode != BthHeader::RC_ACKNOWLEDGE && f.opcode != BthHeader::CNP)
    {
        s->data.emplace_back(f.psn, f.ecn == Ipv4Header::ECN_CE);
    }
}

void
OnRequester(Seen* s, const FrameInfo& f)
{
    if (f.opcode == BthHeader::RC_ACKNOWLEDGE)
    {
        s->acks.emplace_back(f.psn, f.ecnEcho);
    }
}

void
OnDone(Time* t, uint64_t, uint64_t)
{
    *t = Max(*t, Simulator::Now());
}

/** Step marking at \p kPer25G bytes per 25 Gb/s (DCTCP's K). */
FabricNetworkHelper
StepMarking(uint32_t kPer25G)
{
    FabricNetworkHelper helper;
    helper.SetDeviceAttribute("EcnKminPer25G",
                              QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, kPer25G)));
    helper.SetDeviceAttribute("EcnKmaxPer25G",
                              QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, kPer25G)));
    helper.SetDeviceAttribute("EcnPmax", DoubleValue(1.0));
    return helper;
}

RdmaHelper
DctcpRdma(uint32_t ackInterval)
{
    RdmaHelper rdma = RdmaRunning(DctcpCongestionControl::GetTypeId());
    rdma.SetQueuePairAttribute("AckInterval", UintegerValue(ackInterval));
    return rdma;
}
} // namespace

TEST(Dctcp, CoalescedAcksEchoExactlyTheMarksOfTheFramesTheyCover)
{
    // Four senders into one port with a low step (20 KB at 100G): marks come and go.  ACKs
    // every 4 frames; a change of marking acknowledges the frames before it at once.
    const uint32_t senders = 4;
    Ptr<FabricNetwork> net = StepMarking(5000).Install(Star(senders + 1, DataRate("100Gbps"), 2));
    net->AssignStreams(0);
    RdmaHelper rdma = DctcpRdma(4);
    rdma.Install(net);
    std::vector<Seen> seen(senders);
    std::vector<Ptr<RdmaQueuePair>> requesters;
    Time last;
    for (uint32_t s = 0; s < senders; ++s)
    {
        auto [requester, responder] = rdma.Connect(net, s + 1, 0);
        requesters.push_back(requester);
        requester->PostSend(2 << 20, MakeBoundCallback(&OnDone, &last));
    }
    // Frames to host 0 come from each sender's queue pair; the endpoint traces all of them,
    // told apart by source host.
    net->GetEndpoint(0)->TraceConnectWithoutContext(
        "Deliver",
        MakeBoundCallback(
            +[](std::vector<Seen>* v, const FrameInfo& f) { OnResponder(&(*v)[f.srcHost - 1], f); },
            &seen));
    for (uint32_t s = 0; s < senders; ++s)
    {
        net->GetEndpoint(s + 1)->TraceConnectWithoutContext(
            "Deliver",
            MakeBoundCallback(&OnRequester, &seen[s]));
    }
    Simulator::Run();
    RdmaQpCounters totals;
    for (uint32_t h = 0; h <= senders; ++h)
    {
        totals += net->GetEndpoint(h)->GetObject<RdmaNic>()->GetTotals();
    }
    Simulator::Destroy();
    EXPECT_EQ(totals.cnpsSent, 0u) << "DCTCP echoes; it sends no CNPs";
    uint64_t marked = 0;
    uint64_t echoes = 0;
    for (const Seen& s : seen)
    {
        // Data arrive in order on one path; each ACK covers the frames after the last one.
        std::size_t next = 0;
        for (const auto& [psn, echo] : s.acks)
        {
            ASSERT_LT(next, s.data.size());
            while (next < s.data.size())
            {
                EXPECT_EQ(s.data[next].second, echo) << "frame " << s.data[next].first;
                if (s.data[next++].first == psn)
                {
                    break;
                }
            }
            echoes += echo;
        }
        EXPECT_EQ(next, s.data.size());
        for (const auto& d : s.data)
        {
            marked += d.second;
        }
    }
    EXPECT_GT(marked, 0u);
    EXPECT_GT(echoes, 0u);
    EXPECT_LT(marked, totals.framesSent) << "not every frame marked";
}

TEST(Dctcp, IncastHoldsTheQueueNearTheMarkingStepWithTheBottleneckBusy)
{
    // 8 senders of 8 MiB into one 100G port, K = 100 KB: once alpha has learnt the marking
    // (the first round trips overshoot), the queue swings about K, never far above it, and the
    // port stays busy.
    const uint32_t senders = 8;
    const uint32_t k = 100000;
    Ptr<FabricNetwork> net = StepMarking(k / 4).Install(Star(senders + 1, DataRate("100Gbps"), 2));
    net->AssignStreams(0);
    RdmaHelper rdma = DctcpRdma(1);
    rdma.Install(net);
    Time last;
    for (uint32_t s = 0; s < senders; ++s)
    {
        rdma.Connect(net, s + 1, 0).first->PostSend(8 << 20, MakeBoundCallback(&OnDone, &last));
    }

    struct Queue
    {
        uint64_t peak{0};
        double area{0}; //!< byte-seconds
        Time since;
        uint64_t bytes{0};
    } q;

    const Time from = MicroSeconds(300);
    Ptr<FabricNetDevice> port = net->GetPort(senders + 1, 0);
    port->TraceConnectWithoutContext(
        "QueueBytes",
        MakeBoundCallback(
            +[](Queue* q, Time from, uint8_t, uint64_t, uint64_t bytes) {
                const Time now = Simulator::Now();
                if (now >= from)
                {
                    q->peak = std::max(q->peak, bytes);
                    q->area += double(q->bytes) * (now - Max(q->since, from)).GetSeconds();
                }
                q->bytes = bytes;
                q->since = now;
            },
            &q,
            from));
    const Time rtt = net->GetLargestBaseRtt();
    Simulator::Run();
    const FabricTotals totals = Totals(net);
    Simulator::Destroy();
    EXPECT_EQ(totals.framesDropped, 0u);
    EXPECT_EQ(totals.pfcPausesSent, 0u);
    const double ideal = senders * double(8 << 20) / 4096 * (4096 + 66 + 20) * 8 / 100e9;
    const double busy = ideal / last.GetSeconds();
    EXPECT_GT(busy, 0.9);
    // Every frame past K is marked, and the senders hear of it a round trip later: the queue
    // swings about K and overshoots it by no more than the line rate over that round trip.
    const double mean = q.area / (last - from).GetSeconds();
    const double overshoot = 100e9 / 8 * rtt.GetSeconds();
    EXPECT_LT(q.peak, k + overshoot);
    EXPECT_GT(mean, 0.75 * k);
    EXPECT_LT(mean, 1.1 * k);
    std::cout << "DCTCP incast: bottleneck busy " << busy << ", queue after 300 us: mean " << mean
              << " B, peak " << q.peak << " B (K " << k << ", K + overshoot " << k + overshoot
              << " B)" << std::endl;
}
