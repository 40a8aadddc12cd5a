// The collective tools as a user meets them: ai-fabric-collbench's bad input exits 2 with one
// line and no results; its table agrees with collectives.csv and with each operation's busbw
// factor; the same sweep and seed give identical files; ai-fabric-run runs the shipped
// collective scenarios, and a lossy one still completes with every byte accounted for.
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

namespace fs = std::filesystem;
using namespace aifabric_test;
using nlohmann::json;

namespace
{
Outcome
Collbench(const std::string& args, const fs::path& scratch)
{
    return RunProgram(AI_FABRIC_COLLBENCH_BINARY, args, scratch);
}

struct BadSweep
{
    const char* name;
    std::string args;
    std::string mustMention;
};

class CollbenchBadInput : public testing::TestWithParam<BadSweep>
{
};

/** The table's data rows: size, count, type, redop, root, time, algbw, busbw, algorithm. */
std::vector<std::vector<std::string>>
TableRows(const std::string& text)
{
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream words(line);
        std::vector<std::string> row;
        std::string w;
        while (words >> w)
        {
            row.push_back(w);
        }
        rows.push_back(row);
    }
    return rows;
}

/** collectives.csv as one map per row. */
std::vector<std::map<std::string, std::string>>
CsvRows(const std::string& text)
{
    std::vector<std::map<std::string, std::string>> rows;
    std::istringstream lines(text);
    std::string line;
    std::vector<std::string> header;
    while (std::getline(lines, line))
    {
        std::vector<std::string> cells;
        std::istringstream cellStream(line);
        std::string cell;
        while (std::getline(cellStream, cell, ','))
        {
            cells.push_back(cell);
        }
        if (header.empty())
        {
            header = cells;
            continue;
        }
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        rows.push_back(row);
    }
    return rows;
}
} // namespace

TEST_P(CollbenchBadInput, ExitsTwoWithOneLineAndNoResults)
{
    const BadSweep& b = GetParam();
    const fs::path dir = Scratch(std::string("collbench-") + b.name);
    const Outcome o = Collbench(b.args + " --out=" + (dir / "out").string(), dir);
    ExpectRefusedAsBadInput(o, dir / "out", b.mustMention);
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Classes,
    CollbenchBadInput,
    testing::Values(
        BadSweep{"unknown_algorithm", "--algo=butterfly", "collective.algorithm"},
        BadSweep{"unknown_op", "--op=allsum", "collective.op"},
        BadSweep{"op_not_implemented", "--op=broadcast --algo=pairwise", "does not implement"},
        BadSweep{"size_not_elements", "--minbytes=6", "multiple of 4 B"},
        BadSweep{"size_not_per_rank", "--op=reducescatter --minbytes=100", "multiple of 64 B"},
        BadSweep{"ranks_over_cluster", "--ranks=17", "collective.ranks"},
        BadSweep{"one_rank", "--ranks=1", "collective.ranks"},
        BadSweep{"not_power_of_two", "--algo=recursive-doubling --ranks=12",
                 "power-of-two number of ranks"},
        BadSweep{"root_outside", "--op=broadcast --root=16", "collective.root"},
        BadSweep{"attribute_the_algorithm_lacks", "--op=broadcast --algo=binomial --channels=2",
                 "collective.channels = 2: unknown key"},
        BadSweep{"bad_topology_key", "--topology=fat_tree:kk=4", "topology.kk"},
        BadSweep{"bad_topology_value", "--topology=fat_tree:k=5", "topology.k"},
        BadSweep{"topology_text", "--topology=fat_tree:k", "--topology"},
        BadSweep{"not_a_size", "--maxbytes=lots", "--maxbytes"},
        // Issue 24: wrapped to 1 MiB and ran; a JSON type error aborted.
        // Found by the mutation probe: the traffic's messages reached the sweep's queue pairs
        // and the collective aborted (exit 134).
        BadSweep{"sweep_with_traffic", "--scenario=" AI_FABRIC_SCENARIO_DIR "/default.json",
                 "traffic.transport"},
        BadSweep{"size_beyond_64_bits", "--minbytes=17592186044417M", "--minbytes"},
        BadSweep{"invalid_utf8", "\"$(printf -- '--op=\\377\\376')\"", "not valid UTF-8"},
        BadSweep{"data_check", "-c 1", "no buffers to compare"},
        BadSweep{"sweep_backwards", "--minbytes=64 --maxbytes=8", "collective.max_bytes"},
        BadSweep{"factor_one", "--factor=1", "collective.factor"},
        BadSweep{"unknown_cc", "--cc=tcp", "rdma.congestion_control"},
        BadSweep{"unknown_flag", "--size=8", "--size"},
        BadSweep{"unknown_protocol", "--algo=ring --protocol=ll64", "collective.protocol"},
        BadSweep{"protocol_with_auto", "--protocol=ll", "auto picks the protocol"}),
    [](const testing::TestParamInfo<BadSweep>& info) { return std::string(info.param.name); });

