// Fidelity "flow" as a user meets it: the same scenario at flow and at packet level agrees
// where nothing is congested (a ring all-reduce whose flows have their links to themselves, a
// data-parallel job, message sources), summary.json says which fidelity ran and what it does not model, and
// what the flow model cannot run exits 2 naming the key.
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(FlowFidelity, SteadyStateCollectivesAgreeWithStepByStepFlows)
{
    // Fidelity "collective": each pipelined collective one flow per connection plus its
    // critical path.  The ring over the fat-tree (latency-bound at 64 KiB, bandwidth-bound at
    // 64 MiB, both bounds near each other at 16 MiB) and the data-parallel job come within
    // 3% and 2% of the step-by-step flow model in far fewer events.
    const fs::path scratch = Scratch("collective-fidelity");
    for (const char* fidelity : {"flow", "collective"})
    {
        for (const char* name : {"allreduce-ring-fat-tree", "first-job"})
        {
            const Outcome o = RunAt(name, fidelity, scratch / (std::string(name) + "-" + fidelity));
            ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        }
    }
    const auto ratios = [&](const std::string& name, const std::string& file,
                            const std::string& column) {
        const auto flow = Column(scratch / (name + "-flow") / file, column);
        const auto steady = Column(scratch / (name + "-collective") / file, column);
        EXPECT_EQ(flow.size(), steady.size()) << name;
        std::vector<double> r;
        for (std::size_t i = 0; i < std::min(flow.size(), steady.size()); ++i)
        {
            r.push_back(steady[i] / flow[i]);
        }
        return r;
    };
    for (const double r : ratios("allreduce-ring-fat-tree", "collectives.csv", "time_us"))
    {
        EXPECT_NEAR(r, 1.0, 0.03);
    }
    for (const double r : ratios("first-job", "iterations.csv", "duration_s"))
    {
        EXPECT_NEAR(r, 1.0, 0.02);
    }
    const auto events = [&](const std::string& folder) {
        return json::parse(ReadFile(scratch / folder / "summary.json")).at("events").get<double>();
    };
    EXPECT_LT(events("allreduce-ring-fat-tree-collective") * 5,
              events("allreduce-ring-fat-tree-flow"));
    const json summary =
        json::parse(ReadFile(scratch / "first-job-collective" / "summary.json"));
    EXPECT_EQ(summary.at("fidelity"), "collective");
    EXPECT_FALSE(summary.at("flow_level").at("not_modelled").empty());
}

TEST(FlowFidelity, MessageSourcesAgreeWithPacketLevel)
{
    // rail-optimized-64gpu.json: 64 messages of a message source each, every one on a path of
    // its own (as the ECMP hash places them at both fidelities): the same completion times.
    const auto [packet, flow] = AtBothFidelities("rail-optimized-64gpu", "flows.csv", "fct_us",
                                                 Scratch("flow-messages"));
    ASSERT_EQ(packet.size(), 64u);
    ASSERT_EQ(flow.size(), packet.size());
    for (std::size_t i = 0; i < packet.size(); ++i)
    {
        EXPECT_NEAR(flow[i] / packet[i], 1.0, 0.001) << "flow " << i;
    }
}

TEST(FlowFidelity, PacedMessagesOfAGivenPayloadAgreeWithPacketLevel)
{
    // A message source's DataRate and PayloadSize hold at flow level too: two 1 MiB messages
    // in 2,000-byte frames at 25 Gb/s of wire (a quarter of the 100G links), across a spine.
    const fs::path scratch = Scratch("flow-paced");
    const fs::path file = scratch / "scenario.json";
    std::ofstream(file) << R"({"topology": {"kind": "leaf_spine", "leaves": 2, "hosts_per_leaf": 2,
        "nic_rate": "100Gbps"}, "traffic": {"pattern": "flows", "data_rate": "25Gbps",
        "payload_size": 2000, "flows": [{"src": 0, "dst": 2, "bytes": 1048576},
        {"src": 1, "dst": 3, "bytes": 1048576, "start": "3us"}]}})";
    std::vector<double> fct[2];
    for (int f = 0; f < 2; ++f)
    {
        const std::string fidelity = f == 0 ? "packet" : "flow";
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + file.string() + " --fidelity=" + fidelity +
                                         " --out=" + (scratch / fidelity).string(),
                                     scratch);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        fct[f] = Column(scratch / fidelity / "flows.csv", "fct_us");
    }
    ASSERT_EQ(fct[0].size(), 2u);
    ASSERT_EQ(fct[1].size(), 2u);
    // Paced: a frame per its wire time at 25 Gb/s, 524 full frames (2,000 bytes, 66 of
    // headers, ICRC and FCS, 20 of preamble and gap) before the last: 349.7 us.
    const double paced = 524.0 * (2000 + 66 + 20) * 8 / 25e9 * 1e6;
    for (std::size_t i = 0; i < 2; ++i)
    {
        EXPECT_NEAR(fct[1][i] / fct[0][i], 1.0, 0.002) << "flow " << i;
        EXPECT_NEAR(fct[1][i] / paced, 1.0, 0.01) << "flow " << i;
    }
}

