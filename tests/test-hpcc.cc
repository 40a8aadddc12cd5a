// HPCC (HpccCongestionControl) and the in-band telemetry it reads (InbandTelemetry): records
// keep their fields in their units and wrap as their widths say, each ACK moves the rate as the
// paper's Algorithm 1 says (hand-computed steps), one flow settles where the law's fixed point
// puts it, and an incast keeps the bottleneck busy with a queue far below DCQCN's.
#include "fabric-fixture.h"

#include "ns3/hpcc-congestion-control.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
const uint8_t k100G = InbandTelemetry::RateCode(100000000000ull);
const uint8_t k400G = InbandTelemetry::RateCode(400000000000ull);
} // namespace

TEST(InbandTelemetry, RecordsKeepTheirFieldsInTheirUnits)
{
    EXPECT_EQ(InbandTelemetry::RateCode(56000000000ull), 0) << "not an IEEE 802.3 rate";
    EXPECT_EQ(InbandTelemetry::RateCode(2966400000000ull), 0) << "NVLink's";
    EXPECT_EQ(InbandTelemetry::RateOfCode(k100G), 100000000000ull);
    InbandTelemetry t;
    // 100G: counters in units of 4 x 128 B and 4 x 64 B.
    t.Push(k100G, MicroSeconds(17), 123456789, 30000);
    // 400G: units of 16 x 128 B and 16 x 64 B; the queue saturates, the counter and time wrap.
    t.Push(k400G, Seconds(2), (uint64_t(1) << 40) + 5000, uint64_t(1) << 40);
    ASSERT_EQ(t.GetHops(), 2u);
    const InbandTelemetry::Hop a = t.GetHop(0);
    EXPECT_EQ(a.bitRate, 100000000000ull);
    EXPECT_EQ(a.time, 17000u);
    EXPECT_EQ(a.txBytes, 123456789u / 512 * 512);
    EXPECT_EQ(a.queueBytes, 30000u / 256 * 256);
    const InbandTelemetry::Hop b = t.GetHop(1);
    EXPECT_EQ(b.time, 2000000000u % (1u << 24));
    EXPECT_EQ(b.txBytes, 5000u / 2048 * 2048) << "2^40 bytes is a whole number of wraps";
    EXPECT_EQ(b.queueBytes, 65535u * 1024);
    // The header travels as bytes (PCAP, MPI ranks): 42 of them, read back alike.
    uint8_t bytes[InbandTelemetry::kHeaderBytes];
    t.Write(bytes);
    InbandTelemetry read;
    read.Read(bytes);
    EXPECT_EQ(read, t);
    EXPECT_EQ(bytes[0], 2);
    // Five records fit; a sixth hop marks the header overflowed and keeps the first five.
    for (int i = 0; i < 4; ++i)
    {
        t.Push(k100G, Time(0), 0, 0);
    }
    EXPECT_EQ(t.GetHops(), 5u);
    EXPECT_TRUE(t.Overflowed());
    EXPECT_EQ(t.GetHop(0).time, 17000u);
    // Deltas across a wrap.
    EXPECT_EQ(InbandTelemetry::TimeDelta(5, (1u << 24) - 5), 10u);
    InbandTelemetry::Hop later = a;
    InbandTelemetry::Hop earlier = a;
    later.txBytes = 1000 * 512;
    earlier.txBytes = ((1u << 20) - 24) * uint64_t(512);
    EXPECT_EQ(InbandTelemetry::TxDelta(later, earlier), 1024u * 512);
}

namespace
{
/** An ACK echoing \p t, acknowledging frames below \p acked, the next frame \p next. */
void
Ack(const Ptr<RdmaCongestionControl>& cc, const InbandTelemetry& t, uint64_t acked, uint64_t next)
{
    RdmaCongestionControl::AckFeedback ack;
    ack.ackedSeq = acked;
    ack.nextSeq = next;
    ack.telemetry = &t;
    cc->NotifyAck(ack);
}

/** One record of a 100G hop: \p ns, \p tx bytes sent, \p queue bytes queued. */
InbandTelemetry
At100G(int64_t ns, uint64_t tx, uint64_t queue)
{
    InbandTelemetry t;
    t.Push(k100G, NanoSeconds(ns), tx, queue);
    return t;
}
} // namespace