TEST(Collbench, TableAgreesWithCsvAndBusBandwidthFactorForEveryOperation)
{
    // op, algorithm, busbw factor at 16 ranks (nccl-tests' PERFORMANCE.md).
    const std::vector<std::tuple<std::string, std::string, double>> cases = {
        {"allreduce", "ring", 2 * 15 / 16.0},         {"allreduce", "tree", 2 * 15 / 16.0},
        {"allreduce", "halving-doubling", 2 * 15 / 16.0},
        {"allreduce", "recursive-doubling", 2 * 15 / 16.0},
        {"reducescatter", "ring", 15 / 16.0},         {"reducescatter", "halving-doubling", 15 / 16.0},
        {"allgather", "ring", 15 / 16.0},             {"allgather", "recursive-doubling", 15 / 16.0},
        {"alltoall", "pairwise", 15 / 16.0},          {"broadcast", "binomial", 1.0},
        {"broadcast", "ring", 1.0},                   {"reduce", "binomial", 1.0},
        {"reduce", "ring", 1.0}};
    for (const auto& [op, algo, factor] : cases)
    {
        const fs::path dir = Scratch("table-" + op + "-" + algo);
        const Outcome o = Collbench("--op=" + op + " --algo=" + algo +
                                        " --minbytes=1K --maxbytes=1M --factor=32 --root=3 --out=" +
                                        (dir / "r").string(),
                                    dir);
        ASSERT_EQ(o.exitCode, 0) << op << " " << algo << ": " << o.stderrText;
        const auto table = TableRows(o.stdoutText);
        const auto csv = CsvRows(ReadFile(dir / "r" / "collectives.csv"));
        ASSERT_EQ(table.size(), 3u) << o.stdoutText; // 1K, 32K, 1M
        ASSERT_EQ(csv.size(), 3u);
        const bool perRank = op == "reducescatter" || op == "allgather" || op == "alltoall";
        const bool rooted = op == "broadcast" || op == "reduce";
        for (std::size_t i = 0; i < 3; ++i)
        {
            const auto& row = table[i];
            ASSERT_EQ(row.size(), 9u) << o.stdoutText;
            const double bytes = std::stod(row[0]);
            EXPECT_EQ(bytes, 1024.0 * std::pow(32, i));
            EXPECT_EQ(std::stod(row[1]), perRank ? bytes / 4 / 16 : bytes / 4) << op;
            EXPECT_EQ(row[4], rooted ? "3" : "-1");
            EXPECT_EQ(row[8], algo);
            const double timeUs = std::stod(row[5]);
            EXPECT_NEAR(timeUs, std::stod(csv[i].at("time_us")), 0.006);
            EXPECT_NEAR(std::stod(row[6]), bytes / timeUs / 1e3, 0.006 + 1e-3 * bytes / timeUs / 1e3);
            const double algbw = std::stod(csv[i].at("algbw_GBps"));
            EXPECT_NEAR(std::stod(csv[i].at("busbw_GBps")), algbw * factor, 1e-9 * algbw) << op;
            EXPECT_NEAR(std::stod(row[7]), algbw * factor, 0.006) << op;
            EXPECT_EQ(csv[i].at("op"), op);
            EXPECT_EQ(csv[i].at("ranks"), "16");
        }
        const json summary = json::parse(ReadFile(dir / "r" / "summary.json"));
        EXPECT_EQ(summary["collective"]["runs_complete"], 3);
        fs::remove_all(dir);
    }
}

