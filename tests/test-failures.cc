// Component failures at packet level: bit errors against the frame-loss formula, flaps in the
// link counters, lane loss against the ring all-reduce closed form, and a dead link in a k=4
// fat-tree whose byte accounting closes exactly.
#include "collective-fixture.h"
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** A failure process of \p mode on \p channel that fails once, at \p at, for \p repair. */
Ptr<ComponentFailureProcess>
FailOnce(Ptr<FabricChannel> channel, const std::string& mode, Time at, Time repair)
{
    Ptr<ComponentFailureProcess> p = CreateObject<ComponentFailureProcess>();
    p->SetAttribute("Mode", StringValue(mode));
    p->SetAttribute("TimeToFailure", PointerValue(CreateObjectWithAttributes<ConstantRandomVariable>(
                                         "Constant", DoubleValue(at.GetSeconds()))));
    p->SetAttribute("TimeToRepair", PointerValue(CreateObjectWithAttributes<ConstantRandomVariable>(
                                        "Constant", DoubleValue(repair.GetSeconds()))));
    p->SetAttribute("MaxFailures", UintegerValue(1));
    p->SetComponent("link", "link");
    p->AddChannel(channel);
    p->Start();
    return p;
}

/** The channel of host \p host's first link. */
Ptr<FabricChannel>
HostChannel(Ptr<FabricNetwork> net, uint32_t host)
{
    const FabricTopology& topo = net->GetTopology();
    return net->GetChannel(topo.GetNode(topo.HostNode(host)).links[0]);
}

struct BerRun
{
    uint64_t frames{0};
    uint64_t frameBytes{0};
    uint64_t fcsErrors{0};
    uint64_t delivered{0};
    uint64_t dropped{0};
    uint64_t fcsFromHost0{0}; //!< host 0's frames the switch's port found corrupted
};

/** 64 MiB from host 0 to host 1 over a link with bit errors; \p reverse: host 1 sends too. */
BerRun
RunWithBitErrors(double ber, uint32_t seed, bool reverse = false)
{
    RngSeedManager::SetSeed(seed);
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    net->AssignStreams(1);
    HostChannel(net, 0)->SetBitErrorRate(ber);
    MessageSourceHelper sources;
    const uint64_t bytes = 64ull << 20;
    sources.Install(net, 0, 1, bytes, Time(0));
    if (reverse)
    {
        sources.Install(net, 1, 0, bytes, Time(0));
    }
    FabricStatsHelper stats;
    stats.Install(net, sources);
    Simulator::Run();
    BerRun r;
    const auto& host0 = net->GetPort(net->GetTopology().HostNode(0),
                                     net->GetTopology().GetNode(net->GetTopology().HostNode(0)).links[0])
                            ->GetCounters();
    r.frames = host0.txFrames;
    r.frameBytes = host0.txBytes / host0.txFrames;
    const FabricTotals t = Totals(net);
    r.fcsErrors = t.dropsByReason[static_cast<std::size_t>(DropReason::FcsError)];
    r.dropped = t.framesDropped;
    r.delivered = stats.GetFramesDelivered();
    const FabricTopology& topo = net->GetTopology();
    const uint32_t link = topo.GetNode(topo.HostNode(0)).links[0];
    const uint32_t sw = topo.GetLink(link).a == topo.HostNode(0) ? topo.GetLink(link).b
                                                                 : topo.GetLink(link).a;
    r.fcsFromHost0 = net->GetPort(sw, link)->GetCounters().dropFrames[static_cast<std::size_t>(
        DropReason::FcsError)];
    Simulator::Destroy();
    return r;
}
} // namespace

TEST(BitErrors, CorruptedFrameFractionMatchesTheFormula)
{
    const double ber = 2e-6;
    const BerRun r = RunWithBitErrors(ber, 1);
    ASSERT_EQ(r.frames, 16384u);
    // Every frame has the same size: its bits from destination address to FCS.
    const double p = 1 - std::pow(1 - ber, 8.0 * r.frameBytes);
    const double mean = r.frames * p;
    const double sigma = std::sqrt(r.frames * p * (1 - p));
    EXPECT_NEAR(double(r.fcsErrors), mean, 4 * sigma) << "p " << p;
    EXPECT_EQ(r.dropped, r.fcsErrors); // nothing else is lost
    EXPECT_EQ(r.frames, r.delivered + r.fcsErrors);
    // The same seed gives the same corrupted frames; another seed other ones.
    EXPECT_EQ(RunWithBitErrors(ber, 1).fcsErrors, r.fcsErrors);
    EXPECT_NE(RunWithBitErrors(ber, 2).fcsErrors, r.fcsErrors);
}

