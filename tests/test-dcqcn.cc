// DCQCN: the rate machine against its update rules, and a 16:1 incast against the behaviour
// the DCQCN paper reports (no loss, the bottleneck kept busy, fair shares).
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <iostream>

#include <cmath>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** The paper's Algorithm 1: every cut clamps the target; F = 5; the 10 MB byte counter. */
Ptr<DcqcnCongestionControl>
PaperDcqcn()
{
    Ptr<DcqcnCongestionControl> cc = CreateObject<DcqcnCongestionControl>();
    cc->SetAttribute("ClampTargetRate", BooleanValue(true));
    cc->SetAttribute("FastRecoverySteps", UintegerValue(5));
    cc->SetAttribute("ByteCounter", UintegerValue(10000000));
    return cc;
}
} // namespace

TEST(Dcqcn, PaperRateMachineFollowsUpdateRules)
{
    Ptr<DcqcnCongestionControl> cc = PaperDcqcn();
    cc->Attach(DataRate("100Gbps"));
    const double g = 1.0 / 256;
    std::vector<double> rates;
    std::vector<double> alphas;
    auto sample = [&]() {
        rates.push_back(cc->GetRate().GetBitRate() / 1e9);
        alphas.push_back(cc->GetAlpha());
    };
    Simulator::Schedule(MicroSeconds(0), &RdmaCongestionControl::NotifyCongestion, cc);
    Simulator::Schedule(MicroSeconds(1), sample);   // after the cut
    Simulator::Schedule(MicroSeconds(56), sample);  // one fast-recovery step
    Simulator::Schedule(MicroSeconds(111), sample); // two
    Simulator::Schedule(MicroSeconds(200), &RdmaCongestionControl::NotifyCongestion, cc);
    Simulator::Schedule(MicroSeconds(201), sample);
    Simulator::Run();
    Simulator::Destroy();

    // alpha starts at 1: the first CNP halves the rate and leaves alpha at (1-g) + g = 1.
    EXPECT_DOUBLE_EQ(rates[0], 50);
    EXPECT_DOUBLE_EQ(alphas[0], 1);
    EXPECT_DOUBLE_EQ(rates[1], 75);   // (Rc + Rt) / 2 with Rt = 100
    EXPECT_DOUBLE_EQ(rates[2], 87.5);
    // At 200 us: three timer steps (93.75 Gb/s), alpha decayed for 3 periods of 55 us, then
    // cut by alpha/2 and alpha updated.
    const double alpha = std::pow(1 - g, 3);
    EXPECT_NEAR(rates[3], 93.75 * (1 - alpha / 2), 1e-6);
    EXPECT_NEAR(alphas[3], (1 - g) * alpha + g, 1e-12);
}

TEST(Dcqcn, DefaultRateMachineKeepsTargetOverBackToBackCutsAndHyperIncreasesByTimer)
{
    // Defaults: target unclamped, F = 1, no byte counter (the timer advances both stages).
    Ptr<DcqcnCongestionControl> cc = CreateObject<DcqcnCongestionControl>();
    cc->Attach(DataRate("100Gbps"));
    const double g = 1.0 / 256;
    const double hai = 0.2; // 50 Mb/s per 25G at 100G, in Gb/s
    std::vector<double> rates;
    std::vector<double> targets;
    auto sample = [&]() {
        rates.push_back(cc->GetRate().GetBitRate() / 1e9);
        targets.push_back(cc->GetTargetRate().GetBitRate() / 1e9);
    };
    for (int us : {0, 10, 70})
    {
        Simulator::Schedule(MicroSeconds(us), &RdmaCongestionControl::NotifyCongestion, cc);
    }
    for (int us : {1, 11, 66, 71, 126, 181})
    {
        Simulator::Schedule(MicroSeconds(us), sample);
    }
    Simulator::Run();
    Simulator::Destroy();

    EXPECT_DOUBLE_EQ(rates[0], 50);
    EXPECT_DOUBLE_EQ(targets[0], 100);
    EXPECT_DOUBLE_EQ(rates[1], 25);    // a second cut before any increase ...
    EXPECT_DOUBLE_EQ(targets[1], 100); // ... keeps the first cut's target
    // 55 us after the second cut: stage 1 = F for both counts, hyper increase (target capped
    // at line rate), and the rate halfway to it.
    EXPECT_DOUBLE_EQ(rates[2], 62.5);
    EXPECT_DOUBLE_EQ(targets[2], 100);
    // A cut after a timer increase clamps the target; alpha decayed one period since 10 us.
    const double alpha = 1 - g;
    const double cut = 62.5 * (1 - alpha / 2);
    EXPECT_NEAR(targets[3], 62.5, 1e-6);
    EXPECT_NEAR(rates[3], cut, 1e-6);
    // Then hyper increase by the timer alone: i = 1, then 2.
    EXPECT_NEAR(targets[4], 62.5 + hai, 1e-6);
    EXPECT_NEAR(rates[4], (cut + 62.5 + hai) / 2, 1e-6);
    EXPECT_NEAR(targets[5], 62.5 + 3 * hai, 1e-6);
    EXPECT_NEAR(rates[5], (rates[4] + 62.5 + 3 * hai) / 2, 1e-6);
}

