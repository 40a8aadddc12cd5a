// Failures through ai-fabric-run: a flapping link's downs are in failures.csv and in its
// links.csv counters; the availability run's goodput matches Daly's closed form; the same
// scenario gives the same files; bad failure and availability input exits 2.
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace aifabric_test;
using nlohmann::json;

namespace
{
Outcome
RunScenario(const fs::path& dir, const std::string& scenario, const std::string& out = "out")
{
    std::ofstream(dir / "s.json") << scenario;
    return RunProgram(AI_FABRIC_RUN_BINARY,
                      "--scenario=" + (dir / "s.json").string() + " --out=" + (dir / out).string(),
                      dir);
}

/** A 2-leaf fabric with one data-parallel job of 8 GPUs and \p sections. */
std::string
JobScenario(const std::string& sections)
{
    return R"({"name":"f","topology":{"kind":"leaf_spine","leaves":2,"hosts_per_leaf":4,
               "oversubscription":1,"nic_rate":"100Gbps"},
               "training":{"jobs":[{"name":"dp8","ranks":8,"iterations":3,
                 "compute_time":"400us","parameters":2000000}]},)" +
           sections + "}";
}
} // namespace

TEST(FailureRunner, EveryDownOfAFlapIsInFailuresCsvAndTheLinkCounters)
{
    const fs::path dir = Scratch("flap");
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" AI_FABRIC_SCENARIO_DIR "/link-flap.json --out=" +
                                     (dir / "out").string(),
                                 dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const auto failures = ReadCsv(dir / "out" / "failures.csv");
    int flaps = 0;
    double flapDown = 0;
    uint64_t lost = 0;
    for (const auto& row : failures)
    {
        if (row.at("mode") == "flap")
        {
            ++flaps;
            flapDown += std::stod(row.at("duration_s"));
            EXPECT_EQ(row.at("component"), "p0e0-p0a1"); // link 17, by its ends
            EXPECT_EQ(row.at("assumed_effect"), "rerouted");
            lost += std::stoull(row.at("frames_lost"));
            EXPECT_EQ(row.at("jobs_interrupted"), "");
        }
    }
    EXPECT_EQ(flaps, 3);
    // RDMA traffic crossed link 17: its downs cost frames, which links.csv counts too.
    uint64_t linkDownDrops = 0;
    for (const auto& row : ReadCsv(dir / "out" / "links.csv"))
    {
        if (row.at("link") == "17")
        {
            linkDownDrops += std::stoull(row.at("drop_link_down"));
        }
    }
    EXPECT_GT(lost, 0u);
    EXPECT_EQ(lost, linkDownDrops);
    for (const auto& row : ReadCsv(dir / "out" / "links.csv"))
    {
        if (row.at("link") == "17")
        {
            EXPECT_EQ(row.at("downs"), "3");
            EXPECT_NEAR(std::stod(row.at("down_us")), flapDown * 1e6, 1e-6);
        }
        else if (row.at("link") != "5")
        {
            EXPECT_EQ(row.at("downs"), "0") << "link " << row.at("link");
        }
    }
    const json summary = json::parse(ReadFile(dir / "out" / "summary.json"));
    EXPECT_EQ(summary["flows_complete"], summary["flows"]);
    EXPECT_EQ(summary["failures"]["outages"], failures.size());
    fs::remove_all(dir);
}

