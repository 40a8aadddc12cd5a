// Training jobs through ai-fabric-run: bad job descriptions exit 2 with one line and no
// results; the outputs agree with each other (per rank, compute + exposed + barrier = the
// iteration); the same scenario and seed give identical files.
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace aifabric_test;
using nlohmann::json;

namespace
{
/** A scenario on a k=4 fat-tree (16 GPUs, 100G) with \p jobs (JSON array text). */
/**
 * A scenario of \p jobs (kJob followed by keys that override its own: the runner refuses a key
 * given twice, so the text is normalized here, the last value of a key winning).
 */
std::string
TrainingScenario(const std::string& jobs, const std::string& extra = "")
{
    return nlohmann::json::parse("{\"name\":\"t\",\"topology\":{\"kind\":\"fat_tree\",\"k\":4,"
                                 "\"nic_rate\":\"100Gbps\"}," +
                                 extra + "\"training\":{\"jobs\":" + jobs + "}}")
        .dump();
}

const std::string kJob = "{\"name\":\"a\",\"ranks\":8,\"compute_time\":\"500us\","
                         "\"parameters\":1000000,\"iterations\":2";
/** A small transformer (2 layers, h 256, 8 heads, 1024-wide MLP, 128-token sequences). */
const std::string kTinyModel =
    "{\"layers\":2,\"hidden_size\":256,\"ffn_hidden_size\":1024,\"attention_heads\":8,"
    "\"kv_heads\":0,\"vocab_size\":1000,\"sequence_length\":128}";

struct BadJob
{
    BadJob(const char* n, std::string s, std::string m, std::string map = "")
        : name(n),
          scenario(std::move(s)),
          mustMention(std::move(m)),
          mapFile(std::move(map))
    {
    }
    const char* name;
    std::string scenario; //!< "@DIR@" stands for the test's scratch folder
    std::string mustMention;
    std::string mapFile; //!< written to @DIR@/map.txt if not empty
};

class TrainingBadInput : public testing::TestWithParam<BadJob>
{
};

} // namespace