// Each direction draws from its own stream: split over MPI ranks, each half of a cut link draws
// for the frames it sends, as one process does.
TEST(BitErrors, EachDirectionDrawsAloneSoTrafficTheOtherWayChangesNoDraw)
{
    const double ber = 2e-6;
    const BerRun alone = RunWithBitErrors(ber, 1);
    const BerRun both = RunWithBitErrors(ber, 1, true);
    EXPECT_GT(alone.fcsFromHost0, 0u);
    EXPECT_EQ(alone.fcsFromHost0, alone.fcsErrors);
    EXPECT_EQ(both.fcsFromHost0, alone.fcsFromHost0);
    EXPECT_GT(both.fcsErrors, both.fcsFromHost0); // host 1's frames met errors too
}

TEST(BitErrors, AHealthyLinkCorruptsNothing)
{
    EXPECT_EQ(RunWithBitErrors(0, 1).fcsErrors, 0u);
}

TEST(BitErrors, IndependentSourcesCombineAndUndo)
{
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->AddBitErrors(1e-6, true);
    ch->AddBitErrors(1e-5, true);
    EXPECT_NEAR(ch->GetBitErrorRate(), 1 - (1 - 1e-6) * (1 - 1e-5), 1e-15);
    ch->AddBitErrors(1e-6, false);
    EXPECT_NEAR(ch->GetBitErrorRate(), 1e-5, 1e-15);
    ch->AddBitErrors(1e-5, false);
    EXPECT_EQ(ch->GetBitErrorRate(), 0.0);
}

namespace
{
struct FailureLog
{
    std::vector<ComponentFailureProcess::Failure> failed;
    std::vector<Time> repaired;
    void Failed(const ComponentFailureProcess::Failure& f) { failed.push_back(f); }
    void Repaired(const ComponentFailureProcess::Failure& f) { repaired.push_back(f.start); }
};
} // namespace

TEST(Flap, EveryDownIsCountedAndTheTransferStillCompletes)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(20)));
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    const uint64_t bytes = 4 << 20; // about 350 us at 100G
    a->PostSend(bytes);
    Ptr<ComponentFailureProcess> flap = CreateObject<ComponentFailureProcess>();
    flap->SetAttribute("Mode", StringValue("flap"));
    flap->SetAttribute("TimeToFailure", StringValue("ns3::ConstantRandomVariable[Constant=1e-5]"));
    flap->SetAttribute("MaxFailures", UintegerValue(1));
    flap->SetAttribute("FlapCount", UintegerValue(3));
    flap->SetAttribute("FlapDownTime", TimeValue(MicroSeconds(5)));
    flap->SetAttribute("FlapUpTime", TimeValue(MicroSeconds(7)));
    flap->SetComponent("link 0", "link");
    Ptr<FabricChannel> ch = HostChannel(net, 0);
    flap->AddChannel(ch);
    FailureLog log;
    flap->TraceConnectWithoutContext("Failed", MakeCallback(&FailureLog::Failed, &log));
    flap->TraceConnectWithoutContext("Repaired", MakeCallback(&FailureLog::Repaired, &log));
    flap->Start();
    Simulator::Run();
    ASSERT_EQ(log.failed.size(), 1u);
    EXPECT_EQ(log.failed[0].start, MicroSeconds(10));
    EXPECT_EQ(log.failed[0].duration, MicroSeconds(3 * 5 + 2 * 7));
    ASSERT_EQ(log.repaired.size(), 1u);
    EXPECT_EQ(log.repaired[0], MicroSeconds(10 + 29));
    EXPECT_EQ(ch->GetDownCount(), 3u);
    EXPECT_EQ(ch->GetDownTime(), MicroSeconds(15));
    EXPECT_TRUE(ch->IsUp());
    EXPECT_EQ(b->GetCounters().payloadReceived, bytes);
    EXPECT_EQ(a->GetOutstandingMessages(), 0u);
    EXPECT_GT(Totals(net).dropsByReason[static_cast<std::size_t>(DropReason::LinkDown)], 0u);
    Simulator::Destroy();
}

namespace
{
/** A host link of a 2-host star failed hard at each (start, duration), run for 100 us. */
Ptr<FabricChannel>
RunOutages(const std::vector<std::pair<Time, Time>>& outages)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    Ptr<FabricChannel> ch = HostChannel(net, 0);
    for (const auto& [start, duration] : outages)
    {
        FailOnce(ch, "hard", start, duration);
    }
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    return ch;
}
} // namespace