// Issue 18: a link given by its ends or by its id is the same link, in link_events and in
// failure injection; a name that joins no two nodes exits 2.
TEST(FailureRunner, LinksByNameOrIdAreTheSameLink)
{
    const fs::path dir = Scratch("link-names");
    const std::string base = R"({"topology":{"kind":"fat_tree","k":4,"nic_rate":"100Gbps"},
        "traffic":{"pattern":"shift","shift":8,"bytes":1048576,"transport":"rdma"},)";
    const std::map<std::string, std::string> variants = {
        {"event-id", R"("link_events":[{"link":17,"at":"20us","state":"down"}]})"},
        {"event-name", R"("link_events":[{"link":"p0a1-p0e0","at":"20us","state":"down"}]})"},
        {"inject-id", R"("failures":{"inject":[{"component":"link 17","at":"20us"}]}})"},
        {"inject-name", R"("failures":{"inject":[{"component":"p0e0-p0a1","at":"20us"}]}})"},
        {"inject-reversed", R"("failures":{"inject":[{"component":"p0a1-p0e0","at":"20us"}]}})"}};
    for (const auto& [name, tail] : variants)
    {
        std::ofstream(dir / (name + ".json")) << base + tail;
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + (dir / (name + ".json")).string() +
                                         " --out=" + (dir / name).string(),
                                     dir);
        ASSERT_EQ(o.exitCode, 0) << name << ": " << o.stderrText;
    }
    for (const char* file : {"links.csv", "flows.csv"})
    {
        EXPECT_EQ(ReadFile(dir / "event-id" / file), ReadFile(dir / "event-name" / file)) << file;
        EXPECT_EQ(ReadFile(dir / "inject-id" / file), ReadFile(dir / "inject-name" / file)) << file;
    }
    EXPECT_EQ(ReadFile(dir / "inject-id" / "failures.csv"),
              ReadFile(dir / "inject-name" / "failures.csv"));
    EXPECT_EQ(ReadFile(dir / "inject-reversed" / "failures.csv"),
              ReadFile(dir / "inject-name" / "failures.csv"));
    for (const auto& row : ReadCsv(dir / "event-name" / "links.csv"))
    {
        EXPECT_EQ(row.at("downs"), row.at("link") == "17" ? "1" : "0") << row.at("name");
        if (row.at("link") == "17")
        {
            EXPECT_EQ(row.at("name"), "p0e0-p0a1");
        }
    }
    std::ofstream(dir / "bad.json")
        << base + R"("link_events":[{"link":"s0g0-c0","at":"20us","state":"down"}]})";
    const Outcome bad = RunProgram(AI_FABRIC_RUN_BINARY,
                                   "--scenario=" + (dir / "bad.json").string() +
                                       " --out=" + (dir / "bad").string(),
                                   dir);
    ExpectRefusedAsBadInput(bad, dir / "bad", "link_events[0].link");
    fs::remove_all(dir);
}

TEST(FailureRunner, AGpuFailureInterruptsTheJobAtPacketLevel)
{
    const fs::path dir = Scratch("gpu-failure");
    const Outcome o = RunScenario(
        dir, JobScenario(R"("failures":{"inject":[{"component":"s3g0","kind":"gpu","at":"2ms"}]})"));
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json job = json::parse(ReadFile(dir / "out" / "summary.json"))["training"]["jobs"][0];
    EXPECT_TRUE(job["interrupted"].get<bool>());
    EXPECT_FALSE(job["finished"].get<bool>());
    EXPECT_DOUBLE_EQ(job["interrupted_at_s"].get<double>(), 0.002);
    EXPECT_NE(job["interruption"].get<std::string>().find("s3g0"), std::string::npos);
    const auto failures = ReadCsv(dir / "out" / "failures.csv");
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].at("assumed_effect"), "job restart");
    EXPECT_EQ(failures[0].at("jobs_interrupted"), "dp8");
    EXPECT_EQ(failures[0].at("frames_lost"), "0"); // a GPU has no links of its own
    EXPECT_NE(o.stdoutText.find("interrupted at"), std::string::npos);
    fs::remove_all(dir);
}

// Issue 17: a flap of a job's host link while the job computes changed nothing in the run,
// yet failures.csv said "job restart" (what the availability model assumes) and nothing else.
TEST(FailureRunner, AnIdleLinksFlapIsAssumedARestartButCostsNothingInTheRun)
{
    const fs::path dir = Scratch("idle-flap");
    const Outcome o = RunScenario(
        dir, JobScenario(R"("failures":{"inject":[{"component":"link 0","mode":"flap",
             "at":"100us","flap_count":1,"flap_down_time":"20us","flap_up_time":"10us"}]})"));
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const auto failures = ReadCsv(dir / "out" / "failures.csv");
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].at("assumed_effect"), "job restart");
    EXPECT_EQ(failures[0].at("frames_lost"), "0");
    EXPECT_EQ(failures[0].at("jobs_interrupted"), "");
    const json job = json::parse(ReadFile(dir / "out" / "summary.json"))["training"]["jobs"][0];
    EXPECT_FALSE(job["interrupted"].get<bool>());
    EXPECT_TRUE(job["finished"].get<bool>());
    fs::remove_all(dir);
}

TEST(FailureRunner, DefaultsOfFailureModesAreTheProcessAttributes)
{
    // Keys a failure mode leaves out take ComponentFailureProcess's attribute defaults, so a
    // default set on the command line reaches them (the runner once wrote its own 4 h repair
    // time over it).  A flap without flap_* keys has the attribute's 5 downs.
    const fs::path dir = Scratch("mode-defaults");
    std::ofstream(dir / "s.json") << JobScenario(
        R"("failures":{"components":[{"kind":"link","mtbf":"100h"}],
                       "inject":[{"component":"link 0","mode":"flap","at":"100us"}]},
           "availability":{"horizon":"30d","iteration_times":{"healthy":"10ms"}})");
    const Outcome o = RunProgram(
        AI_FABRIC_RUN_BINARY,
        "--scenario=" + (dir / "s.json").string() + " --out=" + (dir / "out").string() +
            " --ns3::ComponentFailureProcess::TimeToRepair=ns3::ConstantRandomVariable[Constant=60]",
        dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    uint32_t hard = 0;
    uint32_t flaps = 0;
    for (const auto& row : ReadCsv(dir / "out" / "failures.csv"))
    {
        if (row.at("mode") == "hard")
        {
            ++hard;
            EXPECT_EQ(row.at("duration_s"), "60") << row.at("component");
        }
        flaps += row.at("mode") == "flap" ? 1 : 0;
    }
    EXPECT_GT(hard, 10u); // 14 links x 720 h / 100 h: about 100
    EXPECT_EQ(flaps, 5u);
    fs::remove_all(dir);
}