TEST(Hpcc, EachAckMovesTheRateAsAlgorithmOneSays)
{
    Ptr<HpccCongestionControl> cc = CreateObject<HpccCongestionControl>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Attach(DataRate("100Gbps")); // T 10 us, eta 0.95, R_AI 40 Mb/s, MaxStage 0
    const auto rate = [&cc]() { return double(cc->GetRate().GetBitRate()); };
    const double b = 100e9;
    const double t = 10e-6;
    // The first ACK keeps its records; Rc is next set by an ACK past frame 10.
    Ack(cc, At100G(1000, 0, 0), 1, 10);
    EXPECT_EQ(rate(), b);
    EXPECT_EQ(cc->GetWindowBytes(), uint64_t(b * t / 8));
    // 12,288 bytes in 1 us: u = 0.98304 (no queue); U = 0.9 x 1 + 0.1 x 0.98304.  Fast
    // reaction (frame 2 is not past 10): R = Rc eta / U + R_AI from Rc = line rate.
    Ack(cc, At100G(2000, 12288, 25600), 2, 11);
    double u = 0.9 * 1 + 0.1 * 0.98304;
    EXPECT_NEAR(rate(), b * 0.95 / u + 40e6, 1);
    // Past frame 10: the queue's smaller of two samples (25,600 B) adds 25,600 x 8 / (B T) =
    // 0.2048; this update sets Rc.
    Ack(cc, At100G(3000, 24576, 25600), 11, 20);
    u = 0.9 * u + 0.1 * (0.98304 + 0.2048);
    const double rc = b * 0.95 / u + 40e6;
    EXPECT_NEAR(rate(), rc, 1);
    EXPECT_EQ(cc->GetWindowBytes(), uint64_t(std::ceil(rate() * t / 8)));
    // 5 us idle: u = 0, weight 0.5; fast reaction from the Rc just set.
    Ack(cc, At100G(8000, 24576, 0), 12, 21);
    u = 0.5 * u;
    EXPECT_NEAR(rate(), std::min(b, rc * 0.95 / u + 40e6), 1);
    const double before = rate();
    // Another path length (two hops): nothing to compare with, records kept only.
    InbandTelemetry two = At100G(9000, 30000, 0);
    two.Push(k100G, NanoSeconds(9000), 0, 0);
    Ack(cc, two, 21, 30);
    EXPECT_EQ(rate(), before);
    // An overflowed header changes nothing.
    InbandTelemetry full;
    for (int i = 0; i < 6; ++i)
    {
        full.Push(k100G, NanoSeconds(20000), 0, 1 << 20);
    }
    Ack(cc, full, 31, 40);
    EXPECT_EQ(rate(), before);
    // One hop again (kept only), then a whole T later the hop at full rate with a 1.25 MB
    // queue in both samples: U = u = 0.999424 + 9.998336 (weight 1), a full update (past
    // frame 40) from the Rc set above.
    Ack(cc, At100G(30000, 0, 1249792), 31, 40);
    Ack(cc, At100G(40000, 124928, 1249792), 41, 50);
    EXPECT_NEAR(rate(), rc * 0.95 / (0.999424 + 9.998336) + 40e6, 1);
    // The floor: MinRate, 100 Mb/s.
    for (int i = 1; i <= 5; ++i)
    {
        Ack(cc, At100G(40000 + i * 10000, 124928 * (i + 1), 1u << 22), 41 + 10 * i, 50 + 10 * i);
    }
    EXPECT_EQ(rate(), 100e6);
}

TEST(Hpcc, BelowTargetMaxStageRoundTripsIncreaseAdditively)
{
    Ptr<HpccCongestionControl> cc = CreateObject<HpccCongestionControl>();
    cc->SetAttribute("MaxStage", UintegerValue(2));
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->Attach(DataRate("100Gbps"));
    const auto rate = [&cc]() { return double(cc->GetRate().GetBitRate()); };
    // A whole T between ACKs (weight 1: U = u), each past the last update's next frame (each
    // sets Rc).  First a full hop with a 1.25 MB queue in both samples: U = 0.999424 +
    // 9.998336, multiplicative.
    Ack(cc, At100G(0, 0, 1249792), 0, 1);
    Ack(cc, At100G(10000, 124928, 1249792), 2, 3);
    const double r1 = 100e9 * 0.95 / (0.999424 + 9.998336) + 40e6;
    EXPECT_NEAR(rate(), r1, 1);
    // Then a half-loaded hop without a queue: U = 0.499712 < eta.  Two round trips add R_AI,
    // the third (stage 2 = MaxStage) is multiplicative, the fourth additive again.
    const double u = 8.0 * 62464 / 10e-6 / 100e9;
    Ack(cc, At100G(20000, 124928 + 62464, 0), 4, 5);
    EXPECT_NEAR(rate(), r1 + 40e6, 1);
    Ack(cc, At100G(30000, 124928 + 2 * 62464, 0), 6, 7);
    EXPECT_NEAR(rate(), r1 + 80e6, 1);
    Ack(cc, At100G(40000, 124928 + 3 * 62464, 0), 8, 9);
    const double r4 = (r1 + 80e6) * 0.95 / u + 40e6;
    EXPECT_NEAR(rate(), r4, 1);
    Ack(cc, At100G(50000, 124928 + 4 * 62464, 0), 10, 11);
    EXPECT_NEAR(rate(), r4 + 40e6, 1);
}