TEST(FlowFidelity, EstimateGivesThePacketLevelDataFramesBeforeTheRun)
{
    // --estimate runs the scenario at flow level first: its data frames are the packet
    // model's (the same messages at the same MTU), logged before the packet-level run.
    const fs::path scratch = Scratch("flow-estimate");
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + kScenarios +
                                     "/training-moe-model.json --estimate --out=" +
                                     (scratch / "out").string(),
                                 scratch);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json summary = json::parse(ReadFile(scratch / "out" / "summary.json"));
    EXPECT_EQ(summary.at("fidelity"), "packet");
    const uint64_t frames = summary.at("rdma").at("data_frames_sent").get<uint64_t>();
    ASSERT_GT(frames, 0u);
    const auto estimate = o.stderrText.find("estimate (flow level");
    const auto run = o.stderrText.find("scenario 'training-moe-model'");
    ASSERT_NE(estimate, std::string::npos) << o.stderrText;
    ASSERT_NE(run, std::string::npos) << o.stderrText;
    EXPECT_LT(estimate, run);
    EXPECT_NE(o.stderrText.find(" " + std::to_string(frames) + " data frames"), std::string::npos)
        << o.stderrText;
    // What the flow model cannot run gets no estimate, and the packet-level run goes on.
    json lossy = json::parse(ReadFile(fs::path(kScenarios) / "link-down.json"));
    lossy["failures"] = {{"inject", json::array({{{"component", "link 17"},
                                                  {"mode", "bit_errors"},
                                                  {"bit_error_rate", 1e-6}}})}};
    const fs::path lossyFile = scratch / "bit-errors.json";
    std::ofstream(lossyFile) << lossy.dump();
    const Outcome refused = RunProgram(AI_FABRIC_RUN_BINARY,
                                       "--scenario=" + lossyFile.string() + " --estimate --out=" +
                                           (scratch / "bit-errors").string(),
                                       scratch);
    EXPECT_EQ(refused.exitCode, 0) << refused.stderrText;
    const auto noEstimate = refused.stderrText.find("no estimate: ");
    ASSERT_NE(noEstimate, std::string::npos) << refused.stderrText;
    const std::string line =
        refused.stderrText.substr(noEstimate, refused.stderrText.find('\n', noEstimate) - noEstimate);
    EXPECT_NE(line.find("failures.inject[0].mode"), std::string::npos) << line;
    // It estimates a packet-level run, whether flow comes from the flag or the file.
    json flowDoc = json::parse(ReadFile(fs::path(kScenarios) / "incast-8to1.json"));
    flowDoc["fidelity"] = "flow";
    const fs::path flowFile = scratch / "flow.json";
    std::ofstream(flowFile) << flowDoc.dump();
    ExpectRefusedAsBadInput(RunProgram(AI_FABRIC_RUN_BINARY,
                                       "--scenario=" + flowFile.string() + " --estimate --out=" +
                                           (scratch / "flow-file").string(),
                                       scratch),
                            scratch / "flow-file", "fidelity");
    ExpectRefusedAsBadInput(RunProgram(AI_FABRIC_RUN_BINARY,
                                       "--estimate --fidelity=flow --out=" +
                                           (scratch / "flow").string(),
                                       scratch),
                            scratch / "flow", "--estimate");
}

namespace
{
/** Column \p column of flows.csv after \p document ran at packet, then flow level. */
std::pair<std::vector<double>, std::vector<double>>
FlowsAtBothFidelities(const json& document, const std::string& column, const fs::path& scratch)
{
    const fs::path file = scratch / "scenario.json";
    std::ofstream(file) << document.dump();
    for (const char* fidelity : {"packet", "flow"})
    {
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + file.string() + " --fidelity=" + fidelity +
                                         " --out=" + (scratch / fidelity).string(),
                                     scratch);
        EXPECT_EQ(o.exitCode, 0) << o.stderrText;
    }
    return {Column(scratch / "packet" / "flows.csv", column),
            Column(scratch / "flow" / "flows.csv", column)};
}
} // namespace

