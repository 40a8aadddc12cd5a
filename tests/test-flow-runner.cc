// Fidelity "flow" as a user meets it: the same scenario at flow and at packet level agrees
// where nothing is congested (a ring all-reduce whose flows have their links to themselves, a
// data-parallel job), summary.json says which fidelity ran and what it does not model, and
// what the flow model cannot run exits 2 naming the key.
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using namespace aifabric_test;
using nlohmann::json;

namespace
{
const std::string kScenarios = AI_FABRIC_SCENARIO_DIR;

/** Run shipped scenario \p name at \p fidelity into \p out. */
Outcome
RunAt(const std::string& name, const std::string& fidelity, const fs::path& out)
{
    return RunProgram(AI_FABRIC_RUN_BINARY,
                      "--scenario=" + kScenarios + "/" + name + ".json --fidelity=" + fidelity +
                          " --out=" + out.string(),
                      out.parent_path());
}

/** Column \p column of every row of \p file, as numbers. */
std::vector<double>
Column(const fs::path& file, const std::string& column)
{
    std::vector<double> values;
    for (const auto& row : ReadCsv(file))
    {
        values.push_back(std::stod(row.at(column)));
    }
    return values;
}
/** Column \p column of \p file after shipped scenario \p name ran at packet, then flow level. */
std::pair<std::vector<double>, std::vector<double>>
AtBothFidelities(const std::string& name, const std::string& file, const std::string& column,
                 const fs::path& scratch)
{
    for (const char* fidelity : {"packet", "flow"})
    {
        const Outcome o = RunAt(name, fidelity, scratch / fidelity);
        EXPECT_EQ(o.exitCode, 0) << o.stderrText;
    }
    return {Column(scratch / "packet" / file, column), Column(scratch / "flow" / file, column)};
}
} // namespace

TEST(FlowFidelity, RingAllReduceOnAFatTreeAgreesWithPacketLevel)
{
    // 16 ranks, one per host of a k=4 fat-tree: every ring edge's flow has its path to itself
    // (ECMP draws the same paths at both fidelities), 64 KiB to 64 MiB.
    const fs::path scratch = Scratch("flow-ring");
    const auto [packet, flow] =
        AtBothFidelities("allreduce-ring-fat-tree", "collectives.csv", "time_us", scratch);
    ASSERT_EQ(packet.size(), 6u);
    ASSERT_EQ(flow.size(), packet.size());
    for (std::size_t i = 0; i < packet.size(); ++i)
    {
        EXPECT_NEAR(flow[i] / packet[i], 1.0, 0.001) << "size " << i;
    }
    const json summary = json::parse(ReadFile(scratch / "flow" / "summary.json"));
    EXPECT_EQ(summary.at("fidelity"), "flow");
    EXPECT_FALSE(summary.at("flow_level").at("not_modelled").empty());
    EXPECT_GT(summary.at("flow_level").at("rate_recomputations").get<uint64_t>(), 0u);
    EXPECT_EQ(json::parse(ReadFile(scratch / "packet" / "summary.json")).at("fidelity"),
              "packet");
}

TEST(FlowFidelity, DataParallelJobAgreesWithPacketLevel)
{
    // first-job.json: 32 GPUs, gradient buckets all-reduced over NVLink and the rails.
    const auto [packet, flow] =
        AtBothFidelities("first-job", "iterations.csv", "duration_s", Scratch("flow-job"));
    ASSERT_EQ(packet.size(), 2u);
    ASSERT_EQ(flow.size(), packet.size());
    for (std::size_t i = 0; i < packet.size(); ++i)
    {
        EXPECT_NEAR(flow[i] / packet[i], 1.0, 0.02) << "iteration " << i;
    }
}

struct FlowRefusal
{
    const char* name;
    std::string document;
    std::string mustMention;
};

class FlowFidelityBadInput : public testing::TestWithParam<FlowRefusal>
{
};

TEST_P(FlowFidelityBadInput, ExitsTwoNamingTheKey)
{
    const fs::path scratch = Scratch(std::string("flow-bad-") + GetParam().name);
    const fs::path file = scratch / "scenario.json";
    std::ofstream(file) << GetParam().document;
    const fs::path out = scratch / "out";
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + file.string() + " --out=" + out.string(),
                                 scratch);
    ExpectRefusedAsBadInput(o, out, GetParam().mustMention);
}

const std::string kStar =
    R"("topology": {"kind": "leaf_spine", "leaves": 2, "hosts_per_leaf": 2})";

INSTANTIATE_TEST_SUITE_P(
    Classes, FlowFidelityBadInput,
    testing::Values(
        FlowRefusal{"unknown_fidelity", "{\"fidelity\": \"fluid\", " + kStar + "}", "fidelity"},
        FlowRefusal{"plain_messages",
                    "{\"fidelity\": \"flow\", " + kStar + R"(, "traffic": {"pattern": "permutation"}})",
                    "traffic.transport"},
        FlowRefusal{"pcap",
                    "{\"fidelity\": \"flow\", " + kStar +
                        R"(, "traffic": {"pattern": "permutation", "transport": "rdma"}, "pcap": {}})",
                    "pcap"},
        FlowRefusal{"link_events",
                    "{\"fidelity\": \"flow\", " + kStar +
                        R"(, "traffic": {"pattern": "permutation", "transport": "rdma"},
                           "link_events": [{"link": 0, "at": "1us", "state": "down"}]})",
                    "link_events"}),
    [](const testing::TestParamInfo<FlowRefusal>& info) { return std::string(info.param.name); });