TEST(HardFailure, OverlappingCausesKeepTheLinkDownUntilTheLastRepair)
{
    // Two transceivers of one link: down at 10 us for 30 us, and at 20 us for 50 us.
    Ptr<FabricChannel> ch =
        RunOutages({{MicroSeconds(10), MicroSeconds(30)}, {MicroSeconds(20), MicroSeconds(50)}});
    EXPECT_EQ(ch->GetDownCount(), 1u);
    EXPECT_EQ(ch->GetDownTime(), MicroSeconds(60)); // 10 us to 70 us
    EXPECT_TRUE(ch->IsUp());
    // Within a window: the outage cut at its end.
    EXPECT_EQ(ch->GetDownTime(MicroSeconds(50)), MicroSeconds(40));
    EXPECT_EQ(ch->GetDownTime(MicroSeconds(5)), Time(0));
    Simulator::Destroy();
}

// A link still down is counted up to the window's end (links.csv's down_us, up to the last
// delivery), not up to wherever the simulation stopped.
TEST(HardFailure, ALinkStillDownCountsItsOutageUpToTheWindowsEnd)
{
    Ptr<FabricChannel> ch =
        RunOutages({{MicroSeconds(10), MicroSeconds(5)}, {MicroSeconds(30), Seconds(10)}});
    EXPECT_FALSE(ch->IsUp());
    EXPECT_EQ(ch->GetDownTime(), MicroSeconds(75));
    EXPECT_EQ(ch->GetDownTime(MicroSeconds(40)), MicroSeconds(15));
    EXPECT_EQ(ch->GetDownTime(MicroSeconds(12)), MicroSeconds(2));
    Simulator::Destroy();
}

namespace
{
/** Ring all-reduce on RunOnStar's switch with every link at full rate except one at \p f. */
double
DegradedStarRingModel(const FatTreeModel& m, uint32_t p, double n, double f)
{
    // Each of the 2(p-1) steps waits for the slowest edge: the one into or out of the host on
    // the degraded link, which carries its data (and the ACKs of the other way) at f x rate.
    return 2 * (p - 1) * (m.StarAlpha() + n / p * m.Beta() / f) + (p - 1.0) / p * n * m.gamma +
           m.StarAckLatency();
}
} // namespace

TEST(LaneLoss, RingAllReduceRunsAtTheDegradedLinksRate)
{
    const uint32_t p = 8;
    const uint64_t n = 16 << 20;
    for (double f : {0.75, 0.5})
    {
        const CollectiveRun run =
            RunCollective(Star(16, DataRate("400Gbps"), 3), "ring", ALL_REDUCE, n, p, {},
                          [f](Ptr<FabricNetwork> net) {
                              Ptr<ComponentFailureProcess> lanes =
                                  FailOnce(HostChannel(net, 3), "lane_loss", Time(0), Seconds(1));
                              lanes->SetAttribute("RateFraction", DoubleValue(f));
                          });
        const double model = DegradedStarRingModel(FatTreeModel(), p, n, f);
        EXPECT_NEAR(run.result.Duration().GetSeconds() / model, 1.0, 0.05)
            << "f " << f << ": measured " << run.result.Duration().As(Time::US) << ", model "
            << model * 1e6 << " us";
    }
}

namespace
{
struct DropLedger
{
    uint64_t dataPayload{0}; //!< payload of dropped data frames (not ACK/NAK/CNP)
    void Dropped(Ptr<const Packet> p, DropReason)
    {
        FrameInfo info;
        if (roce::ParseDataFrame(*p, info) && info.opcode != BthHeader::RC_ACKNOWLEDGE &&
            info.opcode != BthHeader::CNP)
        {
            dataPayload += info.payloadBytes;
        }
    }
};
} // namespace