TEST(FailureRunner, AvailabilityGoodputMatchesDalysClosedFormAndRepeats)
{
    // GPUs that fail with an MTBI of 2.5 h for the job, over 2 x 100 days: ~1,900 restarts.
    const fs::path dir = Scratch("availability");
    const std::string scenario = R"({"name":"a","topology":{"kind":"leaf_spine","leaves":2,"hosts_per_leaf":4},
        "failures":{"components":[{"kind":"gpu","mtbf":"20h","mttr":"0s"}]},
        "availability":{"horizon":"100d","runs":2,"checkpoint_time":"60s",
          "restart_time":"5min","iteration_times":{"healthy":"2s"},
          "sweep_intervals":["10min","2h"]}})";
    const Outcome o = RunScenario(dir, scenario);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json a = json::parse(ReadFile(dir / "out" / "summary.json"))["availability"];
    EXPECT_NEAR(a["expected_mtbi_s"].get<double>(), 2.5 * 3600, 1e-6);
    EXPECT_NEAR(a["checkpoint_interval_s"].get<double>(), a["daly_interval_s"].get<double>(), 1e-6);
    EXPECT_NEAR(a["goodput"].get<double>() / a["closed_form_goodput"].get<double>(), 1.0, 0.01);
    for (const auto& row : ReadCsv(dir / "out" / "availability.csv"))
    {
        const double checkpoints = std::stod(row.at("checkpoints")) * 2;
        EXPECT_NEAR(std::stod(row.at("goodput")) / std::stod(row.at("closed_form_goodput")), 1.0,
                    std::max(0.01, 4 / std::sqrt(checkpoints)))
            << row.at("checkpoint_interval_s");
    }
    // Interruptions per day within 4 sigma of the Poisson count.
    const double perDay = a["interruptions_per_day"].get<double>();
    EXPECT_NEAR(perDay, 24 / 2.5, 4 * std::sqrt(24 / 2.5 * 200) / 200);
    const Outcome again = RunScenario(dir, scenario, "again");
    ASSERT_EQ(again.exitCode, 0);
    ExpectIdenticalResults(dir / "out", dir / "again", {"failures.csv", "availability.csv"});
    fs::remove_all(dir);
}

TEST(FailureRunner, WithoutInterruptionsOnlyCheckpointsCost)
{
    // Gray failures that cost nothing (reduced_rate as fast as healthy): goodput is
    // tau / (tau + delta), and there is no MTBI, Young or Daly interval to report.
    const fs::path dir = Scratch("no-interruptions");
    const Outcome o = RunScenario(dir, R"({"name":"n","topology":{"kind":"leaf_spine",
        "leaves":2,"hosts_per_leaf":2},
        "failures":{"components":[{"kind":"link","mode":"lane_loss","mtbf":"10h"}]},
        "availability":{"horizon":"30d","checkpoint_policy":"fixed","checkpoint_interval":"1h",
          "checkpoint_time":"60s","iteration_times":{"healthy":"1s","reduced_rate":"1s"}}})");
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json a = json::parse(ReadFile(dir / "out" / "summary.json"))["availability"];
    EXPECT_TRUE(a["expected_mtbi_s"].is_null());
    EXPECT_TRUE(a["daly_interval_s"].is_null());
    EXPECT_EQ(a["interruptions_per_day"].get<double>(), 0.0);
    // Checkpoints end every 61 min; the work after the last one is not counted.
    const double expected = 3600.0 / 3660 * (30 * 86400 - std::fmod(30 * 86400.0, 3660)) / (30 * 86400);
    EXPECT_NEAR(a["goodput"].get<double>(), expected, 1e-9);
    EXPECT_NE(o.stdoutText.find("no failure interrupts the job"), std::string::npos);
    fs::remove_all(dir);
}

namespace
{
struct BadFailure
{
    const char* name;
    std::string scenario;
    std::string mustMention;
};

class FailureBadInput : public testing::TestWithParam<BadFailure>
{
};

const std::string kStar = R"("name":"b","topology":{"kind":"leaf_spine","leaves":2,"hosts_per_leaf":2},)";
const std::string kAvailability =
    R"("availability":{"horizon":"10d","iteration_times":{"healthy":"1s"}})";
} // namespace

