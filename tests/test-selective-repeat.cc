// Selective repeat (RdmaQueuePair RetransmissionMode SelectiveRepeat): without loss or
// reordering it runs as go-back-N does; a lossy incast resends exactly the payload the switch
// dropped (conservation), across the PSN wrap too; a sprayed fat-tree's reordering costs no
// resends, where go-back-N resends many times its bytes.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** What the requesters and responders of one run counted, and when messages completed. */
struct SrRun
{
    std::vector<Time> completed;    //!< completion time of each message, in posting order
    RdmaQpCounters requesters;      //!< summed over requesters
    RdmaQpCounters responders;      //!< summed over responders
    std::vector<uint64_t> received; //!< payload each responder accepted
    FabricTotals totals;
};

/** Records the completion time of the one message of flow \p index into \p times. */
struct Completions
{
    std::vector<Time>* times; //!< one entry per flow
    std::size_t index;        //!< this flow's

    /** The message \p id (0: a flow posts one) completed now. */
    void Record(uint64_t id, uint64_t)
    {
        (*times)[index + id] = Simulator::Now();
    }
};

/** Each pair (a, b) of \p flows sends \p bytes from a to b on a queue pair \p rdma makes. */
SrRun
Run(Ptr<FabricNetwork> net,
    RdmaHelper& rdma,
    const std::vector<std::pair<uint32_t, uint32_t>>& flows,
    uint64_t bytes)
{
    rdma.Install(net);
    SrRun r;
    r.completed.assign(flows.size(), Time(-1));
    std::vector<Completions> recorders(flows.size());
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        qps.push_back(rdma.Connect(net, flows[i].first, flows[i].second));
        recorders[i] = {&r.completed, i};
        qps.back().first->PostSend(bytes, MakeCallback(&Completions::Record, &recorders[i]));
    }
    Simulator::Run();
    for (const auto& [requester, responder] : qps)
    {
        r.requesters += requester->GetCounters();
        r.responders += responder->GetCounters();
        r.received.push_back(responder->GetCounters().payloadReceived);
    }
    r.totals = Totals(net);
    Simulator::Destroy();
    return r;
}

RdmaHelper
Rdma(RdmaQueuePair::RetransmissionMode mode)
{
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionMode", EnumValue(mode));
    return rdma;
}

/** \p senders hosts of a 100G star send \p bytes each to host 0. */
SrRun
Incast(RdmaQueuePair::RetransmissionMode mode,
       uint32_t senders,
       uint64_t bytes,
       bool lossy,
       uint32_t startingPsn = 0,
       uint32_t reorderThreshold = 512,
       uint32_t window = 1024,
       bool trimming = false)
{
    FabricNetworkHelper helper;
    helper.SetMmuAttribute("PfcEnabled", BooleanValue(!lossy));
    helper.SetSwitchAttribute("Trimming", BooleanValue(trimming));
    helper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("1MiB")));
    Ptr<FabricNetwork> net = helper.Install(Star(senders + 1, DataRate("100Gbps"), 2));
    RdmaHelper rdma = Rdma(mode);
    rdma.SetQueuePairAttribute("StartingPsn", UintegerValue(startingPsn));
    rdma.SetQueuePairAttribute("ReorderThreshold", UintegerValue(reorderThreshold));
    rdma.SetQueuePairAttribute("SelectiveRepeatWindow", UintegerValue(window));
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(400)));
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        flows.emplace_back(s, 0);
    }
    return Run(net, rdma, flows, bytes);
}

/** A k=4 fat-tree, packet spraying, every host sending \p bytes to every other. */
SrRun
SprayedAllToAll(RdmaQueuePair::RetransmissionMode mode, uint64_t bytes)
{
    FabricNetworkHelper helper;
    helper.SetSwitchAttribute("LoadBalancing", EnumValue(FabricSwitch::PACKET_SPRAY));
    Ptr<FabricNetwork> net = helper.Install(FatTreeTopologyHelper(4).Build());
    RdmaHelper rdma = Rdma(mode);
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    const uint32_t hosts = net->GetNHosts();
    for (uint32_t a = 0; a < hosts; ++a)
    {
        for (uint32_t b = 0; b < hosts; ++b)
        {
            if (a != b)
            {
                flows.emplace_back(a, b);
            }
        }
    }
    return Run(net, rdma, flows, bytes);
}
} // namespace

TEST(SelectiveRepeat, WithoutLossOrReorderingItRunsAsGoBackN)
{
    // A PFC incast: queues and pauses, but one path per flow and nothing lost.
    const SrRun gbn = Incast(RdmaQueuePair::GO_BACK_N, 4, 1 << 20, false);
    const SrRun sr = Incast(RdmaQueuePair::SELECTIVE_REPEAT, 4, 1 << 20, false);
    EXPECT_GT(gbn.totals.pfcPausesSent, 0u);
    EXPECT_EQ(sr.completed, gbn.completed);
    EXPECT_EQ(sr.requesters.naksReceived, 0u);
    EXPECT_EQ(sr.requesters.payloadRetransmitted, 0u);
    EXPECT_EQ(sr.responders.acksSent, gbn.responders.acksSent);
}