TEST(HardFailure, DeadLinkInFatTreeReroutesAndTheByteAccountingCloses)
{
    FabricNetworkHelper helper;
    helper.SetRoutingAttribute("ConvergenceDelay", TimeValue(MicroSeconds(20)));
    FatTreeTopologyHelper fatTree(4);
    Ptr<FabricNetwork> net = helper.Install(fatTree.Build());
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(50)));
    rdma.Install(net);
    DropLedger ledger;
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/Drop",
                                  MakeCallback(&DropLedger::Dropped, &ledger));
    const uint64_t bytes = 8 << 20;
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    for (uint32_t h = 0; h < 8; ++h)
    {
        qps.push_back(rdma.Connect(net, h, h + 8)); // pod to pod, across the core
        qps.back().first->PostSend(bytes);
    }
    // At 50 us, kill the busiest link between an aggregation and a core switch.
    const FabricTopology& topo = net->GetTopology();
    uint32_t victim = UINT32_MAX;
    Simulator::Schedule(MicroSeconds(50), [&]() {
        uint64_t best = 0;
        for (uint32_t l = 0; l < topo.Links().size(); ++l)
        {
            const auto& link = topo.GetLink(l);
            const bool core = topo.GetNode(link.a).role == FabricTopology::Role::Core ||
                              topo.GetNode(link.b).role == FabricTopology::Role::Core;
            const uint64_t tx = net->GetPort(link.a, l)->GetCounters().txFrames +
                                net->GetPort(link.b, l)->GetCounters().txFrames;
            if (core && tx > best)
            {
                best = tx;
                victim = l;
            }
        }
        FailOnce(net->GetChannel(victim), "hard", Time(0), Seconds(1));
    });
    Simulator::Stop(Seconds(0.5));
    Simulator::Run();
    ASSERT_NE(victim, UINT32_MAX);
    EXPECT_FALSE(net->GetChannel(victim)->IsUp());
    RdmaQpCounters sent;
    RdmaQpCounters received;
    for (const auto& [requester, responder] : qps)
    {
        EXPECT_EQ(requester->GetOutstandingMessages(), 0u);
        EXPECT_EQ(responder->GetCounters().payloadReceived, bytes);
        sent += requester->GetCounters();
        received += responder->GetCounters();
    }
    const FabricTotals t = Totals(net);
    EXPECT_GT(t.dropsByReason[static_cast<std::size_t>(DropReason::LinkDown)], 0u);
    EXPECT_EQ(t.framesDropped, t.dropsByReason[static_cast<std::size_t>(DropReason::LinkDown)]);
    EXPECT_GT(sent.payloadRetransmitted, 0u);
    // Every payload byte went out once plus its retransmissions ...
    EXPECT_EQ(sent.payloadSent, 8 * bytes + sent.payloadRetransmitted);
    // ... and each one sent was accepted, discarded as out of order or a duplicate, or dropped.
    EXPECT_EQ(sent.payloadSent,
              received.payloadReceived + received.payloadDiscarded + ledger.dataPayload);
    EXPECT_EQ(net->GetRouting()->GetNRecomputations(), 2u);
    Simulator::Destroy();
}

TEST(RetryLimit, QueuePairFailsItsMessagesAfterRetryCountTimeouts)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    const Time rto = MicroSeconds(10);
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(rto));
    rdma.SetQueuePairAttribute("RetryCount", UintegerValue(3));
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    uint32_t completions = 0;
    struct Count
    {
        uint32_t* n;
        void Done(uint64_t, uint64_t) { ++*n; }
        void Failed() { ++*n; }
    } completed{&completions};
    uint32_t failures = 0;
    Count failed{&failures};
    a->SetErrorCallback(MakeCallback(&Count::Failed, &failed));
    a->PostSend(1 << 20, MakeCallback(&Count::Done, &completed));
    FailOnce(HostChannel(net, 0), "hard", MicroSeconds(5), Seconds(1));
    Simulator::Run(); // ends: a failed QP sends nothing more
    EXPECT_TRUE(a->IsFailed());
    EXPECT_EQ(failures, 1u);
    EXPECT_EQ(completions, 0u);
    EXPECT_EQ(a->GetCounters().timeouts, 4u); // RetryCount retries, then the 4th timeout fails it
    EXPECT_EQ(a->GetCounters().retryExhausted, 1u);
    EXPECT_LT(b->GetCounters().payloadReceived, 1u << 20);
    Simulator::Destroy();
}

/** When the QP of RetryLimit's dead path fails, with the given timeout cap. */
Time
FailureTimeWithTimeoutCap(Time rto, Time cap)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(rto));
    rdma.SetQueuePairAttribute("RetransmissionTimeoutMax", TimeValue(cap));
    rdma.SetQueuePairAttribute("RetryCount", UintegerValue(3));
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    Time failedAt;
    struct Clock
    {
        Time* at;
        void Failed() { *at = Simulator::Now(); }
    } clock{&failedAt};
    a->SetErrorCallback(MakeCallback(&Clock::Failed, &clock));
    a->PostSend(1 << 20, {});
    FailOnce(HostChannel(net, 0), "hard", MicroSeconds(5), Seconds(1));
    Simulator::Run();
    EXPECT_EQ(a->GetCounters().timeouts, 4u);
    Simulator::Destroy();
    return failedAt;
}