TEST_P(TrainingBadInput, ExitsTwoWithOneLineAndNoResults)
{
    const BadJob& b = GetParam();
    const fs::path dir = Scratch(b.name);
    if (!b.mapFile.empty())
    {
        std::ofstream(dir / "map.txt") << b.mapFile;
    }
    std::string text = b.scenario;
    for (auto at = text.find("@DIR@"); at != std::string::npos; at = text.find("@DIR@"))
    {
        text.replace(at, 5, dir.string());
    }
    std::ofstream(dir / "s.json") << text;
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "s.json").string() +
                                     " --out=" + (dir / "out").string(),
                                 dir);
    ExpectRefusedAsBadInput(o, dir / "out", b.mustMention);
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Classes,
    TrainingBadInput,
    testing::Values(
        BadJob{"degrees_not_ranks", TrainingScenario("[" + kJob + ",\"tensor_parallel\":2,\"data_parallel\":2}]"),
               "= 4 but Ranks = 8"},
        BadJob{"degrees_not_dividing", TrainingScenario("[" + kJob + ",\"tensor_parallel\":3}]"),
               "not a multiple"},
        BadJob{"more_ranks_than_gpus", TrainingScenario("[" + kJob + ",\"ranks\":17}]"),
               "needs 17 GPUs but only 16"},
        BadJob{"second_job_does_not_fit",
               TrainingScenario("[" + kJob + ",\"ranks\":12}," + kJob + ",\"name\":\"b\"}]"),
               "only 4 are free"},
        BadJob{"unknown_placement", TrainingScenario("[" + kJob + ",\"placement\":\"spread\"}]"),
               "training.jobs[0].placement"},
        BadJob{"map_placement_without_file",
               TrainingScenario("[" + kJob + ",\"placement\":\"map\"}]"),
               "training.jobs[0].placement_map = null: required with placement \"map\""},
        BadJob{"empty_map_file_name",
               TrainingScenario("[" + kJob + ",\"placement_map\":\"\"}]"),
               "training.jobs[0].placement_map = \"\": a file name"},
        BadJob{"map_file_with_packed",
               TrainingScenario("[" + kJob + ",\"placement\":\"packed\",\"placement_map\":\"@DIR@/map.txt\"}]"),
               "not with placement \"packed\"", "0 s0g0\n"},
        BadJob{"malformed_map",
               TrainingScenario("[" + kJob + ",\"placement_map\":\"@DIR@/map.txt\"}]"),
               "line 2", "0 s0g0\n1 two words here\n"},
        BadJob{"map_missing_rank",
               TrainingScenario("[" + kJob + ",\"placement_map\":\"@DIR@/map.txt\"}]"),
               "rank 1 has no GPU", "0 s0g0\n"},
        BadJob{"map_unknown_gpu",
               TrainingScenario("[" + kJob + ",\"ranks\":2,\"placement_map\":\"@DIR@/map.txt\"}]"),
               "'s40g0' is not in the topology", "0 s0g0\n1 s40g0\n"},
        BadJob{"map_unreadable",
               TrainingScenario("[" + kJob + ",\"placement_map\":\"@DIR@/none.txt\"}]"),
               "cannot be read"},
        BadJob{"unknown_job_key", TrainingScenario("[" + kJob + ",\"gpus\":8}]"),
               "training.jobs[0].gpus"},
        BadJob{"missing_ranks",
               TrainingScenario("[{\"compute_time\":\"1ms\"}]"), "training.jobs[0].ranks"},
        BadJob{"no_jobs", TrainingScenario("[]"), "training.jobs"},
        BadJob{"duplicate_names", TrainingScenario("[" + kJob + "}," + kJob + "}]"),
               "training.jobs[1].name"},
        BadJob{"slowdown_unknown_type",
               TrainingScenario("[" + kJob + ",\"slowdown\":\"ns3::NoSuchVariable\"}]"),
               "training.jobs[0].slowdown"},
        BadJob{"slowdown_not_a_variable",
               TrainingScenario("[" + kJob + ",\"slowdown\":\"ns3::TrainingJob\"}]"),
               "training.jobs[0].slowdown"},
        BadJob{"slowdown_unknown_attribute",
               TrainingScenario("[" + kJob + ",\"slowdown\":\"ns3::StragglerRandomVariable[Speed=2]\"}]"),
               "training.jobs[0].slowdown"},
        BadJob{"server_slowdown_unknown_server",
               TrainingScenario("[" + kJob + ",\"server_slowdown\":{\"16\":1.5}}]"),
               "server_slowdown.16"},
        BadJob{"server_slowdown_zero",
               TrainingScenario("[" + kJob + ",\"server_slowdown\":{\"3\":0}}]"),
               "server_slowdown.3"},
        BadJob{"unknown_algorithm",
               TrainingScenario("[" + kJob + ",\"algorithms\":{\"data\":\"butterfly\"}}]"),
               "algorithms.data"},
        BadJob{"bad_compute_time", TrainingScenario("[" + kJob + ",\"compute_time\":\"5 parsecs\"}]"),
               "training.jobs[0].compute_time"},
        // Issue 24: a name with a space aborted in ns-3; quotes and commas broke the CSVs and
        // the timeline; -1 wrapped to 2^64-1 gradient bytes or hung; 2^63 failed to allocate.
        BadJob{"name_with_space", TrainingScenario("[" + kJob + ",\"name\":\"my job\"}]"),
               "training.jobs[0].name"},
        BadJob{"name_with_quote_and_comma",
               TrainingScenario("[" + kJob + ",\"name\":\"a\\\"b,c\"}]"), "training.jobs[0].name"},
        BadJob{"negative_parameters", TrainingScenario("[" + kJob + ",\"parameters\":-1}]"),
               "training.jobs[0].parameters"},
        BadJob{"parameters_near_2_63",
               TrainingScenario("[" + kJob + ",\"parameters\":9223372036854775000}]"),
               "training.jobs[0].parameters"},
        BadJob{"negative_activation_bytes",
               TrainingScenario("[" + kJob + ",\"layers\":2,\"activation_bytes\":-1}]"),
               "training.jobs[0].activation_bytes"},
        BadJob{"model_and_layers",
               TrainingScenario("[{\"ranks\":8,\"model\":" + kTinyModel + ",\"layers\":1}]"),
               "training.jobs[0].layers = 1: given by the job's model"},
        BadJob{"model_and_compute_time",
               TrainingScenario("[" + kJob + ",\"model\":" + kTinyModel + "}]"),
               "training.jobs[0].compute_time"},
        BadJob{"model_file_unreadable",
               TrainingScenario("[{\"ranks\":8,\"model\":\"@DIR@/none.json\"}]"),
               "training.jobs[0].model"},
        BadJob{"model_unknown_key",
               TrainingScenario("[{\"ranks\":8,\"model\":{\"depth\":3}}]"),
               "training.jobs[0].model.depth"},
        BadJob{"model_heads_not_dividing_hidden",
               TrainingScenario("[{\"ranks\":8,\"model\":{\"hidden_size\":100}}]"),
               "AttentionHeads (32) must divide HiddenSize (100)"},
        // A 2-layer model over 4 stages; 2 + 1 layers of 2 over 2 stages; no pipeline.
        BadJob{"stage_layers_one_each_too_many",
               TrainingScenario("[{\"ranks\":4,\"pipeline_parallel\":4,\"first_stage_layers\":1,"
                                "\"model\":" + kTinyModel + "}]"),
               "minus FirstStageLayers (1) and LastStageLayers (0) must split evenly over the "
               "other 3 stages, at least one layer each"},
        BadJob{"stage_layers_more_than_the_model",
               TrainingScenario("[{\"ranks\":2,\"pipeline_parallel\":2,\"first_stage_layers\":2,"
                                "\"last_stage_layers\":1,\"model\":" + kTinyModel + "}]"),
               "Layers (2) minus FirstStageLayers (2) and LastStageLayers (1) must leave no layers"},
        BadJob{"stage_layers_without_pipeline",
               TrainingScenario("[{\"ranks\":2,\"last_stage_layers\":1,\"model\":" +
                                kTinyModel + "}]"),
               "need PipelineParallel > 1"},
        BadJob{"virtual_stages_with_uneven_stages",
               TrainingScenario("[{\"ranks\":2,\"pipeline_parallel\":2,\"virtual_stages\":2,"
                                "\"first_stage_layers\":1,\"model\":" + kTinyModel + "}]"),
               "VirtualStages (2) with FirstStageLayers or LastStageLayers is not modelled"},
        BadJob{"virtual_stages_with_chakra_traces",
               "{\"name\":\"t\",\"topology\":{\"kind\":\"fat_tree\",\"k\":4},\"training\":"
               "{\"chakra_traces\":true,\"jobs\":[{\"ranks\":2,\"pipeline_parallel\":2,"
               "\"virtual_stages\":2,\"layers\":4,\"micro_batches\":2}]}}",
               "training.chakra_traces"},
        BadJob{"precision_without_model",
               TrainingScenario("[" + kJob + ",\"precision\":\"fp8\"}]"),
               "training.jobs[0].precision = \"fp8\": applies only with a \"model\""},
        BadJob{"recompute_unknown", TrainingScenario("[" + kJob + ",\"recompute\":\"partial\"}]"),
               "training.jobs[0].recompute"},
        BadJob{"micro_batch_size_without_model",
               TrainingScenario("[" + kJob + ",\"micro_batch_size\":1}]"),
               "training.jobs[0].micro_batch_size = 1: applies only with a \"model\""},
        BadJob{"expert_parallel_on_dense_model",
               TrainingScenario("[{\"ranks\":8,\"expert_parallel\":2,\"model\":" + kTinyModel +
                                "}]"),
               "needs MoeLayers > 0 (a Model with Experts)"},
        BadJob{"sequence_parallel_without_tensor_parallel",
               TrainingScenario("[" + kJob + ",\"sequence_parallel\":true}]"),
               "SequenceParallel needs TensorParallel > 1"},
        BadJob{"distributed_optimizer_without_replicas",
               TrainingScenario("[" + kJob + ",\"tensor_parallel\":8,"
                                "\"distributed_optimizer\":true}]"),
               "DistributedOptimizer needs ExpertParallel x DataParallel > 1"},
        BadJob{"fully_sharded_with_expert_parallel",
               TrainingScenario("[" + kJob + ",\"layers\":2,\"moe_layers\":1,"
                                "\"expert_parallel\":2,\"fully_sharded\":true}]"),
               "FullySharded with ExpertParallel > 1 is not modelled"},
        BadJob{"expert_parameters_without_moe_layers",
               TrainingScenario("[" + kJob + ",\"expert_parameters\":10}]"),
               "ExpertParameters (10) needs MoeLayers > 0"},
        BadJob{"expert_parameters_above_parameters",
               TrainingScenario("[" + kJob + ",\"layers\":2,\"moe_layers\":1,"
                                "\"expert_parameters\":1000001}]"),
               "ExpertParameters (1000001) must be at most Parameters (1000000)"},
        BadJob{"trace_and_expert_parameters",
               TrainingScenario("[{\"ranks\":8,\"trace\":\"t\",\"expert_parameters\":10}]"),
               "training.jobs[0].expert_parameters = 10: given by the job's trace"},
        BadJob{"expert_parameters_with_model",
               TrainingScenario("[{\"ranks\":8,\"expert_parameters\":10,\"model\":" +
                                kTinyModel + "}]"),
               "training.jobs[0].expert_parameters = 10: given by the job's model"},
        BadJob{"fully_sharded_without_replicas",
               TrainingScenario("[" + kJob + ",\"tensor_parallel\":8,\"fully_sharded\":true}]"),
               "FullySharded needs DataParallel > 1"},
        BadJob{"fully_sharded_with_buckets",
               TrainingScenario("[" + kJob + ",\"fully_sharded\":true,\"bucket_bytes\":1000}]"),
               "BucketBytes applies to gradient buckets, which FullySharded does not use"},
        BadJob{"fully_sharded_and_distributed_optimizer",
               TrainingScenario("[" + kJob + ",\"fully_sharded\":true,\"distributed_optimizer\":true}]"),
               "leave DistributedOptimizer unset"},
        BadJob{"parameter_bytes_without_distributed_optimizer",
               TrainingScenario("[" + kJob + ",\"parameter_element_bytes\":2}]"),
               "training.jobs[0].parameter_element_bytes = 2: applies only with"},
        BadJob{"trace_and_model",
               TrainingScenario("[{\"ranks\":8,\"trace\":\"t\",\"model\":" + kTinyModel + "}]"),
               "training.jobs[0].model = {"},
        BadJob{"trace_and_compute_time", TrainingScenario("[" + kJob + ",\"trace\":\"t\"}]"),
               "training.jobs[0].compute_time = \"500us\": given by the job's trace"},
        BadJob{"process_groups_without_trace",
               TrainingScenario("[" + kJob + ",\"process_groups\":\"g.json\"}]"),
               "training.jobs[0].process_groups = \"g.json\": applies only with a \"trace\""},
        BadJob{"chakra_traces_of_a_trace_job",
               "{\"name\":\"t\",\"topology\":{\"kind\":\"fat_tree\",\"k\":4},\"training\":"
               "{\"chakra_traces\":true,\"jobs\":[{\"ranks\":2,\"trace\":\"t\"}]}}",
               "training.chakra_traces"},
        BadJob{"trace_file_missing",
               TrainingScenario("[{\"ranks\":2,\"trace\":\"@DIR@/none\"}]"),
               "none.0.et: cannot read the file"},
        BadJob{"with_a_collective",
               TrainingScenario("[" + kJob + "}]", "\"collective\":{\"bytes\":1024},"),
               "training"}),
    [](const testing::TestParamInfo<BadJob>& info) { return std::string(info.param.name); });