namespace
{
/** The rates a queue pair's HPCC set, with the time of each. */
struct Rates
{
    std::vector<double> rates;
    std::vector<Time> at;
};

void
OnRate(Rates* r, double, double rate)
{
    r->rates.push_back(rate);
    r->at.push_back(Simulator::Now());
}

void
OnDone(Time* t, uint64_t, uint64_t)
{
    *t = Max(*t, Simulator::Now());
}

void
OnQueue(uint64_t* peak, uint8_t, uint64_t, uint64_t bytes)
{
    *peak = std::max(*peak, bytes);
}
} // namespace

TEST(Hpcc, TheFabricsLargestBaseRttIsAFramesRoundTripOverItsLongestRoute)
{
    // T: one MTU message from a host of pod 0 to one of pod 3 of a k=4 fat-tree (100G; cables
    // of 3, 30 and 100 m; 500 ns switches) is acknowledged exactly that long after it is
    // posted: the frame up through leaf, spine and core and down again, its ACK back.  By
    // hand: each tier twice each way, data (4,182 wire bytes: 334.56 ns) and ACK (90: 7.2 ns)
    // with the cable (15, 150, 500 ns), and the leaves and spines crossed four times, the core
    // twice: 743.52 + 1,283.52 + 2,683.52 + 5,000 = 9,710.56 ns.
    FatTreeTopologyHelper fatTree(4);
    fatTree.SetAttribute("NicRate", DataRateValue(DataRate("100Gbps")));
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(fatTree.Build());
    EXPECT_EQ(net->GetLargestBaseRtt().GetPicoSeconds(), 9710560);
    RdmaHelper rdma;
    rdma.Install(net);
    Time done;
    rdma.Connect(net, 0, 15).first->PostSend(4096, MakeBoundCallback(&OnDone, &done));
    const Time rtt = net->GetLargestBaseRtt();
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(done, rtt);
}

TEST(Hpcc, OneFlowSettlesAtTheFixedPointOfItsLaw)
{
    // One 32 MiB flow through one 100G switch.  With no queue, U = txRate / B, and txRate is
    // the sender's wire rate R times frame bytes over wire bytes (4,204 of 4,224: headers, the
    // 42-byte telemetry header, less preamble and gap).  Rc = R at the fixed point of
    // R = Rc eta / U + R_AI: R* = eta B 4224 / 4204 + R_AI = 95.492 Gb/s.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma = RdmaRunning(HpccCongestionControl::GetTypeId());
    rdma.Install(net);
    Ptr<RdmaQueuePair> qp = rdma.Connect(net, 1, 0).first;
    Rates r;
    qp->GetCongestionControl()->TraceConnectWithoutContext("Rate", MakeBoundCallback(&OnRate, &r));
    Time done;
    qp->PostSend(32 << 20, MakeBoundCallback(&OnDone, &done));
    uint64_t peak = 0;
    net->GetPort(2, 0)->TraceConnectWithoutContext("QueueBytes",
                                                   MakeBoundCallback(&OnQueue, &peak));
    Simulator::Run();
    Simulator::Destroy();
    const double fixedPoint = 0.95 * 100e9 * 4224 / 4204 + 40e6;
    ASSERT_GT(r.rates.size(), 1000u);
    double sum = 0;
    const std::size_t half = r.rates.size() / 2;
    for (std::size_t i = half; i < r.rates.size(); ++i)
    {
        sum += r.rates[i];
    }
    const double mean = sum / double(r.rates.size() - half);
    // The rate swings about the fixed point (each ACK reacts to the rate of a round trip
    // before); the flow's wire rate, its bytes over its time, is the fixed point's.
    const double wire = double(32 << 20) / 4096 * 4224 * 8;
    EXPECT_NEAR(wire / done.GetSeconds() / fixedPoint, 1.0, 0.01);
    EXPECT_NEAR(mean / fixedPoint, 1.0, 0.03);
    EXPECT_LT(peak, 2u * 4204) << "the queue never holds two frames";
    std::cout << "HPCC one flow: wire rate " << wire / done.GetSeconds() / 1e9
              << " Gb/s, mean of the rates set " << mean / 1e9 << " Gb/s (fixed point "
              << fixedPoint / 1e9 << "), peak queue " << peak << " B" << std::endl;
}

