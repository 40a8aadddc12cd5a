// ECN marking follows the RED ramp between Kmin and Kmax, measured on a queue held by PFC.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{
struct MarkCounter
{
    Ptr<FabricNetDevice> dev;
    uint64_t lastQueue{0};
    std::vector<uint64_t> marksPerBin;
    std::vector<uint64_t> framesPerBin;
    uint64_t binBytes{1};
};

void
Ignore(Ptr<FabricNetDevice>, Ptr<Packet>, const FrameInfo&)
{
}
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

    const uint64_t kmin = 100000;
    const uint64_t kmax = 400000;
    const uint32_t bins = 6;
    std::vector<uint64_t> marks(bins + 2, 0);
    std::vector<uint64_t> frames(bins + 2, 0);
    auto binOf = [&](uint64_t q) -> uint32_t {
        if (q <= kmin)
        {
            return 0;
        }
        if (q > kmax)
        {
            return bins + 1;
        }
        return 1 + static_cast<uint32_t>((q - kmin - 1) * bins / (kmax - kmin));
    };
    const uint32_t rounds = 20;
    auto fill = [&]() {
        // b pauses class 3 at a; a's class-3 queue then only grows.
        for (uint32_t i = 0; i < 4000; ++i)
        {
            DataFrameSpec spec;
            spec.payloadBytes = 64;
            Ptr<Packet> p = roce::MakeDataFrame(spec);
            FrameInfo info;
            roce::ParseDataFrame(*p, info);
            const uint64_t q = a->GetQueueBytes(3);
            const uint64_t before = a->GetCounters().ecnMarked;
            a->Enqueue(p, info, 0);
            const uint32_t bin = binOf(q);
            ++frames[bin];
            marks[bin] += a->GetCounters().ecnMarked - before;
        }
        ch->SetUp(false); // flushes the queue
        ch->SetUp(true);
    };
    for (uint32_t r = 0; r < rounds; ++r)
    {
        Simulator::Schedule(MicroSeconds(100 * r), &FabricNetDevice::AssertPause, b, 3, true);
        Simulator::Schedule(MicroSeconds(100 * r + 10), fill);
    }
    Simulator::Run();
    Simulator::Destroy();

    EXPECT_EQ(marks[0], 0u);                 // never below Kmin
    EXPECT_EQ(marks[bins + 1], frames[bins + 1]); // always above Kmax
    ASSERT_GT(frames[bins + 1], 0u);
    for (uint32_t bin = 1; bin <= bins; ++bin)
    {
        // Expected probability: the ramp averaged over the bin's queue lengths.
        const double mid = kmin + (bin - 0.5) * double(kmax - kmin) / bins;
        const double p = 0.2 * (mid - kmin) / double(kmax - kmin);
        const double n = double(frames[bin]);
        ASSERT_GT(n, 1000);
        const double measured = double(marks[bin]) / n;
        EXPECT_NEAR(measured, p, 4 * std::sqrt(p * (1 - p) / n) + 0.005) << "bin " << bin;
    }
}