TEST(TrainingRunner, OutputsAgreeWithEachOther)
{
    const fs::path dir = Scratch("training-outputs");
    std::ofstream(dir / "s.json") << TrainingScenario(
        "[" + kJob + ",\"samples_per_iteration\":64,\"server_slowdown\":{\"2\":1.25}}," + kJob +
        ",\"name\":\"b\",\"placement\":\"scattered\",\"ranks\":4}]");
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "s.json").string() +
                                     " --out=" + (dir / "r").string(),
                                 dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    EXPECT_NE(o.stdoutText.find("utilization"), std::string::npos) << o.stdoutText;
    // Issue 17: the summary line said "0 of 0 messages complete" for a run without messages.
    EXPECT_EQ(o.stderrText.find("messages complete"), std::string::npos) << o.stderrText;
    EXPECT_NE(o.stderrText.find("frames delivered"), std::string::npos) << o.stderrText;
    const auto iterations = ReadCsv(dir / "r" / "iterations.csv");
    const auto ranks = ReadCsv(dir / "r" / "ranks.csv");
    ASSERT_EQ(iterations.size(), 4u); // 2 jobs x 2 iterations
    ASSERT_EQ(ranks.size(), 2u * 8 + 2u * 4);
    std::map<std::pair<std::string, std::string>, double> duration;
    for (const auto& it : iterations)
    {
        duration[{it.at("job"), it.at("iteration")}] = std::stod(it.at("duration_s"));
        // Issue 17: slowest_gpu named the last rank to finish; now the slowed GPU.
        EXPECT_EQ(it.at("slowest_gpu"), it.at("job") == "a" ? "s2g0" : "none");
        EXPECT_NEAR(std::stod(it.at("utilization")), 500e-6 / std::stod(it.at("duration_s")), 1e-9);
    }
    for (const auto& r : ranks)
    {
        const double sum = std::stod(r.at("compute_s")) + std::stod(r.at("exposed_comm_s")) +
                           std::stod(r.at("barrier_wait_s"));
        const double expected = duration[{r.at("job"), r.at("iteration")}];
        EXPECT_NEAR(sum, expected, 1e-11);
        const double parts = std::stod(r.at("exposed_tensor_s")) + std::stod(r.at("exposed_expert_s")) +
                             std::stod(r.at("exposed_pipeline_s")) + std::stod(r.at("exposed_data_s"));
        EXPECT_NEAR(parts, std::stod(r.at("exposed_comm_s")), 1e-11);
        // Server 2 (packed job a's rank 2) computes 1.25x slower.
        const bool slow = r.at("job") == "a" && r.at("gpu") == "s2g0";
        EXPECT_EQ(std::stod(r.at("slowdown")), slow ? 1.25 : 1.0) << r.at("gpu");
    }
    const json summary = json::parse(ReadFile(dir / "r" / "summary.json"));
    const json& a = summary.at("training").at("jobs").at(0);
    EXPECT_TRUE(a.at("finished").get<bool>());
    EXPECT_EQ(a.at("parallelism").at("dp").get<int>(), 8);
    const double mean = a.at("mean_iteration_s").get<double>();
    EXPECT_NEAR(a.at("utilization").get<double>(), 500e-6 / mean, 1e-9);
    EXPECT_NEAR(a.at("samples_per_s").get<double>(), 64 / mean, 1e-6);
    EXPECT_EQ(summary.at("training").at("jobs").at(1).at("placement"), "scattered");
    const json timeline = json::parse(ReadFile(dir / "r" / "timeline.json"));
    std::size_t spans = 0;
    for (const auto& e : timeline.at("traceEvents"))
    {
        spans += e.at("ph") == "X";
        if (e.at("ph") == "X")
        {
            EXPECT_GE(e.at("dur").get<double>(), 0);
            if (e.at("cat") == "communication")
            {
                // auto records NCCL's tuner's pick: algorithm/protocol/channels.
                const std::string algorithm = e.at("args").at("algorithm");
                EXPECT_EQ(algorithm.rfind("auto:", 0), 0u) << algorithm;
                EXPECT_EQ(std::count(algorithm.begin(), algorithm.end(), '/'), 2) << algorithm;
            }
        }
    }
    EXPECT_EQ(spans, summary.at("training").at("spans").get<std::size_t>());
    fs::remove_all(dir);
}