/** A lossy incast's starting PSN and the queue pairs' ReorderThreshold and window. */
struct LossyCase
{
    uint32_t startingPsn;
    uint32_t reorderThreshold;
    uint32_t window;
};

class SelectiveRepeatLossy : public testing::TestWithParam<LossyCase>
{
};

TEST_P(SelectiveRepeatLossy, IncastResendsExactlyThePayloadTheSwitchDropped)
{
    // PFC off: the switch drops data at host 0's port (every frame full: 1 MiB is 256 frames of
    // 4096 bytes); acknowledgements travel the other way, uncongested, and are never lost.
    const uint32_t senders = 8;
    const uint64_t bytes = 1 << 20;
    const LossyCase c = GetParam();
    const SrRun sr = Incast(RdmaQueuePair::SELECTIVE_REPEAT,
                            senders,
                            bytes,
                            true,
                            c.startingPsn,
                            c.reorderThreshold,
                            c.window);
    ASSERT_GT(sr.totals.framesDropped, 0u);
    for (const Time& t : sr.completed)
    {
        EXPECT_GE(t, Time(0)) << "a message did not complete";
    }
    for (uint64_t received : sr.received)
    {
        EXPECT_EQ(received, bytes);
    }
    EXPECT_EQ(sr.requesters.payloadRetransmitted, sr.totals.framesDropped * 4096);
    EXPECT_EQ(sr.responders.payloadDiscarded, 0u) << "a frame arrived twice";
    EXPECT_EQ(sr.requesters.payloadSent, senders * bytes + sr.requesters.payloadRetransmitted);
    // Go-back-N on the same incast also resends frames that had arrived, and more than
    // selective repeat in all.
    const SrRun gbn = Incast(RdmaQueuePair::GO_BACK_N, senders, bytes, true, c.startingPsn);
    EXPECT_GT(gbn.requesters.payloadRetransmitted, gbn.totals.framesDropped * 4096);
    EXPECT_GT(gbn.requesters.payloadRetransmitted, sr.requesters.payloadRetransmitted);
}

// Losses found by later frames at once (threshold 1), a few frames later, and only by timeouts
// (the default threshold, above the 256 frames of a message, and a threshold at the window: a
// timeout may find frames that arrived beyond a gap, which it must not resend); a window of 32
// frames, whose state slots each message reuses 8 times; starting 100 frames before the 24-bit
// PSN wrap, every message crosses it.
INSTANTIATE_TEST_SUITE_P(Recovery,
                         SelectiveRepeatLossy,
                         testing::Values(LossyCase{0, 1, 1024},
                                         LossyCase{(1u << 24) - 100, 64, 1024},
                                         LossyCase{0, 512, 1024},
                                         LossyCase{0, 8, 32},
                                         LossyCase{(1u << 24) - 100, 32, 32}));

namespace
{
Time
Last(const SrRun& r)
{
    Time last(0);
    for (const Time& t : r.completed)
    {
        EXPECT_GE(t, Time(0)) << "a message did not complete";
        last = std::max(last, t);
    }
    return last;
}
} // namespace

TEST(SelectiveRepeat, SprayedAllToAllReordersWithoutResendingAtLineRate)
{
    // 16 hosts of a k=4 fat-tree (400G, non-blocking), 4 MiB from every host to every other,
    // sprayed per packet: frames overtake each other (a ReorderThreshold of 16 resends some, 32
    // none), nothing is lost.
    const uint64_t bytes = 4 << 20;
    const SrRun sr = SprayedAllToAll(RdmaQueuePair::SELECTIVE_REPEAT, bytes);
    ASSERT_GT(sr.requesters.naksReceived, 1000u) << "little reordering: the test shows nothing";
    EXPECT_EQ(sr.requesters.payloadRetransmitted, 0u);
    EXPECT_EQ(sr.requesters.timeouts, 0u);
    EXPECT_EQ(sr.responders.payloadDiscarded, 0u);
    EXPECT_EQ(sr.totals.framesDropped, 0u);
    // Every host's NIC is the bound (a non-blocking fabric): 15 messages a host at the payload
    // rate of 400G with 4096-byte frames; at least 95% of it (the rest: the first and last
    // round trips, and the ACKs sharing each link with data the other way).
    const double payloadRate = 400e9 * 4096 / roce::WireBytesForPayload(4096);
    const double ideal = 15.0 * bytes * 8 / payloadRate;
    EXPECT_GE(ideal / Last(sr).GetSeconds(), 0.95);
}

TEST(SelectiveRepeat, GoBackNTakesASprayedFabricsReorderingForLoss)
{
    const uint64_t bytes = 256 << 10;
    const SrRun sr = SprayedAllToAll(RdmaQueuePair::SELECTIVE_REPEAT, bytes);
    const SrRun gbn = SprayedAllToAll(RdmaQueuePair::GO_BACK_N, bytes);
    EXPECT_EQ(sr.requesters.payloadRetransmitted, 0u);
    EXPECT_GT(gbn.requesters.payloadRetransmitted, 240 * bytes) << "resends above what was sent";
    EXPECT_GT(Last(gbn), 5 * Last(sr));
}