TEST(FlowFidelity, ALinkDownLosesTheSameMessagesAndTheRestGoRound)
{
    // link-down.json: a fabric link fails under the 2 MiB messages of two hosts each way and
    // routing converges 20 us later.  Message sources have no transport: the four that were
    // on it never complete, at either fidelity; the others take the new routes and complete.
    const json doc = json::parse(ReadFile(fs::path(kScenarios) / "link-down.json"));
    const auto [packet, flow] = FlowsAtBothFidelities(doc, "complete", Scratch("flow-link-down"));
    ASSERT_EQ(packet.size(), 16u);
    EXPECT_EQ(flow, packet);
    EXPECT_EQ(std::count(flow.begin(), flow.end(), 0.0), 4);
}

TEST(FlowFidelity, AQueuePairWithoutAPathGivesUpAfterItsRetryBudget)
{
    // The same traffic on RDMA queue pairs, and host 0's own link fails: no route is left to
    // or from it, so its two queue pairs fail after their retry budget (8 timeouts of 10 us
    // doubling: 2.55 ms) at both fidelities, and every other message completes.
    json doc = json::parse(ReadFile(fs::path(kScenarios) / "link-down.json"));
    doc["traffic"]["transport"] = "rdma";
    doc["rdma"] = {{"retransmission_timeout", "10us"}};
    doc["link_events"] = json::array({{{"link", 0}, {"at", "40us"}, {"state", "down"}}});
    const fs::path scratch = Scratch("flow-host-down");
    const auto [packet, flow] = FlowsAtBothFidelities(doc, "complete", scratch);
    ASSERT_EQ(packet.size(), 16u);
    EXPECT_EQ(flow, packet);
    EXPECT_EQ(std::count(flow.begin(), flow.end(), 0.0), 2);
    // It gave up when the budget ran out, and the run ended then.
    const double end = json::parse(ReadFile(scratch / "flow" / "summary.json"))
                           .at("simulated_seconds")
                           .get<double>();
    EXPECT_NEAR(end, 40e-6 + 255 * 10e-6, 10e-6);
}

TEST(FlowFidelity, MessagesThatStartWithoutARouteAreLostNotACrash)
{
    // Host 0's only link fails at 40 us, before the traffic starts at 100 us: its two messages
    // (to and from it) have no route when they start.  The packet level once aborted inside
    // MessageSource; now both fidelities lose exactly those two and complete the rest.
    json doc = json::parse(ReadFile(fs::path(kScenarios) / "link-down.json"));
    doc["traffic"]["start"] = "100us";
    doc["link_events"] = json::array({{{"link", 0}, {"at", "40us"}, {"state", "down"}}});
    for (const char* transport : {"messages", "rdma"})
    {
        doc["traffic"]["transport"] = transport;
        const auto [packet, flow] =
            FlowsAtBothFidelities(doc, "complete", Scratch(std::string("flow-no-route-") + transport));
        ASSERT_EQ(packet.size(), 16u) << transport;
        EXPECT_EQ(flow, packet) << transport;
        EXPECT_EQ(std::count(packet.begin(), packet.end(), 0.0), 2) << transport;
    }
}

TEST(FlowFidelity, AGpuWithoutARouteSendsNothingOverItsNvLink)
{
    // On GPU servers a host's first port is its NVLink: GPU s0g0's NIC link fails, and the
    // routes have converged without it, before its message to s1g0 starts; the message is
    // lost at both fidelities, nothing it sent crossed NVLink (its frames were dropped at the
    // NIC as NoRoute, not sent as NVLink segments); s0g1's message arrives.
    const json doc = {
        {"name", "gpu-no-route"},
        {"topology", {{"kind", "rail_optimized"}, {"servers", 2}, {"gpus_per_server", 8}}},
        {"traffic",
         {{"pattern", "flows"},
          {"start", "50us"},
          {"flows", json::array({{{"src", 0}, {"dst", 8}, {"bytes", 1 << 20}},
                                 {{"src", 1}, {"dst", 9}, {"bytes", 1 << 20}}})}}},
        {"routing", {{"convergence_delay", "20us"}}},
        {"link_events", json::array({{{"link", "s0g0-g0r0"}, {"at", "10us"}}})}};
    const fs::path scratch = Scratch("flow-gpu-no-route");
    const auto [packet, flow] = FlowsAtBothFidelities(doc, "complete", scratch);
    EXPECT_EQ(packet, std::vector<double>({0, 1}));
    EXPECT_EQ(flow, packet);
    uint64_t noRoute = 0;
    for (const auto& row : ReadCsv(scratch / "packet" / "links.csv"))
    {
        if (row.at("name") == "s0g0-s0nvs")
        {
            EXPECT_EQ(row.at("tx_frames"), "0") << row.at("node");
            EXPECT_EQ(row.at("drop_no_route"), "0") << row.at("node");
        }
        if (row.at("name") == "s0g0-g0r0" && row.at("node") == "s0g0")
        {
            noRoute = std::stoull(row.at("drop_no_route"));
        }
    }
    EXPECT_EQ(noRoute, 256u); // the 1 MiB message's 4 KiB frames, counted at the NIC
}