TEST(TrainingRunner, SameScenarioSameResults)
{
    const fs::path dir = Scratch("training-determinism");
    std::ofstream(dir / "s.json") << TrainingScenario(
        "[" + kJob + ",\"placement\":\"scattered\",\"slowdown\":"
                     "\"ns3::UniformRandomVariable[Min=1|Max=1.2]\"}]");
    for (const char* out : {"a", "b"})
    {
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + (dir / "s.json").string() + " --out=" +
                                         (dir / out).string(),
                                     dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    }
    ExpectIdenticalResults(dir / "a", dir / "b",
                           {"iterations.csv", "ranks.csv", "timeline.json", "links.csv"});
    fs::remove_all(dir);
}

TEST(TrainingRunner, ShippedTrainingScenariosFinishEveryIteration)
{
    for (const char* name : {"training-dp-fat-tree", "training-3d-rail"})
    {
        const fs::path dir = Scratch(name);
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     std::string("--scenario=") + AI_FABRIC_SCENARIO_DIR + "/" +
                                         name + ".json --out=" + (dir / "r").string(),
                                     dir);
        ASSERT_EQ(o.exitCode, 0) << name << ": " << o.stderrText;
        const json summary = json::parse(ReadFile(dir / "r" / "summary.json"));
        EXPECT_EQ(summary.at("frames_dropped").get<uint64_t>(), 0u) << name;
        for (const auto& job : summary.at("training").at("jobs"))
        {
            EXPECT_TRUE(job.at("finished").get<bool>()) << name;
            const double u = job.at("utilization").get<double>();
            EXPECT_GT(u, 0.0) << name;
            EXPECT_LT(u, 1.0) << name;
        }
        fs::remove_all(dir);
    }
}