TEST(RetryLimit, EachTimeoutInARowDoublesUpToTheCap)
{
    // The timer last moved at the same ACK in all three runs; then 4 timeouts (RetryCount 3).
    const Time rto = MicroSeconds(10);
    const Time fixed = FailureTimeWithTimeoutCap(rto, rto);                  // 10 x 4
    const Time doubling = FailureTimeWithTimeoutCap(rto, Seconds(1));        // 10+20+40+80
    const Time capped = FailureTimeWithTimeoutCap(rto, MicroSeconds(30));    // 10+20+30+30
    const Time below = FailureTimeWithTimeoutCap(rto, MicroSeconds(1));      // a cap below: fixed
    EXPECT_EQ(doubling - fixed, MicroSeconds(150 - 40));
    EXPECT_EQ(capped - fixed, MicroSeconds(90 - 40));
    EXPECT_EQ(below, fixed);
    // The last ACK that moved the timer came before the link died at 5 us.
    EXPECT_GT(fixed, MicroSeconds(40));
    EXPECT_LT(fixed, MicroSeconds(5 + 40));
}

TEST(RetryLimit, AfterProgressTheTimeoutIsTheUnbackedOneAgain)
{
    // An outage from 5 to 30 us backs the timeout off (10 us, then 20 us: the second resends at
    // about 35 us, and the timer event after it is queued for 40 us later).  The resends get
    // through and reset the timeout to 10 us.  From 40 us the link is dead for good: the four
    // timeouts from the last ACK must take 10 + 20 + 40 + 80 us, not start from the event
    // queued with the backed-off 40 us (which would add about 25 us).
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetQueuePairAttribute("RetransmissionTimeout", TimeValue(MicroSeconds(10)));
    rdma.SetQueuePairAttribute("RetransmissionTimeoutMax", TimeValue(Seconds(1)));
    rdma.SetQueuePairAttribute("RetryCount", UintegerValue(3));
    rdma.Install(net);
    auto [a, b] = rdma.Connect(net, 0, 1);
    struct Clock
    {
        Time lastAck;
        Time failedAt;
        void Rx(Ptr<const Packet>) { lastAck = Simulator::Now(); }
        void Failed() { failedAt = Simulator::Now(); }
    } clock;
    net->GetEndpoint(0)->GetPort(0)->TraceConnectWithoutContext("Rx",
                                                                MakeCallback(&Clock::Rx, &clock));
    a->SetErrorCallback(MakeCallback(&Clock::Failed, &clock));
    a->PostSend(1 << 20, {});
    FailOnce(HostChannel(net, 0), "hard", MicroSeconds(5), MicroSeconds(25));
    FailOnce(HostChannel(net, 0), "hard", MicroSeconds(40), Seconds(1));
    Simulator::Run();
    EXPECT_EQ(a->GetCounters().timeouts, 2u + 4u);
    EXPECT_GT(clock.lastAck, MicroSeconds(35));
    EXPECT_LT(clock.lastAck, MicroSeconds(41));
    EXPECT_EQ(clock.failedAt - clock.lastAck, MicroSeconds(150));
    Simulator::Destroy();
}

TEST(RetryLimit, CollectiveReportsFailureWhenARanksLinkDies)
{
    const CollectiveRun run =
        RunCollective(Star(16, DataRate("400Gbps"), 3), "ring", ALL_REDUCE, 16 << 20, 4, {},
                      [](Ptr<FabricNetwork> net) {
                          FailOnce(HostChannel(net, 2), "hard", MicroSeconds(20), Seconds(10));
                      });
    EXPECT_TRUE(run.result.failed);
    // The first queue pair gives up 8 timeouts (RetryCount 7) after its last ACK, backed off
    // from 1.05 ms: 1 + 2 + ... + 128 = 255 of them.
    EXPECT_GT(run.result.end, MicroSeconds(20) + MicroSeconds(1048.576) * 254);
    EXPECT_LT(run.result.end, MicroSeconds(20) + MicroSeconds(1048.576) * 256);
}

namespace
{
/** A 4-rank data-parallel job on a 100G star whose ring all-reduces run on RDMA. */
Ptr<TrainingJob>
InstallRingJob(Ptr<FabricNetwork> net, const std::string& barrierLatency)
{
    net->AssignStreams(100);
    RdmaHelper rdma;
    rdma.Install(net);
    TrainingJobHelper helper;
    for (const auto& [name, value] : Attributes{{"Ranks", "4"},
                                                {"ComputeTime", "100us"},
                                                {"OptimizerTime", "0s"},
                                                {"Parameters", "2097152"},
                                                {"Iterations", "5"},
                                                {"BarrierLatency", barrierLatency}})
    {
        helper.SetJobAttribute(name, StringValue(value));
    }
    helper.SetAlgorithm(ParallelAxis::DATA, CollectiveAlgorithm::Create("ring"));
    return helper.Install(net, rdma, 10);
}

void
RecordFirst(Time* first, uint32_t)
{
    *first = std::min(*first, Simulator::Now());
}
} // namespace