namespace
{
void
TrackMax(uint64_t* max, uint64_t, uint64_t now)
{
    *max = std::max(*max, now);
}
} // namespace

TEST(SelectiveRepeat, FramesInFlightStayWithinTheWindow)
{
    // 2 km cables (a 20 us round trip, about 60 frames at 100G): go-back-N fills the pipe; a
    // 16-frame window holds the requester to 16 frames a round trip.
    std::vector<Time> done;
    std::vector<uint64_t> maxInFlight;
    for (auto mode : {RdmaQueuePair::GO_BACK_N, RdmaQueuePair::SELECTIVE_REPEAT})
    {
        Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2000));
        RdmaHelper rdma = Rdma(mode);
        rdma.SetQueuePairAttribute("SelectiveRepeatWindow", UintegerValue(16));
        rdma.Install(net);
        Ptr<RdmaQueuePair> requester = rdma.Connect(net, 1, 0).first;
        uint64_t max = 0;
        requester->TraceConnectWithoutContext("FramesInFlight", MakeBoundCallback(&TrackMax, &max));
        std::vector<Time> completed(1, Time(-1));
        Completions c{&completed, 0};
        requester->PostSend(1 << 20, MakeCallback(&Completions::Record, &c));
        Simulator::Run();
        Simulator::Destroy();
        ASSERT_GT(completed[0], Time(0));
        done.push_back(completed[0]);
        maxInFlight.push_back(max);
    }
    EXPECT_GT(maxInFlight[0], 40u);
    EXPECT_EQ(maxInFlight[1], 16u);
    EXPECT_GT(done[1], 2 * done[0]);
}

namespace
{
/** Frame bytes on the wire at \p gbps, in seconds. */
double
WireSeconds(uint64_t wireBytes, double gbps)
{
    return wireBytes * 8 / (gbps * 1e9);
}
} // namespace

TEST(Trimming, LossyIncastLosesNoPayloadAndKeepsTheBottleneckBusy)
{
    // The lossy 8:1 incast above, its switch trimming what it would drop: each trimmed frame is
    // NAKed by its receiver and resent once per trimming, nothing is dropped, nothing times out.
    const uint32_t senders = 8;
    const uint64_t bytes = 1 << 20;
    const SrRun trim =
        Incast(RdmaQueuePair::SELECTIVE_REPEAT, senders, bytes, true, 0, 512, 1024, true);
    ASSERT_GT(trim.totals.framesTrimmed, 0u);
    EXPECT_EQ(trim.totals.framesDropped, 0u);
    for (uint64_t received : trim.received)
    {
        EXPECT_EQ(received, bytes);
    }
    EXPECT_EQ(trim.responders.trimmedReceived, trim.totals.framesTrimmed);
    EXPECT_EQ(trim.requesters.payloadRetransmitted, trim.totals.framesTrimmed * 4096);
    EXPECT_EQ(trim.responders.payloadDiscarded, 0u) << "a frame arrived twice";
    EXPECT_EQ(trim.requesters.timeouts, 0u);
    // Work conservation: host 0's 100G downlink carries every frame once whole and each
    // trimming's headers (66 bytes); it never idles, so the incast ends within 1% (7 us, about
    // 20 frame times) of their wire time.
    const uint64_t frames = senders * bytes / 4096;
    const double busy = WireSeconds(frames * roce::WireBytesForPayload(4096) +
                                        trim.totals.framesTrimmed * roce::WireBytesForPayload(0),
                                    100);
    const double last = Last(trim).GetSeconds();
    EXPECT_GE(last, busy);
    EXPECT_LE(last, busy * 1.01);
    // Without trimming the same incast waits for timeouts.
    const SrRun drop = Incast(RdmaQueuePair::SELECTIVE_REPEAT, senders, bytes, true);
    EXPECT_GT(drop.requesters.timeouts, 0u);
    EXPECT_GT(Last(drop).GetSeconds(), 3 * last);
}

TEST(Trimming, GoBackNTakesATrimmedFrameForALoss)
{
    // A go-back-N responder discards a trimmed frame as a frame whose ICRC fails: the incast
    // waits for timeouts as it does when the switch drops, where selective repeat does not.
    const uint32_t senders = 8;
    const uint64_t bytes = 1 << 20;
    const SrRun gbn = Incast(RdmaQueuePair::GO_BACK_N, senders, bytes, true, 0, 512, 1024, true);
    ASSERT_GT(gbn.totals.framesTrimmed, 0u);
    EXPECT_EQ(gbn.totals.framesDropped, 0u);
    EXPECT_EQ(gbn.responders.trimmedReceived, gbn.totals.framesTrimmed);
    for (uint64_t received : gbn.received)
    {
        EXPECT_EQ(received, bytes);
    }
    EXPECT_GT(gbn.requesters.timeouts, 0u);
    const SrRun sr =
        Incast(RdmaQueuePair::SELECTIVE_REPEAT, senders, bytes, true, 0, 512, 1024, true);
    EXPECT_GT(Last(gbn), 3 * Last(sr));
}