TEST(Hpcc, IncastHoldsTheAggregateAtTheFixedPointWithAQueueFarBelowDcqcns)
{
    // 8 senders of 32 MiB into one 100G port over 1 us links (as the HPCC paper's simulations).
    // HPCC sees the queue and the rate at the first ACKs and cuts every sender; with no queue
    // U = sum(R) c / B (c = 4204 / 4224, as in the one-flow test), and R = R eta / U + R_AI
    // holds the senders' sum at eta B / c + N R_AI = 95.77 Gb/s.  The rates of the senders are
    // not equal: each update multiplies a sender's rate by eta / U, whose samples are noisy (a
    // 4 KiB frame of queue is several percent of U), so the rates random-walk apart, fastest
    // for the senders that update most, against the weak pull of the additive step (the
    // chapter's HPCC section).  DCQCN waits for marks past Kmin and holds megabytes.
    const uint32_t senders = 8;

    struct Outcome
    {
        double busy;
        Time rtt;
        uint64_t peak;
        uint64_t lateQueue;
        std::vector<Rates> rates;
    };

    const auto run = [senders](bool hpcc) {
        Ptr<FabricNetwork> net =
            FabricNetworkHelper().Install(Star(senders + 1, DataRate("100Gbps"), 200));
        net->AssignStreams(0); // RED's marking draws: the same whatever ran before
        RdmaHelper rdma = RdmaRunning(hpcc ? HpccCongestionControl::GetTypeId()
                                           : DcqcnCongestionControl::GetTypeId());
        rdma.Install(net);
        Outcome o{};
        o.rtt = net->GetLargestBaseRtt();
        o.rates.resize(senders);
        Time last;
        for (uint32_t s = 0; s < senders; ++s)
        {
            Ptr<RdmaQueuePair> qp = rdma.Connect(net, s + 1, 0).first;
            qp->GetCongestionControl()->TraceConnectWithoutContext(
                "Rate",
                MakeBoundCallback(&OnRate, &o.rates[s]));
            qp->PostSend(32 << 20, MakeBoundCallback(&OnDone, &last));
        }
        Ptr<FabricNetDevice> port = net->GetPort(senders + 1, 0);
        port->TraceConnectWithoutContext("QueueBytes", MakeBoundCallback(&OnQueue, &o.peak));
        // The queue after the first 100 us.
        Simulator::Schedule(MicroSeconds(100), [&o, port]() {
            port->TraceDisconnectWithoutContext("QueueBytes", MakeBoundCallback(&OnQueue, &o.peak));
            port->TraceConnectWithoutContext("QueueBytes",
                                             MakeBoundCallback(&OnQueue, &o.lateQueue));
        });
        Simulator::Run();
        const FabricTotals totals = Totals(net);
        Simulator::Destroy();
        EXPECT_EQ(totals.framesDropped, 0u);
        const uint32_t frameBytes = 4096 + 66 + (hpcc ? 42 : 0);
        const double ideal =
            senders * double(32 << 20) / 4096 * (frameBytes + 20) * 8 / 100e9; // wire time
        o.busy = ideal / last.GetSeconds();
        return o;
    };
    const Outcome h = run(true);
    const Outcome d = run(false);
    // Each sender's rates set from 2 ms to 3 ms, averaged over time.
    const auto mean = [](const Rates& r) {
        double area = 0;
        const Time from = MilliSeconds(2);
        const Time to = MilliSeconds(3);
        for (std::size_t i = 0; i + 1 < r.rates.size(); ++i)
        {
            const Time a = Max(r.at[i], from);
            const Time b = Min(r.at[i + 1], to);
            area += b > a ? r.rates[i] * (b - a).GetSeconds() : 0;
        }
        return area / (to - from).GetSeconds();
    };
    const double fair = 0.95 * 100e9 * 4224 / 4204 / senders + 40e6;
    double sum = 0;
    double least = 1e300;
    double most = 0;
    for (const Rates& r : h.rates)
    {
        const double m = mean(r);
        sum += m;
        least = std::min(least, m);
        most = std::max(most, m);
    }
    EXPECT_NEAR(sum / (senders * fair), 1.0, 0.02);
    EXPECT_GT(h.busy, 0.92);
    EXPECT_GT(d.busy, 0.92);
    // After the first round trips HPCC's queue never holds two base round trips at line rate;
    // DCQCN's holds near its marking ramp and beyond.
    EXPECT_LT(h.lateQueue, 2 * 100e9 / 8 * h.rtt.GetSeconds());
    EXPECT_LT(h.lateQueue * 10, d.lateQueue);
    std::cout << "HPCC incast: mean rates at 2-3 ms sum to " << sum / 1e9 << " Gb/s (fixed point "
              << senders * fair / 1e9 << "), from " << least / 1e9 << " to " << most / 1e9
              << " Gb/s; bottleneck busy " << h.busy << " (DCQCN " << d.busy << "); peak queue "
              << h.peak << " B (DCQCN " << d.peak << "), after 100 us " << h.lateQueue
              << " B (DCQCN " << d.lateQueue << "), base round trip " << h.rtt.As(Time::US)
              << std::endl;
}
