// The long-horizon availability mode: checkpoint intervals against Young's and Daly's formulas,
// goodput against Daly's closed-form expectation, and the job's MTBI against 1 / sum(1/MTBF).
#include <gtest/gtest.h>

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cmath>
#include <map>
#include <set>
#include <iostream>

using namespace ns3;

TEST(CheckpointInterval, YoungAndDalyEqualTheirFormulas)
{
    // delta = 60 s, M = 3 h: Young sqrt(2 * 60 * 10800) = 1138.42 s; Daly adds the higher
    // terms: x = 60 / 21600, 1138.42 * (1 + sqrt(x)/3 + x/9) - 60 = 1098.77 s.
    EXPECT_NEAR(checkpoint::YoungInterval(Seconds(60), Hours(3)).GetSeconds(), 1138.4200, 1e-3);
    EXPECT_NEAR(checkpoint::DalyInterval(Seconds(60), Hours(3)).GetSeconds(), 1098.7714, 1e-3);
    // Beyond delta >= 2M Daly checkpoints once per MTBI.
    EXPECT_EQ(checkpoint::DalyInterval(Hours(3), Hours(1)), Hours(1));
}

TEST(CheckpointInterval, DalysIntervalMaximizesTheExpectedGoodput)
{
    const Time delta = Seconds(60);
    const Time restart = Minutes(5);
    const Time mtbi = Hours(2);
    const Time daly = checkpoint::DalyInterval(delta, mtbi);
    double best = 0;
    double bestTau = 0;
    for (double tau = 60; tau < 20000; tau += 1)
    {
        const double g = checkpoint::ExpectedGoodput(Seconds(tau), delta, restart, mtbi);
        if (g > best)
        {
            best = g;
            bestTau = tau;
        }
    }
    EXPECT_NEAR(daly.GetSeconds() / bestTau, 1.0, 0.01);
    EXPECT_NEAR(checkpoint::ExpectedGoodput(daly, delta, restart, mtbi) / best, 1.0, 1e-4);
}