TEST(Collbench, AutoRecordsItsChoice)
{
    const fs::path dir = Scratch("auto");
    const Outcome o = Collbench("--minbytes=8 --maxbytes=8M --factor=1024 --out=" +
                                    (dir / "r").string(),
                                dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const auto csv = CsvRows(ReadFile(dir / "r" / "collectives.csv"));
    // 8 B, 8 KiB, 8 MiB on 16 ranks, one per server: NCCL's tuner goes from the tree in LL on
    // one channel (latency-bound) to LL128 on all 4 (two per 400G NIC).
    ASSERT_EQ(csv.size(), 3u);
    EXPECT_EQ(csv[0].at("algorithm"), "auto:tree/ll/1ch");
    EXPECT_EQ(csv[2].at("algorithm"), "auto:tree/ll128/4ch");
    fs::remove_all(dir);
}

TEST(Collbench, SameSweepAndSeedGiveIdenticalFiles)
{
    const fs::path dir = Scratch("collbench-determinism");
    for (const char* run : {"a", "b"})
    {
        const Outcome o = Collbench("--algo=tree --minbytes=4K --maxbytes=4M --factor=32 --iters=2 "
                                    "--cc=dcqcn --out=" + (dir / run).string(),
                                    dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    }
    ExpectIdenticalResults(dir / "a", dir / "b", {"collectives.csv", "timeline.json", "links.csv"});
    fs::remove_all(dir);
}

TEST(Collbench, TimelineHoldsEveryStepOfEveryRank)
{
    const fs::path dir = Scratch("timeline");
    const Outcome o = Collbench("--algo=ring --ranks=4 --minbytes=64K --out=" + (dir / "r").string(),
                                dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json trace = json::parse(ReadFile(dir / "r" / "timeline.json"));
    // Ring all-reduce over 4 ranks, Simple (a chunk in two slices): per rank 6 steps of two
    // sends, two receives and, in the first 3, two reductions.
    std::map<int, std::map<std::string, int>> spans;
    for (const auto& e : trace["traceEvents"])
    {
        if (e["ph"] == "X")
        {
            spans[e["pid"].get<int>()][e["cat"].get<std::string>()]++;
            EXPECT_GE(e["dur"].get<double>(), 0);
        }
    }
    ASSERT_EQ(spans.size(), 4u);
    for (const auto& [rank, kinds] : spans)
    {
        EXPECT_EQ(kinds.at("send"), 12) << rank;
        EXPECT_EQ(kinds.at("recv"), 12) << rank;
        EXPECT_EQ(kinds.at("reduce"), 6) << rank;
    }
    fs::remove_all(dir);
}

TEST(Runner, ShippedCollectiveScenariosCompleteEveryRun)
{
    for (const char* name : {"allreduce-ring-fat-tree", "hierarchical-rail-32gpu"})
    {
        const fs::path dir = Scratch(name);
        const std::string scenario = std::string(AI_FABRIC_SCENARIO_DIR) + "/" + name + ".json";
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + scenario + " --out=" + (dir / "r").string(), dir);
        ASSERT_EQ(o.exitCode, 0) << name << ": " << o.stderrText;
        const json summary = json::parse(ReadFile(dir / "r" / "summary.json"));
        EXPECT_EQ(summary["frames_dropped"], 0) << name;
        EXPECT_EQ(summary["collective"]["runs_complete"], summary["collective"]["runs"]) << name;
        EXPECT_EQ(CsvRows(ReadFile(dir / "r" / "collectives.csv")).size(),
                  summary["collective"]["runs"].get<std::size_t>());
        EXPECT_EQ(summary["rdma"]["payload_retransmitted_bytes"], 0) << name;
        fs::remove_all(dir);
    }
}

TEST(Runner, LossyCollectiveCompletesAndEveryPayloadByteIsAccountedFor)
{
    const fs::path dir = Scratch("lossy-alltoall");
    const std::string scenario = std::string(AI_FABRIC_SCENARIO_DIR) + "/lossy-alltoall.json";
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + scenario + " --out=" + (dir / "r").string(), dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json summary = json::parse(ReadFile(dir / "r" / "summary.json"));
    EXPECT_GT(summary["frames_dropped"].get<uint64_t>(), 0u) << "expected drops";
    EXPECT_EQ(summary["collective"]["runs_complete"], 1);
    const json& rdma = summary["rdma"];
    const uint64_t retransmitted = rdma["payload_retransmitted_bytes"];
    EXPECT_GT(retransmitted, 0u);
    // Each rank sends 15 of its 16 blocks of 4 MiB / 16: accepted exactly once; every payload
    // byte went out once plus its retransmissions.
    const uint64_t expected = 16ull * 15 * (4ull << 20) / 16;
    EXPECT_EQ(rdma["payload_accepted_bytes"].get<uint64_t>(), expected);
    EXPECT_EQ(rdma["payload_sent_bytes"].get<uint64_t>(), expected + retransmitted);
    fs::remove_all(dir);
}

TEST(Runner, TheTimelineHoldsUpToItsCapOfStepsAndTheSummaryCountsThemAll)
{
    // The ranks count their steps; the timeline follows them only up to the cap: at the cap it
    // is written whole, one step under it not at all, and the summary counts every step.
    const fs::path dir = Scratch("timeline-cap");
    const auto run = [&dir](const std::string& name, uint64_t cap) {
        const json scenario = {
            {"name", name},
            {"seed", 1},
            {"topology", {{"kind", "fat_tree"}, {"k", 4}, {"nic_rate", "400Gbps"}}},
            {"collective",
             {{"op", "allreduce"},
              {"algorithm", "ring"},
              {"bytes", 65536},
              {"timeline_max_steps", cap}}}};
        std::ofstream(dir / (name + ".json")) << scenario.dump();
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + (dir / (name + ".json")).string() +
                                         " --out=" + (dir / name).string(),
                                     dir);
        EXPECT_EQ(o.exitCode, 0) << name << ": " << o.stderrText;
        return json::parse(ReadFile(dir / name / "summary.json"))["collective"];
    };
    const json all = run("all", 1000000);
    const json trace = json::parse(ReadFile(dir / "all" / "timeline.json"));
    uint64_t spans = 0;
    for (const auto& e : trace["traceEvents"])
    {
        spans += e["ph"] == "X";
    }
    // Ring all-reduce over 16 ranks: per rank 30 steps of two sends, two receives and, in the
    // first 15, two reductions.
    EXPECT_EQ(spans, 16u * (60 + 60 + 30));
    EXPECT_EQ(all["steps"].get<uint64_t>(), spans);
    EXPECT_EQ(all["timeline"], "timeline.json");

    const json atCap = run("at-cap", spans);
    EXPECT_EQ(atCap["steps"].get<uint64_t>(), spans);
    EXPECT_EQ(ReadFile(dir / "at-cap" / "timeline.json"), ReadFile(dir / "all" / "timeline.json"));

    const json over = run("over", spans - 1);
    EXPECT_EQ(over["steps"].get<uint64_t>(), spans);
    EXPECT_FALSE(fs::exists(dir / "over" / "timeline.json"));
    EXPECT_EQ(over["timeline"],
              "not written: " + std::to_string(spans) + " steps > collective.timeline_max_steps");

    const json none = run("none", 0);
    EXPECT_EQ(none["steps"].get<uint64_t>(), spans);
    EXPECT_FALSE(fs::exists(dir / "none" / "timeline.json"));
    fs::remove_all(dir);
}

TEST(Runner, LossyAllToAllBacksOffInsteadOfFailingAndAFailedRunHasNoBandwidth)
{
    // The shipped lossy all-to-all at 16 MiB: with IBA's fixed 100 us timeout some queue pairs
    // exhaust their 7 retries; with the backed-off timeout (the default) every byte arrives.
    const fs::path dir = Scratch("lossy-backoff");
    json scenario = json::parse(ReadFile(fs::path(AI_FABRIC_SCENARIO_DIR) / "lossy-alltoall.json"));
    scenario["collective"]["bytes"] = 16 << 20;
    std::ofstream(dir / "s.json") << scenario.dump();
    const std::string base = "--scenario=" + (dir / "s.json").string() + " --out=";
    const Outcome backedOff = RunProgram(AI_FABRIC_RUN_BINARY, base + (dir / "b").string(), dir);
    ASSERT_EQ(backedOff.exitCode, 0) << backedOff.stderrText;
    const json b = json::parse(ReadFile(dir / "b" / "summary.json"));
    EXPECT_EQ(b["rdma"]["queue_pairs_failed"], 0);
    EXPECT_EQ(b["rdma"]["payload_accepted_bytes"].get<uint64_t>(), 16ull * 15 * (1ull << 20));
    EXPECT_EQ(b["collective"]["runs_complete"], 1);
    EXPECT_EQ(b["collective"]["runs_failed"], 0);

    const Outcome fixed = RunProgram(
        AI_FABRIC_RUN_BINARY,
        base + (dir / "f").string() + " --ns3::RdmaQueuePair::RetransmissionTimeoutMax=100us", dir);
    ASSERT_EQ(fixed.exitCode, 0) << fixed.stderrText;
    const json f = json::parse(ReadFile(dir / "f" / "summary.json"));
    EXPECT_GT(f["rdma"]["queue_pairs_failed"].get<uint64_t>(), 0u);
    EXPECT_LT(f["rdma"]["payload_accepted_bytes"].get<uint64_t>(), 16ull * 15 * (1ull << 20));
    EXPECT_EQ(f["collective"]["runs_complete"], 0);
    EXPECT_EQ(f["collective"]["runs_failed"], 1);
    EXPECT_EQ(f["collective"]["results"][0]["failed"], true);
    EXPECT_FALSE(f["collective"]["results"][0].contains("busbw_GBps"));
    const auto rows = ReadCsv(dir / "f" / "collectives.csv");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].at("status"), "failed");
    EXPECT_EQ(rows[0].at("busbw_GBps"), ""); // no bandwidth for a run that did not finish
    EXPECT_NE(fixed.stdoutText.find("failed"), std::string::npos) << fixed.stdoutText;
    EXPECT_NE(fixed.stderrText.find("failed"), std::string::npos) << fixed.stderrText;
    fs::remove_all(dir);
}

