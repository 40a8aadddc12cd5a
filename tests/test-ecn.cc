// ECN marking follows the RED ramp between Kmin and Kmax, measured on a queue held by PFC.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{
void
Ignore(Ptr<FabricNetDevice>, Ptr<Packet>, const FrameInfo&)
{
}

/** Bins each departing frame by the queue it leaves behind, and whether it was marked. */
struct DepartureBins
{
    Ptr<FabricNetDevice> dev;
    uint64_t kmin;
    uint64_t kmax;
    uint32_t bins;
    bool marked{false};
    std::vector<uint64_t> frames;
    std::vector<uint64_t> marks;

    uint32_t BinOf(uint64_t q) const
    {
        if (q <= kmin)
        {
            return 0;
        }
        if (q > kmax)
        {
            return bins + 1;
        }
        return 1 + static_cast<uint32_t>((q - kmin - 1) * bins / (kmax - kmin));
    }
    void Marked(Ptr<const Packet>) { marked = true; }
    void Departed(Ptr<const Packet>)
    {
        const uint32_t b = BinOf(dev->GetQueueBytes(3));
        ++frames[b];
        marks[b] += marked;
        marked = false;
    }
};
} // namespace

TEST(Ecn, MarkingProbabilityFollowsRedRamp)
{
    // At 25 Gb/s the HPCC defaults apply unscaled: Kmin 100 KB, Kmax 400 KB, Pmax 0.2.
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->SetAttribute("DataRate", DataRateValue(DataRate("25Gbps")));
    Ptr<Node> na = CreateObject<Node>();
    Ptr<Node> nb = CreateObject<Node>();
    Ptr<FabricNetDevice> a = CreateObject<FabricNetDevice>();
    Ptr<FabricNetDevice> b = CreateObject<FabricNetDevice>();
    na->AddDevice(a);
    nb->AddDevice(b);
    a->Attach(ch);
    b->Attach(ch);
    a->SetReceiveHandler(MakeCallback(&Ignore));
    b->SetReceiveHandler(MakeCallback(&Ignore));
    a->AssignStreams(11);

    const uint32_t bins = 6;
    DepartureBins d{a, 100000, 400000, bins, false, {}, {}};
    d.frames.assign(bins + 2, 0);
    d.marks.assign(bins + 2, 0);
    a->TraceConnectWithoutContext("EcnMark", MakeCallback(&DepartureBins::Marked, &d));
    a->TraceConnectWithoutContext("Tx", MakeCallback(&DepartureBins::Departed, &d));

    // Each round: b pauses class 3 at a, a's queue fills to 520 KB, b resumes it, and the
    // queue drains frame by frame through every queue length from Kmax+ down to zero.
    auto fill = [a]() {
        for (uint32_t i = 0; i < 4000; ++i)
        {
            DataFrameSpec spec;
            spec.payloadBytes = 64;
            Ptr<Packet> p = roce::MakeDataFrame(spec);
            FrameInfo info;
            roce::ParseDataFrame(*p, info);
            a->Enqueue(p, info, 0);
        }
    };
    const uint32_t rounds = 20;
    for (uint32_t r = 0; r < rounds; ++r)
    {
        const Time t0 = MicroSeconds(500 * r);
        Simulator::Schedule(t0, &FabricNetDevice::AssertPause, b, 3, true);
        Simulator::Schedule(t0 + MicroSeconds(10), fill);
        Simulator::Schedule(t0 + MicroSeconds(20), &FabricNetDevice::AssertPause, b, 3, false);
    }
    Simulator::Run();
    Simulator::Destroy();

    EXPECT_EQ(d.marks[0], 0u);                    // never at or below Kmin
    ASSERT_GT(d.frames[bins + 1], 0u);
    EXPECT_EQ(d.marks[bins + 1], d.frames[bins + 1]); // always above Kmax
    for (uint32_t bin = 1; bin <= bins; ++bin)
    {
        // Expected probability: the ramp at the bin's middle (it is linear inside the bin).
        const double mid = d.kmin + (bin - 0.5) * double(d.kmax - d.kmin) / bins;
        const double p = 0.2 * (mid - d.kmin) / double(d.kmax - d.kmin);
        const double n = double(d.frames[bin]);
        ASSERT_GT(n, 1000);
        const double measured = double(d.marks[bin]) / n;
        EXPECT_NEAR(measured, p, 4 * std::sqrt(p * (1 - p) / n) + 0.005) << "bin " << bin;
    }
}
