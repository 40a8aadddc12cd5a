// TIMELY (TimelyCongestionControl): each completion event moves the rate as the paper's
// Algorithm 1 says (hand-computed steps), the queue pair times one frame per segment, and an
// incast under TIMELY keeps the bottleneck busy while its queue stays near the thresholds.
#include "fabric-fixture.h"

#include "ns3/timely-congestion-control.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

TEST(Timely, EachCompletionMovesTheRateAsAlgorithmOneSays)
{
    Ptr<TimelyCongestionControl> cc = CreateObject<TimelyCongestionControl>();
    cc->Attach(DataRate("100Gbps"));
    const auto rate = [&cc]() { return double(cc->GetRate().GetBitRate()); };
    EXPECT_EQ(rate(), 100e9);
    cc->NotifyRtt(MicroSeconds(30)); // the first completion sets the previous rtt only
    EXPECT_EQ(rate(), 100e9);
    // Above THigh: x (1 - 0.8 (1 - 500/600)) = x 13/15; rtt_diff = 0.875 x 570 us = 498.75 us.
    cc->NotifyRtt(MicroSeconds(600));
    EXPECT_NEAR(rate(), 100e9 * 13 / 15, 1);
    // Between the thresholds, falling: rtt_diff = 0.125 x 498.75 - 0.875 x 400 = -287.65625
    // us, gradient < 0: + 10 Mb/s.
    cc->NotifyRtt(MicroSeconds(200));
    EXPECT_NEAR(rate(), 100e9 * 13 / 15 + 10e6, 1);
    // Rising: rtt_diff = 0.125 x -287.65625 + 0.875 x 5 = -31.5820... us: still < 0, + 10 Mb/s.
    cc->NotifyRtt(MicroSeconds(205));
    EXPECT_NEAR(rate(), 100e9 * 13 / 15 + 20e6, 1);
    // Rising faster: rtt_diff = 0.125 x -31.58203125 + 0.875 x 20 = 13.5522... us, gradient
    // 0.677612... (MinRtt 20 us): x (1 - 0.8 x 0.677612...).
    cc->NotifyRtt(MicroSeconds(225));
    const double rttDiff = (0.125 * (0.125 * -287.65625 + 0.875 * 5) + 0.875 * 20) * 1e-6;
    const double cut = (100e9 * 13 / 15 + 20e6) * (1 - 0.8 * rttDiff / 20e-6);
    EXPECT_NEAR(rate(), cut, 1);
    // Falling by 1 us a completion between the thresholds: the first still cuts (the average
    // is positive), then the gradient is negative; the fifth negative one in a row and those
    // after add 5 steps (hyper-active increase).
    double expected = cut;
    double diff = rttDiff;
    uint32_t inARow = 0;
    for (int i = 1; i <= 8; ++i)
    {
        cc->NotifyRtt(MicroSeconds(225 - i));
        diff = 0.125 * diff + 0.875 * -1e-6;
        if (diff <= 0)
        {
            expected += (++inARow >= 5 ? 5 : 1) * 10e6;
        }
        else
        {
            expected *= 1 - 0.8 * diff / 20e-6;
        }
        EXPECT_NEAR(rate(), expected, 1) << "completion " << i;
    }
    EXPECT_EQ(inARow, 7u);
    EXPECT_NEAR(expected - cut * (1 - 0.8 * (0.125 * rttDiff - 0.875e-6) / 20e-6), 19 * 10e6, 1)
        << "steps 1, 1, 1, 1, 5, 5, 5 after the cut";
    // Below TLow: + 10 Mb/s, and the run of negative gradients is broken: the next two, just
    // above TLow, add one step each.
    double previous = 225e-6 - 8e-6;
    for (const double rtt : {49.9e-6, 50.5e-6, 50.4e-6})
    {
        cc->NotifyRtt(Seconds(rtt));
        diff = 0.125 * diff + 0.875 * (rtt - previous);
        previous = rtt;
        ASSERT_LT(diff, 0);
        expected += 10e6;
        EXPECT_NEAR(rate(), expected, 1) << "rtt " << rtt;
    }
    // Far above THigh the cut nears 1 - Beta; the rate never falls below MinRate.
    for (int i = 0; i < 20; ++i)
    {
        cc->NotifyRtt(Seconds(1));
    }
    EXPECT_EQ(rate(), 1e9);
}

namespace
{
/** What the completions of one queue pair said. */
struct Completions
{
    std::vector<Time> rtts;
    std::vector<double> rates;
};
} // namespace