// -e alone keeps its end (the sweep starts at collective.min_bytes's 8 B); it used to be
// replaced by the default 1 MiB.
TEST(Collbench, MaxBytesAloneKeepsItsEnd)
{
    const fs::path dir = Scratch("max-alone");
    const Outcome o = Collbench("-e 4K -f 8 --algo=ring --out=" + (dir / "r").string(), dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    std::vector<std::string> sizes;
    for (const auto& row : ReadCsv(dir / "r" / "collectives.csv"))
    {
        sizes.push_back(row.at("bytes"));
    }
    EXPECT_EQ(sizes, (std::vector<std::string>{"8", "64", "512", "4096"}));
    fs::remove_all(dir);
}

TEST(Collbench, TakesNcclTestsFlagsAndPrintsTheirFooter)
{
    // -b -e -f -n are --minbytes --maxbytes --factor --iters; the footer is the mean busbw.
    const fs::path dir = Scratch("nccl-flags");
    const Outcome shortFlags = Collbench("-b 64K -e 1M -f 4 -n 2 --algo=ring --out=" +
                                             (dir / "short").string(),
                                         dir);
    const Outcome longFlags = Collbench("--minbytes=64K --maxbytes=1M --factor=4 --iters=2 "
                                        "--algo=ring --out=" +
                                            (dir / "long").string(),
                                        dir);
    ASSERT_EQ(shortFlags.exitCode, 0) << shortFlags.stderrText;
    ASSERT_EQ(longFlags.exitCode, 0) << longFlags.stderrText;
    EXPECT_EQ(ReadFile(dir / "short" / "collectives.csv"),
              ReadFile(dir / "long" / "collectives.csv"));
    std::map<std::string, std::vector<double>> busbw; // per size, over the iterations
    for (const auto& row : ReadCsv(dir / "short" / "collectives.csv"))
    {
        busbw[row.at("bytes")].push_back(std::stod(row.at("busbw_GBps")));
    }
    ASSERT_EQ(busbw.size(), 3u);
    double mean = 0;
    for (const auto& [bytes, runs] : busbw)
    {
        // The table's busbw is of the mean time: the harmonic mean of the runs' busbw.
        mean += runs.size() / std::accumulate(runs.begin(), runs.end(), 0.0, [](double a, double b) {
                    return a + 1 / b;
                }) / busbw.size();
    }
    const auto at = shortFlags.stdoutText.find("# Avg bus bandwidth    : ");
    ASSERT_NE(at, std::string::npos) << shortFlags.stdoutText;
    EXPECT_NEAR(std::stod(shortFlags.stdoutText.substr(at + 25)), mean, 1e-3);
    EXPECT_EQ(Collbench("-b", dir).exitCode, 2);
    fs::remove_all(dir);
}

TEST(Collbench, WarmUpRunsComeFirstUntimedAndZeroIsNone)
{
    // -w W: W untimed runs of each size before the -n timed ones, marked "warmup" in
    // collectives.csv and left out of the table; -w 0 is the sweep without warm-up.
    const fs::path dir = Scratch("warmup");
    const std::string sweep = "-b 64K -e 1M -f 4 -n 2 --algo=ring --cc=dcqcn ";
    const Outcome warm = Collbench(sweep + "-w 2 --out=" + (dir / "warm").string(), dir);
    const Outcome none = Collbench(sweep + "-w 0 --out=" + (dir / "none").string(), dir);
    const Outcome plain = Collbench(sweep + "--out=" + (dir / "plain").string(), dir);
    ASSERT_EQ(warm.exitCode, 0) << warm.stderrText;
    ASSERT_EQ(none.exitCode, 0) << none.stderrText;
    ASSERT_EQ(plain.exitCode, 0) << plain.stderrText;
    EXPECT_EQ(ReadFile(dir / "none" / "collectives.csv"), ReadFile(dir / "plain" / "collectives.csv"));
    const auto rows = ReadCsv(dir / "warm" / "collectives.csv");
    ASSERT_EQ(rows.size(), 3u * 4); // 3 sizes x (2 warm-up + 2 timed)
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        const bool warmup = i % 4 < 2;
        EXPECT_EQ(rows[i].at("status"), warmup ? "warmup" : "complete") << i;
        EXPECT_EQ(rows[i].at("iteration"), std::to_string(i % 2)) << i;
    }
    EXPECT_NE(warm.stdoutText.find("2 iteration(s) per size after 2 warm-up"), std::string::npos);
    EXPECT_NE(ReadFile(dir / "warm" / "summary.json").find("\"warmup_runs\": 6"), std::string::npos);
    EXPECT_EQ(Collbench("-w -1 --out=" + (dir / "bad").string(), dir).exitCode, 2);
    fs::remove_all(dir);
}