namespace
{
/** A component failing with exponential times of mean \p mtbf and instant repair (a spare). */
Ptr<ComponentFailureProcess>
ExponentialComponent(double mtbfSeconds, const std::string& name)
{
    Ptr<ComponentFailureProcess> p = CreateObject<ComponentFailureProcess>();
    p->SetAttribute("TimeToFailure",
                    PointerValue(CreateObjectWithAttributes<ExponentialRandomVariable>(
                        "Mean", DoubleValue(mtbfSeconds), "Bound", DoubleValue(0))));
    p->SetAttribute("TimeToRepair", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    p->SetComponent(name, "gpu");
    return p;
}

/**
 * Run one job for \p horizon with interrupting components of MTBFs \p mtbfs (seconds: an MTBF
 * may exceed ns-3's clock), from stream \p stream.
 */
JobAvailabilityModel::Result
RunJob(const std::vector<double>& mtbfs, Time horizon, int64_t stream,
       const std::string& policy = "daly", Time restart = Minutes(5), Time checkpoint = Seconds(60))
{
    Ptr<JobAvailabilityModel> job = CreateObject<JobAvailabilityModel>();
    job->SetAttribute("CheckpointPolicy", StringValue(policy));
    job->SetAttribute("CheckpointTime", TimeValue(checkpoint));
    job->SetAttribute("RestartTime", TimeValue(restart));
    job->SetIterationTime(JobAvailabilityModel::HEALTHY, Seconds(5));
    std::vector<Ptr<ComponentFailureProcess>> components;
    for (std::size_t i = 0; i < mtbfs.size(); ++i)
    {
        components.push_back(ExponentialComponent(mtbfs[i], "c" + std::to_string(i)));
        stream += components.back()->AssignStreams(stream);
        job->AddInterruptingComponent(components.back(), mtbfs[i]);
        components.back()->Start();
    }
    job->Start();
    JobAvailabilityModel::Result r;
    Simulator::Schedule(horizon, [&]() {
        r = job->Finish();
        Simulator::Stop();
    });
    Simulator::Run();
    Simulator::Destroy();
    return r;
}

JobAvailabilityModel::Result
RunJob(const std::vector<Time>& mtbfs, Time horizon, int64_t stream,
       const std::string& policy = "daly", Time restart = Minutes(5))
{
    std::vector<double> seconds;
    for (Time m : mtbfs)
    {
        seconds.push_back(m.GetSeconds());
    }
    return RunJob(seconds, horizon, stream, policy, restart);
}
} // namespace

TEST(Availability, GoodputMatchesDalysExpectationWithinOnePercent)
{
    // 10 seeds x 100 days at an MTBI of 1 h: about 24,000 interruptions.
    const Time mtbi = Hours(1);
    const Time horizon = Days(100);
    const int seeds = 10;
    double useful = 0;
    double wall = 0;
    Time interval;
    for (int s = 0; s < seeds; ++s)
    {
        const auto r = RunJob({mtbi}, horizon, 1000 * s);
        useful += r.useful.GetSeconds();
        wall += r.wall.GetSeconds();
        interval = r.interval;
        // Every second of the horizon is accounted for exactly once.
        const Time sum = r.useful + r.unsaved + r.lostWork + r.checkpointTime + r.restartTime +
                         r.degradedLoss;
        EXPECT_NEAR(sum.GetSeconds(), r.wall.GetSeconds(), 1e-3);
        EXPECT_EQ(r.degradedLoss, Time(0));
    }
    EXPECT_EQ(interval, checkpoint::DalyInterval(Seconds(60), mtbi));
    const double expected = checkpoint::ExpectedGoodput(interval, Seconds(60), Minutes(5), mtbi);
    std::cout << "goodput " << useful / wall << ", closed form " << expected << "\n";
    EXPECT_NEAR(useful / wall / expected, 1.0, 0.01) << "measured " << useful / wall
                                                     << ", closed form " << expected;
}

TEST(Availability, FixedIntervalsAwayFromTheOptimumMatchTooAndDoWorse)
{
    const Time mtbi = Hours(1);
    for (const char* tau : {"10min", "2h"})
    {
        Config::SetDefault("ns3::JobAvailabilityModel::CheckpointInterval", StringValue(tau));
        double useful = 0;
        double wall = 0;
        uint64_t checkpoints = 0;
        for (int s = 0; s < 10; ++s)
        {
            const auto r = RunJob({mtbi}, Days(100), 1000 * s, "fixed");
            useful += r.useful.GetSeconds();
            wall += r.wall.GetSeconds();
            checkpoints += r.checkpoints;
        }
        const double expected =
            checkpoint::ExpectedGoodput(Time(tau), Seconds(60), Minutes(5), mtbi);
        // Useful work comes in whole checkpoints: the count of completed segments sets the
        // noise (times between completions have a coefficient of variation below 1).
        EXPECT_NEAR(useful / wall / expected, 1.0, 4 / std::sqrt(double(checkpoints)))
            << tau << ": " << checkpoints << " checkpoints";
        EXPECT_LT(expected, checkpoint::ExpectedGoodput(checkpoint::DalyInterval(Seconds(60), mtbi),
                                                        Seconds(60), Minutes(5), mtbi));
    }
    Config::Reset();
}

TEST(Availability, JobMtbiIsTheHarmonicCombinationOfComponentMtbfs)
{
    const std::vector<Time> mtbfs{Hours(2), Hours(4), Hours(8), Hours(16), Hours(32)};
    double rate = 0; // 1/h
    for (Time m : mtbfs)
    {
        rate += 1 / m.GetHours();
    }
    uint64_t interruptions = 0;
    const int seeds = 10;
    for (int s = 0; s < seeds; ++s)
    {
        interruptions += RunJob(mtbfs, Days(100), 1000 * s).interruptions;
    }
    // Poisson count: mean rate x time, standard deviation its square root.
    const double mean = rate * 2400 * seeds;
    EXPECT_NEAR(double(interruptions), mean, 4 * std::sqrt(mean));
    const double mtbiHours = 2400.0 * seeds / interruptions;
    EXPECT_NEAR(mtbiHours * rate, 1.0, 4 / std::sqrt(mean));
}

// Issue 17: a time to failure drawn past half the clock left (53 days at the start) was
// dropped and its component never failed again, so 100-day runs saw about half the
// interruptions of components whose MTBF is long.
TEST(Availability, LongMtbfsInterruptAtTheirRateOverAHundredDays)
{
    struct Case
    {
        uint32_t gpus;
        double mtbfHours;
        int seeds;
    };
    // Before the fix: 54%, 86% and 67% of the expected rate.
    for (const Case c : {Case{64, 1e5, 40}, Case{8, 320, 20}, Case{8, 1280, 40}})
    {
        uint64_t interruptions = 0;
        for (int s = 0; s < c.seeds; ++s)
        {
            interruptions +=
                RunJob(std::vector<double>(c.gpus, c.mtbfHours * 3600), Days(100), 100000 * s)
                    .interruptions;
        }
        const double mean = c.gpus / c.mtbfHours * 2400 * c.seeds;
        std::cout << c.gpus << " GPUs at " << c.mtbfHours << " h: " << interruptions / mean
                  << " of the expected interruption rate\n";
        EXPECT_NEAR(double(interruptions), mean, 4 * std::sqrt(mean))
            << c.gpus << " GPUs at " << c.mtbfHours << " h: " << interruptions / mean
            << " of the expected rate";
    }
}

TEST(Availability, ThousandGpuJobOverAHundredDaysMatchesDalysGoodput)
{
    // 1,024 GPUs at an MTBF of 2e4 h (MTBI 19.5 h), 10-minute checkpoints at Daly's interval:
    // about 123 interruptions per run.  Before the fix the run lost half the interruptions
    // and its goodput came out about 8% above the closed form.
    const Time mtbi = Seconds(2e4 * 3600 / 1024);
    double useful = 0;
    double wall = 0;
    for (int s = 0; s < 10; ++s)
    {
        const auto r = RunJob(std::vector<double>(1024, 2e4 * 3600), Days(100), 2000 * s, "daly",
                              Minutes(5), Minutes(10));
        useful += r.useful.GetSeconds();
        wall += r.wall.GetSeconds();
    }
    const Time interval = checkpoint::DalyInterval(Minutes(10), mtbi);
    const double expected = checkpoint::ExpectedGoodput(interval, Minutes(10), Minutes(5), mtbi);
    std::cout << "1,024 GPUs: goodput " << useful / wall << ", closed form " << expected << "\n";
    EXPECT_NEAR(useful / wall / expected, 1.0, 0.02)
        << "measured " << useful / wall << ", closed form " << expected;
}

TEST(Availability, DegradedFabricSlowsWorkByTheIterationTimeRatio)
{
    // No interruptions; a link is at reduced rate for the second half: 5 s -> 8 s iterations.
    Ptr<JobAvailabilityModel> job = CreateObject<JobAvailabilityModel>();
    job->SetAttribute("CheckpointPolicy", StringValue("fixed"));
    job->SetAttribute("CheckpointInterval", TimeValue(Hours(1)));
    job->SetIterationTime(JobAvailabilityModel::HEALTHY, Seconds(5));
    job->SetIterationTime(JobAvailabilityModel::REDUCED_RATE, Seconds(8));
    Ptr<ComponentFailureProcess> lanes = CreateObject<ComponentFailureProcess>();
    lanes->SetAttribute("Mode", StringValue("lane_loss"));
    lanes->SetAttribute("TimeToFailure", StringValue("ns3::ConstantRandomVariable[Constant=43200]"));
    lanes->SetAttribute("TimeToRepair", StringValue("ns3::ConstantRandomVariable[Constant=1e9]"));
    lanes->SetComponent("link 7", "transceiver");
    job->AddDegradingComponent(lanes, JobAvailabilityModel::REDUCED_RATE);
    lanes->Start();
    job->Start();
    JobAvailabilityModel::Result r;
    Simulator::Schedule(Days(1), [&]() { r = job->Finish(); });
    Simulator::Stop(Days(1));
    Simulator::Run();
    Simulator::Destroy();
    // 24 checkpoints of 60 s (the last ends at 24 h + 23 min: 23 written); compute 24 h - 23 min.
    EXPECT_EQ(r.interruptions, 0u);
    const double compute = 86400 - r.checkpointTime.GetSeconds();
    const double work = r.useful.GetSeconds() + r.unsaved.GetSeconds();
    const double slowShare = r.degradedLoss.GetSeconds() / (1 - 5.0 / 8);
    EXPECT_NEAR(work + r.degradedLoss.GetSeconds(), compute, 1e-3);
    // The slow compute time is the second half minus its checkpoints.
    EXPECT_GT(slowShare, 43200 - 13 * 60);
    EXPECT_LT(slowShare, 43200);
}

TEST(Availability, WeibullTimesToFailureHaveTheGivenMean)
{
    // 64 GPUs, Weibull shape 0.7 (infant mortality), MTBF 10 h, instant repair, 100 days: by the
    // renewal theorem each fails horizon / MTBF times on average.  Counts of a renewal process
    // have variance ~ n cv^2, cv^2 = Gamma(1 + 2/k) / Gamma(1 + 1/k)^2 - 1.
    FabricTopology t;
    for (uint32_t g = 0; g < 64; ++g)
    {
        t.AddHost("g" + std::to_string(g), g / 8, g % 8);
    }
    FailureHelper helper;
    const double k = 0.7;
    helper.AddFailureMode("gpu", ComponentFailureProcess::HARD, 36000.0, 0.0, k);
    const auto& installed = helper.Install(t, nullptr, 1);
    Simulator::Stop(Days(100));
    Simulator::Run();
    double failures = 0;
    for (const auto& i : installed)
    {
        failures += i.process->GetFailureCount();
    }
    const double mean = 64 * 2400 / 10.0;
    const double cv2 = std::tgamma(1 + 2 / k) / std::pow(std::tgamma(1 + 1 / k), 2) - 1;
    EXPECT_NEAR(failures, mean, 4 * std::sqrt(mean * cv2));
    Simulator::Destroy();
}

// The model classifies what a failure does to a job from the failure's mode and where the
// component sits; the helper only says where (FailureHelper::EffectOf).
TEST(Availability, FailureEffectsFollowModeAndReach)
{
    using M = JobAvailabilityModel;
    using P = ComponentFailureProcess;
    const P::Mode modes[] = {P::HARD, P::FLAP, P::BIT_ERRORS, P::LANE_LOSS};
    const M::Effect onJob[] = {M::RESTART, M::RESTART, M::DEGRADED, M::DEGRADED};
    const M::Effect shared[] = {M::REROUTED, M::REROUTED, M::DEGRADED, M::DEGRADED};
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(M::EffectOf(modes[i], M::JOB_HOSTS), onJob[i]) << i;
        EXPECT_EQ(M::EffectOf(modes[i], M::SHARED_FABRIC), shared[i]) << i;
        EXPECT_EQ(M::EffectOf(modes[i], M::OTHER_HOSTS), M::NO_EFFECT) << i;
    }
    EXPECT_EQ(M::DegradedState(M::REROUTED, P::HARD), M::LINK_DOWN);
    EXPECT_EQ(M::DegradedState(M::DEGRADED, P::LANE_LOSS), M::REDUCED_RATE);
    EXPECT_EQ(M::DegradedState(M::DEGRADED, P::BIT_ERRORS), M::BIT_ERRORS);
    EXPECT_STREQ(M::EffectName(M::RESTART), "job restart");
    EXPECT_STREQ(M::EffectName(M::NO_EFFECT), "");
    // Through the helper: a k=4 fat-tree job on hosts 0 and 1 (edge p0e0).
    const FabricTopology topo = FatTreeTopologyHelper(4).Build();
    FailureHelper helper;
    helper.AddFailureMode("switch", P::HARD, 1e6, std::nullopt);
    const auto& installed = helper.Install(topo, nullptr, 0);
    const std::set<uint32_t> job{0, 1};
    std::map<std::string, std::string> effect;
    for (const auto& i : installed)
    {
        effect[i.component->name] = FailureHelper::EffectOn(i, job);
    }
    EXPECT_EQ(effect.at("p0e0"), "job restart"); // the job's leaf serves its hosts
    EXPECT_EQ(effect.at("p1e0"), "");            // serves other hosts only
    EXPECT_EQ(effect.at("p0a0"), "rerouted");    // shared: routed around
    Simulator::Destroy();
}