// Issue 17: streams were literals (network from 100, 3 per link; jobs at 1000 + 2i; failures at
// 2^20), so a fabric of more than 300 links gave the first job's placement and slowdown draws
// the streams of some port's ECN marker.  Now one plan: each consumer takes the streams its
// AssignStreams reports, after the previous one's.
TEST(RandomStreams, NoTwoConsumersShareAStreamInA256GpuScenario)
{
    const fs::path dir = Scratch("streams-256");
    std::ofstream(dir / "s.json") << R"({"name": "streams",
      "stop_time": "5ms",
      "topology": {"kind": "rail_optimized", "servers": 32, "gpus_per_server": 8,
                   "servers_per_group": 16, "nic_rate": "400Gbps"},
      "training": {"jobs": [
        {"name": "a", "ranks": 128, "compute_time": "10us", "parameters": 4096,
         "iterations": 1, "placement": "scattered"},
        {"name": "b", "ranks": 128, "compute_time": "10us", "parameters": 4096,
         "iterations": 1, "placement": "scattered"}]},
      "failures": {"components": [{"kind": "gpu", "mtbf": "1e6h", "mttr": "1h"},
                                  {"kind": "link", "mtbf": "1e6h", "mttr": "1h"}]}})";
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "s.json").string() +
                                     " --out=" + (dir / "r").string(),
                                 dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const nlohmann::json summary = nlohmann::json::parse(ReadFile(dir / "r" / "summary.json"));
    const uint64_t links = summary["links"];
    ASSERT_GT(links, 600u) << "large enough that the old literals overlapped";
    std::set<std::string> cables; // links a "link" failure mode applies to: all but NVLink
    std::set<std::string> engines; // NVSwitches' links to their NVLS engines
    for (const auto& row : ReadCsv(dir / "r" / "links.csv"))
    {
        if (row.at("medium") != "nvlink")
        {
            cables.insert(row.at("link"));
        }
        if (row.at("role") == "nvls_engine")
        {
            engines.insert(row.at("link"));
        }
    }
    ASSERT_EQ(engines.size(), 32u);
    // What each consumer needs, from the scenario (not from the code's own bookkeeping): 4 per
    // link but the NVLS engines' (inside their switches: two ports' ECN markers, the channel's
    // bit errors in each direction), 2 per job (placement,
    // slowdown), 2 per failure process (time to failure, time to repair): one per GPU and
    // cable.
    const std::map<std::string, int64_t> needs{{"traffic", 1},
                                              {"network", int64_t(4 * (links - engines.size()))},
                                              {"job a", 2},
                                              {"job b", 2},
                                              {"failures", int64_t(2 * (256 + cables.size()))}};
    int64_t next = 0;
    std::set<std::string> seen;
    for (const auto& c : summary["random_streams"])
    {
        const std::string consumer = c["consumer"];
        EXPECT_EQ(c["first"].get<int64_t>(), next) << consumer << ": streams overlap or gap";
        ASSERT_TRUE(needs.count(consumer)) << consumer;
        EXPECT_EQ(c["count"].get<int64_t>(), needs.at(consumer)) << consumer;
        next += c["count"].get<int64_t>();
        seen.insert(consumer);
    }
    EXPECT_EQ(seen.size(), needs.size());
    fs::remove_all(dir);
}