TEST(Timely, AnIdlePathsRttIsItsDelaysAndTheRateStaysAtLineRate)
{
    // One flow through one switch at 100G, 2 m cables: every completion times the same path.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma = RdmaRunning(TimelyCongestionControl::GetTypeId());
    rdma.Install(net);
    Ptr<RdmaQueuePair> qp = rdma.Connect(net, 1, 0).first;
    Completions c;
    qp->GetCongestionControl()->TraceConnectWithoutContext(
        "Rtt",
        MakeBoundCallback(
            +[](Completions* c, Time t) { c->rtts.push_back(t); },
            &c));
    Time done;
    qp->PostSend(1 << 20,
                 MakeBoundCallback(
                     +[](Time* t, uint64_t, uint64_t) { *t = Simulator::Now(); },
                     &done));
    Simulator::Run();
    Simulator::Destroy();
    // 1 MiB is 256 frames of 4096 bytes: a sample per 4 (16 KiB).
    ASSERT_EQ(c.rtts.size(), 64u);
    // The timed frame is handed to the NIC as the one before it starts on the wire: it waits
    // one serialization (4,182 wire bytes at 100G: 334.56 ns), crosses two links (two more,
    // two 10 ns cables, the 500 ns pipeline), and its ACK (90 wire bytes: 7.2 ns a link)
    // returns the same way; less the one serialization TIMELY takes off: 1,723.52 ns.
    const double data = 4182 * 8 / 100e9;
    const double ack = 90 * 8 / 100e9;
    const Time rtt = Seconds(3 * data + 2 * 10e-9 + 500e-9 + 2 * ack + 2 * 10e-9 + 500e-9 - data);
    for (const Time& t : c.rtts)
    {
        EXPECT_EQ(t.GetNanoSeconds(), rtt.GetNanoSeconds());
    }
    EXPECT_EQ(c.rtts.front().GetPicoSeconds(), 1723520);
    // Below TLow the rate only rises, and it starts at line rate: the flow never slows.
    EXPECT_EQ(qp->GetCongestionControl()->GetRate(), DataRate("100Gbps"));
    EXPECT_LT(done.GetSeconds(), (256 * data + 2e-6) * 1.001);
}

TEST(Timely, IncastSharesTheBottleneckWithoutPausesAtTheSlowPaceOfItsTenGigabitSteps)
{
    // 8 senders of 16 MiB into one 100G port (32 MiB of buffer: no pause).  The first round
    // trip's queue pushes the rtt past THigh, which cuts every sender; they end near the fair
    // share (12.5 Gb/s each) with the bottleneck nearly full, but the paper's steps (10 Mb/s a
    // completion, set for 10G) take long to climb back: the incast ends at about a third of the
    // bottleneck's rate, where DCQCN here keeps it over 90% busy.
    const uint32_t senders = 8;
    Ptr<FabricNetwork> net =
        FabricNetworkHelper().Install(Star(senders + 1, DataRate("100Gbps"), 2));
    net->AssignStreams(0);
    RdmaHelper rdma = RdmaRunning(TimelyCongestionControl::GetTypeId());
    rdma.Install(net);
    std::vector<Completions> c(senders);
    Time last;
    for (uint32_t s = 0; s < senders; ++s)
    {
        Ptr<RdmaQueuePair> qp = rdma.Connect(net, s + 1, 0).first;
        Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
        cc->TraceConnectWithoutContext("Rtt",
                                       MakeBoundCallback(
                                           +[](Completions* c, Time t) { c->rtts.push_back(t); },
                                           &c[s]));
        cc->TraceConnectWithoutContext(
            "Rate",
            MakeBoundCallback(
                +[](Completions* c, double, double r) { c->rates.push_back(r); },
                &c[s]));
        qp->PostSend(16 << 20,
                     MakeBoundCallback(
                         +[](Time* t, uint64_t, uint64_t) { *t = Max(*t, Simulator::Now()); },
                         &last));
    }
    Simulator::Run();
    const FabricTotals totals = Totals(net);
    Simulator::Destroy();
    EXPECT_EQ(totals.pfcPausesSent, 0u);
    EXPECT_EQ(totals.framesDropped, 0u);
    double sum = 0;
    for (const Completions& q : c)
    {
        ASSERT_FALSE(q.rates.empty());
        EXPECT_LT(*std::min_element(q.rates.begin(), q.rates.end()), 50e9) << "never cut";
        sum += q.rates.back();
    }
    EXPECT_GT(sum, 0.8 * 100e9);
    EXPECT_LT(sum, 1.05 * 100e9);
    for (const Completions& q : c)
    {
        EXPECT_NEAR(q.rates.back() / (sum / senders), 1.0, 0.05) << "unfair";
        // The first round trip's queue passes THigh, but never far: each completion above it
        // cuts.
        EXPECT_GT(*std::max_element(q.rtts.begin(), q.rtts.end()), MicroSeconds(500));
        EXPECT_LT(*std::max_element(q.rtts.begin(), q.rtts.end()), MicroSeconds(600));
    }
    const double ideal = senders * double(16 << 20) / 4096 * 4182 * 8 / 100e9;
    const double utilization = ideal / last.GetSeconds();
    EXPECT_GT(utilization, 0.25);
    EXPECT_LT(utilization, 0.5);
    // DCQCN on the same incast.
    Ptr<FabricNetwork> dcqcnNet =
        FabricNetworkHelper().Install(Star(senders + 1, DataRate("100Gbps"), 2));
    dcqcnNet->AssignStreams(0); // RED's marking draws: the same whatever ran before
    RdmaHelper dcqcn = RdmaRunning(DcqcnCongestionControl::GetTypeId());
    dcqcn.Install(dcqcnNet);
    Time dcqcnLast;
    for (uint32_t s = 0; s < senders; ++s)
    {
        dcqcn.Connect(dcqcnNet, s + 1, 0)
            .first->PostSend(
                16 << 20,
                MakeBoundCallback(
                    +[](Time* t, uint64_t, uint64_t) { *t = Max(*t, Simulator::Now()); },
                    &dcqcnLast));
    }
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_GT(ideal / dcqcnLast.GetSeconds(), 0.9);
    std::cout << "TIMELY incast: final rates sum to " << sum / 1e9 << " Gb/s; bottleneck busy "
              << utilization << " (TIMELY), " << ideal / dcqcnLast.GetSeconds() << " (DCQCN)"
              << std::endl;
}