TEST(Runner, SizesTakeUnits)
{
    // "64KiB" is 65536 bytes: the same sweep either way; a size that is not whole bytes or
    // holds a space is refused naming the key.
    const fs::path dir = Scratch("size-units");
    const std::string topology = R"("topology":{"kind":"leaf_spine","leaves":1,"hosts_per_leaf":8,
        "oversubscription":8,"nic_rate":"400Gbps"})";
    auto run = [&](const std::string& name, const std::string& sizes) {
        std::ofstream(dir / (name + ".json"))
            << "{" + topology + R"(,"collective":{"algorithm":"ring",)" + sizes + "}}";
        return RunProgram(AI_FABRIC_RUN_BINARY,
                          "--scenario=" + (dir / (name + ".json")).string() +
                              " --out=" + (dir / name).string(),
                          dir);
    };
    ASSERT_EQ(run("units", R"("min_bytes":"64KiB","max_bytes":"1MiB","factor":4)").exitCode, 0);
    ASSERT_EQ(run("plain", R"("min_bytes":65536,"max_bytes":1048576,"factor":4)").exitCode, 0);
    EXPECT_EQ(ReadFile(dir / "units" / "collectives.csv"),
              ReadFile(dir / "plain" / "collectives.csv"));
    for (const char* bad : {R"("bytes":"1.5B")", R"("bytes":"10 MiB")", R"("bytes":"2TiB")"})
    {
        const Outcome o = run("bad", bad);
        EXPECT_EQ(o.exitCode, 2) << bad;
        EXPECT_NE(o.stderrText.find("collective.bytes = "), std::string::npos) << o.stderrText;
    }
    fs::remove_all(dir);
}

