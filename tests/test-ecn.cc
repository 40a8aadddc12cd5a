// ECN marking follows the RED ramp between Kmin and Kmax, measured on a queue held by PFC.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{
/** Owns a port and ignores what it receives. */
struct IgnoringOwner : FabricPortOwner
{
    void ReceiveFrame(FabricNetDevice*, const FrameInfo&) override
    {
    }
    void FrameDequeued(uint16_t, uint16_t, uint8_t, uint32_t) override {}
};

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
    IgnoringOwner owner;
    a->SetOwner(&owner);
    b->SetOwner(&owner);
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
            a->Enqueue(roce::InfoOf(spec), 0);
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

TEST(Ecn, EveryMarkReachesTheReceiverInTheFrameAndItsBytes)
{
    // A port marks a frame CE in the FrameInfo it travels as; the packet a trace sink gets is
    // made from that info.  In a DCQCN incast with no loss, every mark the ports count must
    // reach a host, both in the delivered info and in the bytes of the packet its port's Rx
    // sink gets.
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = aifabric_test::DcqcnStar(8, rdma);
    struct Check
    {
        uint64_t frames{0};
        uint64_t marked{0};      //!< CE in the delivered info
        uint64_t markedBytes{0}; //!< CE in the bytes the host ports' Rx sinks got

        void Deliver(const FrameInfo& info)
        {
            ++frames;
            marked += info.ecn == Ipv4Header::ECN_CE;
        }

        void Rx(Ptr<const Packet> p)
        {
            FrameInfo parsed;
            markedBytes += roce::ParseDataFrame(*p, parsed) && parsed.ecn == Ipv4Header::ECN_CE;
        }
    } check;

    std::vector<Ptr<FabricNetDevice>> ports;
    for (uint32_t h = 0; h < net->GetNHosts(); ++h)
    {
        const Ptr<FabricNetDevice> host = net->GetEndpoint(h)->GetPort(0);
        ports.push_back(host);
        ports.push_back(host->GetFabricChannel()->GetPeer(host));
        net->GetEndpoint(h)->TraceConnectWithoutContext("Deliver",
                                                        MakeCallback(&Check::Deliver, &check));
        host->TraceConnectWithoutContext("Rx", MakeCallback(&Check::Rx, &check));
    }
    for (uint32_t s = 1; s <= 8; ++s)
    {
        rdma.Connect(net, s, 0).first->PostSend(1 << 20);
    }
    Simulator::Run();
    uint64_t marks = 0;
    for (const Ptr<FabricNetDevice>& port : ports)
    {
        marks += port->GetCounters().ecnMarked;
    }
    Simulator::Destroy();
    EXPECT_GT(check.frames, 8u * 256);
    EXPECT_GT(marks, 0u);
    EXPECT_EQ(check.marked, marks);
    EXPECT_EQ(check.markedBytes, marks);
}