TEST(RetryLimit, TrainingJobStopsTheIterationWhenACommunicatorFails)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(4, DataRate("100Gbps"), 2));
    Ptr<TrainingJob> job = InstallRingJob(net, "0s");
    // One iteration is 100 us + the ring all-reduce of 2M fp32 gradients (8 MiB) at 100G:
    // about 1.1 ms.
    const Time failAt = MicroSeconds(2500);
    FailOnce(HostChannel(net, 2), "hard", failAt, Seconds(10));
    Simulator::Run();
    EXPECT_TRUE(job->IsInterrupted());
    EXPECT_FALSE(job->IsFinished());
    EXPECT_NE(job->GetInterruptionCause().find("retry count"), std::string::npos);
    ASSERT_GE(job->GetIterations().size(), 1u);
    EXPECT_LT(job->GetIterations().size(), 5u);
    EXPECT_LT(job->GetIterations().back().end, failAt);
    EXPECT_GT(job->GetInterruptionTime(), failAt + MicroSeconds(1048.576) * 7);
    Simulator::Destroy();
}

TEST(FailureHelper, AFailedGpuStopsTheJobHoldingItAndOnlyThatJob)
{
    // Two 2-rank jobs on a 4-host star; the GPU of host 2 (the second job's) fails at 300 us.
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(4, DataRate("100Gbps"), 2));
    net->AssignStreams(100);
    RdmaHelper rdma;
    rdma.Install(net);
    std::vector<Ptr<TrainingJob>> jobs;
    for (const char* name : {"first", "second"})
    {
        TrainingJobHelper helper;
        for (const auto& [key, value] : Attributes{{"Name", name},
                                                   {"Ranks", "2"},
                                                   {"ComputeTime", "100us"},
                                                   {"Parameters", "262144"},
                                                   {"Iterations", "10"}})
        {
            helper.SetJobAttribute(key, StringValue(value));
        }
        jobs.push_back(helper.Install(net, rdma, 10 + 10 * jobs.size()));
    }
    ASSERT_EQ(jobs[1]->GetHost(0), 2u);
    const FabricTopology& topo = net->GetTopology();
    FailureHelper failures;
    failures.AddInjection("gpu", topo.GetNode(topo.HostNode(2)).name,
                          ComponentFailureProcess::HARD, MicroSeconds(300), Time::Max());
    failures.Install(topo, net, 1000);
    failures.InterruptJobs(jobs);
    Simulator::Run();
    EXPECT_FALSE(jobs[0]->IsInterrupted());
    EXPECT_TRUE(jobs[0]->IsFinished());
    ASSERT_TRUE(jobs[1]->IsInterrupted());
    EXPECT_EQ(jobs[1]->GetInterruptionTime(), MicroSeconds(300));
    EXPECT_EQ(jobs[1]->GetInterruptionCause(),
              "gpu " + topo.GetNode(topo.HostNode(2)).name + " failed");
    Simulator::Destroy();
}

TEST(FailureHelper, ComponentCountsMatchTheBillOfMaterials)
{
    const FabricTopology t = RailOptimizedTopologyHelper(8, 8, 4).Build();
    const BillOfMaterials bom = BillOfMaterials::FromTopology(t);
    uint64_t fabricSwitches = 0;
    for (const auto& line : bom.Lines())
    {
        if (line.category == "switch" && line.item.rfind("nvswitch", 0) != 0)
        {
            fabricSwitches += line.quantity;
        }
    }
    EXPECT_EQ(FailureHelper::Components(t, "transceiver").size(),
              bom.Quantity("transceiver", "optical"));
    EXPECT_EQ(FailureHelper::Components(t, "link").size(),
              bom.Quantity("cable", "optical") + bom.Quantity("cable", "copper"));
    EXPECT_EQ(FailureHelper::Components(t, "switch").size(), fabricSwitches);
    EXPECT_EQ(FailureHelper::Components(t, "gpu").size(), 64u);
    EXPECT_EQ(FailureHelper::Components(t, "nic").size(), 64u);
    EXPECT_EQ(FailureHelper::Components(t, "server").size(), 8u);
    EXPECT_THROW(FailureHelper::Components(t, "fan"), std::invalid_argument);
}