TEST(FlowFidelity, AFlappingLinkAndALostLaneCostWhatTheyCostAtPacketLevel)
{
    // link-flap.json: RDMA traffic while a fabric link flaps three times and host 5's link
    // loses half its lanes.  The flow model reroutes around the flaps and halves that link's
    // capacity: host 5's message and the slowest one take what they take at packet level.
    const json doc = json::parse(ReadFile(fs::path(kScenarios) / "link-flap.json"));
    const fs::path scratch = Scratch("flow-link-flap");
    const auto [packet, flow] = FlowsAtBothFidelities(doc, "fct_us", scratch);
    ASSERT_EQ(packet.size(), 16u);
    ASSERT_EQ(flow.size(), packet.size());
    EXPECT_NEAR(flow[5] / packet[5], 1.0, 0.01);
    EXPECT_NEAR(*std::max_element(flow.begin(), flow.end()) /
                    *std::max_element(packet.begin(), packet.end()),
                1.0,
                0.01);
    // The same failures and effects; frames lost are a packet-level figure (0 at flow level).
    auto packetFailures = ReadCsv(scratch / "packet" / "failures.csv");
    auto flowFailures = ReadCsv(scratch / "flow" / "failures.csv");
    ASSERT_EQ(flowFailures.size(), 4u);
    ASSERT_EQ(flowFailures.size(), packetFailures.size());
    for (std::size_t i = 0; i < flowFailures.size(); ++i)
    {
        EXPECT_EQ(flowFailures[i].at("frames_lost"), "0");
        flowFailures[i].erase("frames_lost");
        packetFailures[i].erase("frames_lost");
        EXPECT_EQ(flowFailures[i], packetFailures[i]) << "row " << i;
    }
}

TEST(FlowFidelity, AvailabilityMeasuresItsFabricStatesAtFlowLevel)
{
    // availability-8gpu.json measures the job's iteration healthy, with a link down and with
    // a link at half its lanes, then runs 30 days of failures on those times: at flow level
    // the states take what they take at packet level (0.2% measured) and so does goodput.
    const fs::path scratch = Scratch("flow-availability");
    json result[2];
    for (int f = 0; f < 2; ++f)
    {
        const std::string fidelity = f == 0 ? "packet" : "flow";
        const Outcome o = RunAt("availability-8gpu", fidelity, scratch / fidelity);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
        result[f] = json::parse(ReadFile(scratch / fidelity / "summary.json"));
        EXPECT_EQ(result[f].at("fidelity"), fidelity);
    }
    const json& packet = result[0].at("availability");
    const json& flow = result[1].at("availability");
    int measured = 0;
    for (const auto& [state, p] : packet.at("fabric_states").items())
    {
        const json& q = flow.at("fabric_states").at(state);
        EXPECT_EQ(q.at("source"), p.at("source")) << state;
        if (p.at("source") == "measured")
        {
            ++measured;
            EXPECT_NEAR(q.at("iteration_s").get<double>() / p.at("iteration_s").get<double>(),
                        1.0, 0.01)
                << state;
        }
    }
    EXPECT_EQ(measured, 3);
    EXPECT_NEAR(flow.at("goodput").get<double>() / packet.at("goodput").get<double>(), 1.0, 0.001);
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
        FlowRefusal{"pcap",
                    "{\"fidelity\": \"flow\", " + kStar +
                        R"(, "traffic": {"pattern": "permutation", "transport": "rdma"}, "pcap": {}})",
                    "pcap"},
        FlowRefusal{"bit_errors",
                    "{\"fidelity\": \"flow\", " + kStar +
                        R"(, "traffic": {"pattern": "permutation", "transport": "rdma"},
                           "failures": {"inject": [{"component": "link 0", "at": "1us",
                                                    "mode": "bit_errors"}]}})",
                    "failures.inject[0].mode"}),
    [](const testing::TestParamInfo<FlowRefusal>& info) { return std::string(info.param.name); });