TEST(Collbench, SweepSizeTheAlgorithmRefusesMidRunExitsTwoWithoutResults)
{
    // 33 B rounds to 32 (a multiple of 8 GPUs x 4 B), but 132 B, two sizes on, is not.
    const fs::path dir = Scratch("mid-run-refusal");
    const Outcome o = Collbench("--topology=rail_optimized:servers=2,gpus_per_server=8 "
                                "--algo=hierarchical --minbytes=33 --maxbytes=1K --out=" +
                                    (dir / "out").string(),
                                dir);
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    EXPECT_NE(o.stderrText.find("132 B"), std::string::npos) << o.stderrText;
    EXPECT_FALSE(fs::exists(dir / "out"));
    fs::remove_all(dir);
}

// Issue 19, channels over all NICs: channel c's ring enters and leaves each server on rails
// c - 1 and c, so 8 channels on 4 servers of 8 GPUs use all 32 NICs alike, where one ring
// crosses servers through 4 NICs (and 4 send its acknowledgements) and is bound by one NIC.
// The ideal protocol keeps NCCL's per-step latencies out of the bandwidth comparison.
TEST(Collbench, RingChannelsSpreadOverEveryNic)
{
    const fs::path dir = Scratch("ring-nics");
    std::map<uint32_t, double> busbw;
    for (const uint32_t channels : {1u, 8u})
    {
        const fs::path out = dir / std::to_string(channels);
        const Outcome o = Collbench("--topology=rail_optimized:servers=4,gpus_per_server=8 "
                                    "--algo=ring --protocol=ideal -b 32M -e 32M --channels=" +
                                        std::to_string(channels) + " --out=" + out.string(),
                                    dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        busbw[channels] = std::stod(ReadCsv(out / "collectives.csv").at(0).at("busbw_GBps"));
        std::vector<uint64_t> nicBytes; // bytes each GPU's scale-out NIC sent
        for (const auto& row : ReadCsv(out / "links.csv"))
        {
            if (row.at("role") == "host" && row.at("medium") != "nvlink" &&
                std::stoull(row.at("tx_bytes")) > 0)
            {
                nicBytes.push_back(std::stoull(row.at("tx_bytes")));
            }
        }
        if (channels == 1)
        {
            EXPECT_EQ(nicBytes.size(), 8u);
            continue;
        }
        ASSERT_EQ(nicBytes.size(), 32u);
        // Each NIC carries one channel's crossing: 2 (n-1)/n of its eighth of 32 MiB, and
        // the headers and acknowledgements of that much, the same on every NIC.
        EXPECT_EQ(*std::min_element(nicBytes.begin(), nicBytes.end()),
                  *std::max_element(nicBytes.begin(), nicBytes.end()));
        EXPECT_GE(nicBytes.front(), 2 * 31 * (uint64_t(32) << 20) / 32 / 8);
    }
    // 8 NICs' worth instead of one, less what NVLink and latency take.
    EXPECT_GT(busbw[8], 7 * busbw[1]) << busbw[1] << " -> " << busbw[8];
    fs::remove_all(dir);
}

// Issue 19, server presets: an HGX B200 server's NVLink (18 x NCCL's 40.1 GB/s) carries a
// one-server ring at 721.8 / 370.8 = 1.95 times an HGX H100's, and a key the user gives
// wins over the preset.
TEST(Collbench, ServerPresetSetsTheServersLinksAndKeysWin)
{
    const fs::path dir = Scratch("server-preset");
    std::map<std::string, double> busbw;
    for (const std::string server : {"hgx_h100", "hgx_b200"})
    {
        const fs::path out = dir / server;
        const Outcome o = Collbench("--server=" + server +
                                        " --topology=rail_optimized:servers=1 --algo=ring "
                                        "--protocol=ideal -b 64M -e 64M --out=" + out.string(),
                                    dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        busbw[server] = std::stod(ReadCsv(out / "collectives.csv").at(0).at("busbw_GBps"));
        for (const auto& row : ReadCsv(out / "links.csv"))
        {
            // A GPU's NVLink, either end (not the NVSwitch's link to its NVLS engine).
            if (row.at("medium") == "nvlink" && row.at("role") != "nvls_engine" &&
                row.at("peer").find("nvse") == std::string::npos)
            {
                EXPECT_DOUBLE_EQ(std::stod(row.at("rate_gbps")),
                                 server == "hgx_b200" ? 5774.4 : 2966.4);
            }
        }
    }
    EXPECT_NEAR(busbw["hgx_b200"] / busbw["hgx_h100"], 40.1 / 20.6, 0.02 * 40.1 / 20.6);
    const fs::path out = dir / "nic";
    const Outcome o = Collbench("--server=hgx_b200 --topology=rail_optimized:servers=2,"
                                "nic_rate=800Gbps -b 1M -e 1M --out=" + out.string(),
                                dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    uint32_t nics = 0;
    for (const auto& row : ReadCsv(out / "links.csv"))
    {
        if (row.at("role") == "host" && row.at("medium") != "nvlink")
        {
            ++nics;
            EXPECT_DOUBLE_EQ(std::stod(row.at("rate_gbps")), 800);
        }
    }
    EXPECT_EQ(nics, 16u);
    fs::remove_all(dir);
}

// collectives.csv sets NCCL's own cost model beside the simulated time: for auto's picks only.
TEST(Collbench, CsvCarriesNcclsModelForAutoOnly)
{
    const fs::path dir = Scratch("nccl-model");
    for (const std::string algo : {"auto", "ring"})
    {
        const fs::path out = dir / algo;
        const Outcome o = Collbench("--server=hgx_h100 --topology=rail_optimized:servers=1 "
                                    "--algo=" + algo + " -b 1M -e 4M -f 4 --out=" + out.string(),
                                    dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        const auto rows = ReadCsv(out / "collectives.csv");
        ASSERT_EQ(rows.size(), 2u);
        for (const auto& row : rows)
        {
            if (algo == "auto")
            {
                // Latency plus bytes over the model's bandwidth: positive, and below the
                // simulated time here (NVLink only; the model's LL bandwidth is its cap).
                const double model = std::stod(row.at("nccl_model_us"));
                EXPECT_GT(model, 0);
                EXPECT_LT(model, 2 * std::stod(row.at("time_us")));
            }
            else
            {
                EXPECT_EQ(row.at("nccl_model_us"), "");
            }
        }
    }
    fs::remove_all(dir);
}