TEST(FailureHelper, EffectsFollowWhatTheJobCannotRunWithout)
{
    // Two leaves, two spines, hosts 0-1 on leaf 0 and 2-3 on leaf 1; the job uses 0 and 2.
    const FabricTopology t = LeafSpineTopologyHelper(2, 2, 1).Build();
    FailureHelper helper;
    for (const char* kind : {"link", "switch", "gpu"})
    {
        helper.AddFailureMode(kind, ComponentFailureProcess::HARD, 3600.0, 3600.0);
    }
    helper.AddFailureMode("link", ComponentFailureProcess::LANE_LOSS, 3600.0, 3600.0);
    const auto& installed = helper.Install(t, nullptr, 1);
    const std::set<uint32_t> job{0, 2};
    std::map<std::string, uint32_t> effects;
    for (const auto& i : installed)
    {
        ++effects[FailureHelper::EffectOn(i, job)];
    }
    const uint32_t hosts = t.GetNHosts();
    ASSERT_EQ(hosts, 4u);
    // Hard: the job's 2 GPUs, their 2 links and their 2 leaves restart it; the 4 leaf-spine
    // links and the 2 spines reroute; the other GPUs and host links do not matter.
    // Lane loss: the links into the job's hosts and the 4 fabric links degrade it.
    EXPECT_EQ(effects["job restart"], 6u);
    EXPECT_EQ(effects["rerouted"], 6u);
    EXPECT_EQ(effects["degraded"], 6u);
    EXPECT_EQ(effects[""], 2u + 2u + 2u);
    EXPECT_THROW(helper.AddFailureMode("switch", ComponentFailureProcess::FLAP, 3600.0, 3600.0),
                 std::invalid_argument);
    EXPECT_THROW(helper.AddFailureMode("link", ComponentFailureProcess::HARD, 0.0, 3600.0),
                 std::invalid_argument);
    EXPECT_THROW(helper.AddFailureMode("fan", ComponentFailureProcess::HARD, 3600.0, 3600.0),
                 std::invalid_argument);
    Simulator::Destroy();
}

TEST(FailureHelper, ASwitchFailureTakesAllItsLinksDown)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(4, DataRate("100Gbps"), 2));
    FailureHelper helper;
    helper.AddFailureMode("switch", ComponentFailureProcess::HARD, 1.0, 1.0);
    const auto& installed = helper.Install(net->GetTopology(), net, 7);
    ASSERT_EQ(installed.size(), 1u);
    EXPECT_EQ(helper.GetStreamsUsed(), 2);
    // The trace fires as the switch fails, before its links change; right after, all are down.
    struct Probe
    {
        Ptr<FabricNetwork> net;
        bool allDown{false};
        bool upAtTrace{true};
        void Failed(const ComponentFailureProcess::Failure&)
        {
            for (uint32_t l = 0; l < net->GetTopology().Links().size(); ++l)
            {
                upAtTrace = upAtTrace && net->GetChannel(l)->IsUp();
            }
            Simulator::ScheduleNow(&Probe::Check, this);
        }
        void Check()
        {
            allDown = true;
            for (uint32_t l = 0; l < net->GetTopology().Links().size(); ++l)
            {
                allDown = allDown && !net->GetChannel(l)->IsUp();
            }
        }
    } probe{net};
    installed[0].process->TraceConnectWithoutContext("Failed", MakeCallback(&Probe::Failed, &probe));
    Simulator::Stop(Seconds(100));
    Simulator::Run();
    EXPECT_TRUE(probe.allDown);
    EXPECT_TRUE(probe.upAtTrace);
    EXPECT_GT(installed[0].process->GetFailureCount(), 10u); // about 50 in 100 s
    Simulator::Destroy();
}

// With a BarrierLatency the failure travels as the barrier does: the job stops when the failed
// rank's notice arrives, exactly that long after its queue pair gave up (so that every process
// of a distributed run stops it at the same time).
TEST(RetryLimit, WithABarrierLatencyTheJobStopsWhenTheFailuresNoticeArrives)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(4, DataRate("100Gbps"), 2));
    Ptr<TrainingJob> job = InstallRingJob(net, "50us");
    Time firstFailure = Time::Max();
    for (uint32_t h = 0; h < net->GetNHosts(); ++h)
    {
        Ptr<Node> node = net->GetHostNode(h);
        for (uint32_t a = 0; a < node->GetNApplications(); ++a)
        {
            node->GetApplication(a)->TraceConnectWithoutContext(
                "Failed", MakeBoundCallback(&RecordFirst, &firstFailure));
        }
    }
    FailOnce(HostChannel(net, 2), "hard", MicroSeconds(2500), Seconds(10));
    Simulator::Run();
    ASSERT_TRUE(job->IsInterrupted());
    ASSERT_LT(firstFailure, Time::Max());
    EXPECT_EQ(job->GetInterruptionTime(), firstFailure + MicroSeconds(50));
    EXPECT_NE(job->GetInterruptionCause().find("retry count"), std::string::npos);
    Simulator::Destroy();
}

// With a BarrierLatency, a failed collective (behind the barrier or queued) is reported when
// the failure's notice arrives, BarrierLatency after the queue pair gave up, and ends when it
// gave up; a launch after it fails at once.
class NoticedFailure : public testing::TestWithParam<bool>
{
};