// Issue 19, server presets: the "server" key sets the accelerators' FLOP rate (hgx_b200: the
// 1745.0 TFLOP/s of BF16 matrix products measured on it), and an accelerator key the scenario
// gives wins.
TEST(TrainingRunner, ServerPresetSetsTheAcceleratorAndKeysWin)
{
    const fs::path dir = Scratch("server-preset");
    const std::string job =
        "[{\"name\":\"a\",\"ranks\":8,\"flops\":4e9,\"parameters\":1000,\"iterations\":1}]";
    const std::map<std::string, std::pair<std::string, double>> cases = {
        {"preset", {"\"server\":\"hgx_b200\",", 1745e12}},
        {"key", {"\"server\":\"hgx_b200\",\"accelerator\":{\"sustained_flops\":1e14},", 1e14}},
        {"none", {"", 794.5e12}}};
    for (const auto& [name, c] : cases)
    {
        std::ofstream(dir / (name + ".json")) << TrainingScenario(job, c.first);
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + (dir / (name + ".json")).string() +
                                         " --out=" + (dir / name).string(),
                                     dir);
        ASSERT_EQ(o.exitCode, 0) << name << ": " << o.stderrText;
        const auto ranks = ReadCsv(dir / name / "ranks.csv");
        ASSERT_EQ(ranks.size(), 8u);
        for (const auto& r : ranks)
        {
            EXPECT_NEAR(std::stod(r.at("compute_s")), 4e9 / c.second, 1e-12) << name;
        }
    }
    fs::remove_all(dir);
}