namespace
{
struct IncastOutcome
{
    std::vector<double> fctUs;
    uint64_t drops{0};
    uint64_t pauses{0};
    uint64_t cnps{0};
    double bottleneckUtilization{0};
    double lastCompletionUs{0};
};

IncastOutcome
RunIncast(TypeId cc, uint32_t senders, uint64_t bytes)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(senders + 1, DataRate("100Gbps"), 2));
    RdmaHelper rdma;
    rdma.SetNicAttribute("CongestionControl", TypeIdValue(cc));
    rdma.Install(net);
    IncastOutcome o;
    o.fctUs.assign(senders, 0);
    std::vector<Ptr<RdmaQueuePair>> responders;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        auto [requester, responder] = rdma.Connect(net, s, 0);
        responders.push_back(responder);
        double* slot = &o.fctUs[s - 1];
        requester->PostSend(bytes, Callback<void, uint64_t, uint64_t>([slot](uint64_t, uint64_t) {
                                *slot = Simulator::Now().GetSeconds() * 1e6;
                            }));
    }
    Simulator::Run();
    const FabricTotals t = Totals(net);
    o.drops = t.framesDropped;
    o.pauses = t.pfcPausesSent;
    for (const auto& r : responders)
    {
        o.cnps += r->GetCounters().cnpsSent;
    }
    o.lastCompletionUs = *std::max_element(o.fctUs.begin(), o.fctUs.end());
    // The switch port toward the receiver: the leaf's port on link 0.
    const uint32_t leaf = senders + 1;
    const Time busy = net->GetPort(leaf, 0)->GetCounters().busyTime;
    o.bottleneckUtilization = busy.GetSeconds() / (o.lastCompletionUs * 1e-6);
    Simulator::Destroy();
    return o;
}

double
Jain(const std::vector<double>& x)
{
    double sum = 0;
    double squares = 0;
    for (double v : x)
    {
        sum += v;
        squares += v * v;
    }
    return sum * sum / (x.size() * squares);
}
} // namespace

/** Sets attribute defaults for one scope and restores the previous ones after. */
class ScopedDefaults
{
  public:
    explicit ScopedDefaults(const std::vector<std::pair<std::string, std::string>>& values)
    {
        for (const auto& [name, value] : values)
        {
            const auto at = name.rfind("::");
            TypeId::AttributeInformation info;
            TypeId::LookupByName(name.substr(0, at)).LookupAttributeByName(name.substr(at + 2), &info);
            m_saved.emplace_back(name, info.initialValue->SerializeToString(info.checker));
            Config::SetDefault(name, StringValue(value));
        }
    }
    ~ScopedDefaults()
    {
        for (const auto& [name, value] : m_saved)
        {
            Config::SetDefault(name, StringValue(value));
        }
    }

  private:
    std::vector<std::pair<std::string, std::string>> m_saved;
};

TEST(Dcqcn, Incast16To1IsLosslessFairAndKeepsTheBottleneckBusy)
{
    // All 16 senders start at line rate; DCQCN must bring the aggregate down to the receiver's
    // 100G and then hold the bottleneck busy without PFC doing the work (DCQCN paper, Sec. 6).
    const uint64_t bytes = 4 << 20;
    const IncastOutcome o = RunIncast(DcqcnCongestionControl::GetTypeId(), 16, bytes);
    EXPECT_EQ(o.drops, 0u);
    EXPECT_GT(o.cnps, 0u);
    EXPECT_GE(o.bottleneckUtilization, 0.9); // measured 0.951
    EXPECT_EQ(o.pauses, 0u); // the queue stays under the PFC threshold
    std::vector<double> throughput;
    for (double fct : o.fctUs)
    {
        throughput.push_back(bytes / fct);
    }
    EXPECT_GE(Jain(throughput), 0.95); // measured 0.997

    // The paper's Algorithm-1 settings over-cut the same incast: after the initial burst every
    // QP sits near the floor in additive increase, since its byte counter (10 MB) never fills.
    ScopedDefaults paper({{"ns3::DcqcnCongestionControl::ClampTargetRate", "true"},
                          {"ns3::DcqcnCongestionControl::FastRecoverySteps", "5"},
                          {"ns3::DcqcnCongestionControl::ByteCounter", "10000000"}});
    const IncastOutcome p = RunIncast(DcqcnCongestionControl::GetTypeId(), 16, bytes);
    EXPECT_EQ(p.drops, 0u);
    EXPECT_LT(p.bottleneckUtilization, 0.75) << "measured 0.49";
}

TEST(Dcqcn, CongestionControlChangesTheCongestedCase)
{
    const uint64_t bytes = 4 << 20;
    const IncastOutcome none = RunIncast(NoneCongestionControl::GetTypeId(), 16, bytes);
    const IncastOutcome dcqcn = RunIncast(DcqcnCongestionControl::GetTypeId(), 16, bytes);
    EXPECT_EQ(none.drops, 0u);
    EXPECT_GT(none.pauses, 0u); // without CC, PFC alone holds the incast
    EXPECT_EQ(none.cnps > 0, true);
    EXPECT_LT(dcqcn.pauses, none.pauses);
    std::cout << "16:1 incast of 4 MiB: last completion " << dcqcn.lastCompletionUs
              << " us with DCQCN, " << none.lastCompletionUs << " us without; pauses "
              << dcqcn.pauses << " and " << none.pauses << "\n";
    // Fewer pauses at little cost: the bottleneck drains the same bytes within 10% of the time.
    EXPECT_LT(dcqcn.lastCompletionUs, 1.1 * none.lastCompletionUs);
}