TEST_P(NoticedFailure, TheRunFailsWhenTheNoticeArrivesAndEndsWhenTheRankFailed)
{
    const bool queued = GetParam();
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(16, DataRate("400Gbps"), 3));
    FailOnce(HostChannel(net, 2), "hard", MicroSeconds(20), Seconds(10));
    RdmaHelper rdma;
    rdma.Install(net);
    Ptr<CollectiveGroup> group = CollectiveHelper().Install(net, rdma, {0, 1, 2, 3});
    group->SetAttribute("BarrierLatency", StringValue("30us"));
    Time firstFailure = Time::Max();
    for (uint32_t r = 0; r < group->GetNRanks(); ++r)
    {
        group->GetApplication(r)->TraceConnectWithoutContext(
            "Failed", MakeBoundCallback(&RecordFirst, &firstFailure));
    }
    struct Sink
    {
        CollectiveResult result;
        Time reported;
        void Done(const CollectiveResult& r)
        {
            result = r;
            reported = Simulator::Now();
        }
    } sink;
    const Ptr<CollectiveAlgorithm> ring = CollectiveAlgorithm::Create("ring");
    const CollectiveRequest request = group->MakeRequest(ALL_REDUCE, 16 << 20);
    queued ? void(group->Queue(ring, request, MakeCallback(&Sink::Done, &sink)))
           : void(group->Run(ring, request, MakeCallback(&Sink::Done, &sink)));
    Simulator::Run();
    ASSERT_LT(firstFailure, Time::Max());
    EXPECT_TRUE(sink.result.failed);
    EXPECT_EQ(sink.result.end, firstFailure);
    EXPECT_EQ(sink.reported, firstFailure + MicroSeconds(30));
    Sink later;
    queued ? void(group->Queue(ring, request, MakeCallback(&Sink::Done, &later)))
           : void(group->Run(ring, request, MakeCallback(&Sink::Done, &later)));
    Simulator::Run();
    EXPECT_TRUE(later.result.failed);
    EXPECT_EQ(later.result.Duration(), Time(0));
    Simulator::Destroy();
}

INSTANTIATE_TEST_SUITE_P(RetryLimit, NoticedFailure, testing::Bool(),
                         [](const auto& info) { return info.param ? "Queued" : "BehindTheBarrier"; });

namespace
{
void
RecordState(std::vector<std::pair<Time, bool>>* states, bool up)
{
    states->emplace_back(Simulator::Now(), up);
}

/** The states a failure of \p mode (once at 10 us, 30 us long) gives a link it has no channel for. */
std::vector<std::pair<Time, bool>>
RemoteLinkStates(const std::string& mode)
{
    std::vector<std::pair<Time, bool>> states;
    Ptr<ComponentFailureProcess> p = CreateObject<ComponentFailureProcess>();
    p->SetAttribute("Mode", StringValue(mode));
    p->SetAttribute("TimeToFailure", PointerValue(CreateObjectWithAttributes<ConstantRandomVariable>(
                                         "Constant", DoubleValue(10e-6))));
    p->SetAttribute("TimeToRepair", PointerValue(CreateObjectWithAttributes<ConstantRandomVariable>(
                                        "Constant", DoubleValue(30e-6))));
    p->SetAttribute("MaxFailures", UintegerValue(1));
    p->SetAttribute("FlapCount", UintegerValue(2));
    p->SetAttribute("FlapDownTime", TimeValue(MicroSeconds(2)));
    p->SetAttribute("FlapUpTime", TimeValue(MicroSeconds(3)));
    p->SetComponent("link", "link");
    p->AddRemoteLink(MakeBoundCallback(&RecordState, &states));
    p->Start();
    Simulator::Run();
    Simulator::Destroy();
    return states;
}
} // namespace

// A link another MPI rank holds: a hard failure and each down of a flap take it down in this
// rank's view and release it again; lost lanes and bit errors are the holding rank's alone.
TEST(HardFailure, ALinkWithoutAChannelHereGoesDownAndUpInRoutingsViewOnly)
{
    using States = std::vector<std::pair<Time, bool>>;
    EXPECT_EQ(RemoteLinkStates("hard"),
              (States{{MicroSeconds(10), false}, {MicroSeconds(40), true}}));
    EXPECT_EQ(RemoteLinkStates("flap"), (States{{MicroSeconds(10), false},
                                                {MicroSeconds(12), true},
                                                {MicroSeconds(15), false},
                                                {MicroSeconds(17), true}}));
    EXPECT_TRUE(RemoteLinkStates("lane_loss").empty());
    EXPECT_TRUE(RemoteLinkStates("bit_errors").empty());
}