// DeepEP's dispatch for a job's expert all-to-alls routes by the job's model: 6 experts, top 2,
// over 3 expert ranks run, where the algorithm's own 256 would be no whole number per rank and
// its top 8 more than the 6 experts.
TEST(TrainingRunner, DeepEpRoutesAJobsExpertAllToAllsByItsModel)
{
    const fs::path dir = Scratch("deepep-job");
    const std::string model = kTinyModel.substr(0, kTinyModel.size() - 1) +
                              ",\"experts\":6,\"expert_top_k\":2,\"expert_ffn_hidden_size\":512}";
    std::ofstream(dir / "s.json") << TrainingScenario(
        "[{\"name\":\"moe\",\"ranks\":6,\"expert_parallel\":3,\"iterations\":1,\"model\":" +
        model + ",\"algorithms\":{\"expert\":\"deepep\"}}]");
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "s.json").string() +
                                     " --out=" + (dir / "r").string(),
                                 dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    EXPECT_EQ(ReadCsv(dir / "r" / "iterations.csv").size(), 1u);
    fs::remove_all(dir);
}

// The shipped model presets, each on one GPU (nothing to communicate): their parameters are
// the published totals, and an iteration of m micro-batches of b sequences takes, at the
// default 794.5 TFLOP/s sustained, the FLOPs of PaLM's model-FLOPs formula (Chowdhery et al.,
// 2022, appendix B): per token 6N + 12 L Q s, with N the weights of the matrix products
// (all but the input embedding, when not tied, and the norms) and Q the query width; so MFU is
// 794.5 / 989 of the H100's peak.
TEST(TrainingRunner, ModelPresetsHaveTheirParametersAndFlops)
{
    const fs::path dir = Scratch("model-presets");
    const struct
    {
        const char* file;
        double published; // parameters
        double tolerance;
        double layers, hidden, queryWidth, vocab, sequence;
        bool tied;
    } presets[] = {
        {"llama3-8b", 8.03e9, 0.001, 32, 4096, 4096, 128256, 8192, false},
        {"llama3-70b", 70.6e9, 0.001, 80, 8192, 8192, 128256, 8192, false},
        {"llama3-405b", 405.8e9, 0.001, 126, 16384, 16384, 128256, 8192, false},
        {"gpt3-175b", 175.0e9, 0.005, 96, 12288, 12288, 50257, 2048, true},
        // Narayanan et al.'s Table 1 (biases and position embeddings counted: 0.012% more).
        {"mt-nlg-530b", 529.6e9, 0.001, 105, 20480, 20480, 51200, 2048, true},
        {"mixtral-8x7b", 46.7e9, 0.002, 32, 4096, 4096, 32000, 32768, false},
    };
    const uint32_t m = 2;
    const uint32_t b = 2;
    for (const auto& p : presets)
    {
        const std::string model = std::string(AI_FABRIC_SCENARIO_DIR) + "/models/" + p.file + ".json";
        std::ofstream(dir / "s.json") << TrainingScenario(
            "[{\"ranks\":1,\"micro_batches\":" + std::to_string(m) +
            ",\"micro_batch_size\":" + std::to_string(b) + ",\"model\":\"" + model + "\"}]");
        const fs::path out = dir / p.file;
        const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                     "--scenario=" + (dir / "s.json").string() +
                                         " --out=" + out.string(),
                                     dir);
        ASSERT_EQ(o.exitCode, 0) << p.file << ": " << o.stderrText;
        const json job = json::parse(ReadFile(out / "summary.json")).at("training").at("jobs")[0];
        const double parameters = job.at("model").at("parameters").get<double>();
        EXPECT_NEAR(parameters / p.published, 1.0, p.tolerance) << p.file;
        // Weights outside the matrix products: two norms a layer and the final one, and the
        // input embedding (a lookup) unless the output layer shares it.
        const double norms = (2 * p.layers + 1) * p.hidden;
        const double n = parameters - norms - (p.tied ? 0 : p.vocab * p.hidden);
        // Mixtral: only the top 2 of 8 experts' weights per token, and the router's.
        const double experts = std::string(p.file) == "mixtral-8x7b" ? 8 : 0;
        const double expertWeights = 3 * p.hidden * 14336;
        const double used = n - (experts > 0 ? p.layers * (experts - 2) * expertWeights : 0);
        const double perToken = 6 * used + 12 * p.layers * p.queryWidth * p.sequence;
        const double tokens = double(m) * b * p.sequence;
        const double seconds = tokens * perToken / 794.5e12;
        EXPECT_NEAR(job.at("mean_iteration_s").get<double>() / seconds, 1.0, 1e-9) << p.file;
        EXPECT_NEAR(job.at("model").at("model_flops_per_iteration").get<double>() /
                        (tokens * perToken),
                    1.0, 1e-12)
            << p.file;
        EXPECT_NEAR(job.at("model").at("mfu").get<double>(), 794.5 / 989, 1e-9) << p.file;
        EXPECT_NEAR(job.at("tokens_per_s").get<double>(), tokens / seconds, tokens / seconds * 1e-9);
    }
    // DeepSeek-V3's latent attention is outside PaLM's formula: its preset loads and has its
    // published 671 B parameters (the closed form of its FLOPs is TransformerModel's test).
    std::ofstream(dir / "s.json") << TrainingScenario(
        "[{\"ranks\":1,\"model\":\"" + std::string(AI_FABRIC_SCENARIO_DIR) +
        "/models/deepseek-v3.json\"}]");
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "s.json").string() + " --out=" +
                                     (dir / "deepseek-v3").string(),
                                 dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const json v3 = json::parse(ReadFile(dir / "deepseek-v3" / "summary.json"))
                        .at("training").at("jobs")[0].at("model");
    EXPECT_NEAR(v3.at("parameters").get<double>() / 671e9, 1.0, 0.001);
    fs::remove_all(dir);
}