TEST_P(FailureBadInput, ExitsTwoWithOneLineAndNoResults)
{
    const fs::path dir = Scratch(GetParam().name);
    const Outcome o = RunScenario(dir, GetParam().scenario);
    ExpectRefusedAsBadInput(o, dir / "out", GetParam().mustMention);
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Classes,
    FailureBadInput,
    testing::Values(
        BadFailure{"negative_mtbf",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"-5h"}]},)" +
                       kAvailability + "}",
                   "failures.components[0].mtbf"},
        BadFailure{"zero_mtbf",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"0s"}]},)" +
                       kAvailability + "}",
                   "must be > 0"},
        BadFailure{"ber_one",
                   "{" + kStar +
                       R"("failures":{"components":[{"kind":"link","mode":"bit_errors","mtbf":"5h","bit_error_rate":1}]},)" +
                       kAvailability + "}",
                   "bit_error_rate = 1: allowed: a number in [0, 0.5]"},
        BadFailure{"ber_negative",
                   "{" + kStar +
                       R"("failures":{"components":[{"kind":"link","mode":"bit_errors","mtbf":"5h","bit_error_rate":-0.1}]},)" +
                       kAvailability + "}",
                   "failures.components[0].bit_error_rate"},
        BadFailure{"ber_moved",
                   "{" + kStar +
                       R"("failures":{"components":[{"kind":"link","mode":"bit_errors","mtbf":"5h","ber":1e-6}]},)" +
                       kAvailability + "}",
                   "failures.components[0].ber = 1e-06: moved to failures.components.bit_error_rate"},
        BadFailure{"unknown_kind",
                   "{" + kStar + R"("failures":{"components":[{"kind":"fan","mtbf":"5h"}]},)" +
                       kAvailability + "}",
                   "\"transceiver\""},
        BadFailure{"unknown_mode",
                   "{" + kStar +
                       R"("failures":{"components":[{"kind":"link","mode":"melt","mtbf":"5h"}]},)" +
                       kAvailability + "}",
                   "lane_loss"},
        BadFailure{"switch_that_flaps",
                   "{" + kStar +
                       R"("failures":{"components":[{"kind":"switch","mode":"flap","mtbf":"5h"}]},)" +
                       kAvailability + "}",
                   "only fails hard"},
        BadFailure{"checkpoint_interval_zero",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"5h"}]},)" +
                       R"("availability":{"horizon":"10d","checkpoint_policy":"fixed",
                          "checkpoint_interval":"0s","iteration_times":{"healthy":"1s"}}})",
                   "availability.checkpoint_interval"},
        BadFailure{"checkpoint_interval_negative",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"5h"}]},)" +
                       R"("availability":{"horizon":"10d","checkpoint_policy":"fixed",
                          "checkpoint_interval":"-1h","iteration_times":{"healthy":"1s"}}})",
                   "availability.checkpoint_interval"},
        BadFailure{"horizon_beyond_the_clock",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"5h"}]},)" +
                       R"("availability":{"horizon":"101d","iteration_times":{"healthy":"1s"}}})",
                   "<= 100d"},
        BadFailure{"time_beyond_the_clock",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"5h"}]},)" +
                       R"("availability":{"horizon":"200d","iteration_times":{"healthy":"1s"}}})",
                   "beyond ns-3's clock"},
        BadFailure{"availability_without_failures", "{" + kStar + kAvailability + "}",
                   "needs failures.components"},
        BadFailure{"no_iteration_time_nor_job",
                   "{" + kStar + R"("failures":{"components":[{"kind":"gpu","mtbf":"5h"}]},)" +
                       R"("availability":{"horizon":"10d"}})",
                   "iteration_times.healthy"},
        BadFailure{"unknown_injected_component",
                   "{" + kStar + R"("traffic":{"pattern":"shift","shift":1,"bytes":4096},)" +
                       R"("failures":{"inject":[{"component":"link 99"}]}})",
                   "no link of that name"},
        BadFailure{"random_failures_without_stop_time",
                   "{" + kStar + R"("traffic":{"pattern":"shift","shift":1,"bytes":4096},)" +
                       R"("failures":{"components":[{"kind":"gpu","mtbf":"5h"}]}})",
                   "stop_time"},
        BadFailure{"young_without_interruptions",
                   "{" + kStar +
                       R"("failures":{"components":[{"kind":"link","mode":"lane_loss","mtbf":"5h"}]},)" +
                       R"("availability":{"horizon":"10d","checkpoint_policy":"young",
                          "iteration_times":{"healthy":"1s","reduced_rate":"2s"}}})",
                   "no failure interrupts the job"}),
    [](const auto& info) { return std::string(info.param.name); });
