// Chakra execution traces: the reader against records encoded here by hand from the schema's
// field numbers (so a wrong number in our .proto fails), the writer's round trip, the refusals,
// and the order and dependencies TraceProgram gives a rank's nodes.
#include "runner-fixture.h"

#include "ns3/chakra-trace.h"
#include "ns3/trace-program.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

using namespace ns3;
using namespace aifabric_test;
namespace fs = std::filesystem;

namespace
{
/** Protobuf wire format, written out by hand: varints, tags and length-delimited fields. */
struct Wire
{
    std::string bytes;

    Wire& Varint(uint64_t v)
    {
        do
        {
            bytes += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
            v >>= 7;
        } while (v > 0);
        return *this;
    }
    Wire& Int(uint32_t field, uint64_t v) { return Varint(field << 3).Varint(v); }
    Wire& Sint(uint32_t field, int64_t v) // zigzag
    {
        return Int(field, static_cast<uint64_t>((v << 1) ^ (v >> 63)));
    }
    Wire& Fixed64(uint32_t field, uint64_t v)
    {
        Varint((field << 3) | 1);
        for (int i = 0; i < 8; ++i)
        {
            bytes += static_cast<char>((v >> (8 * i)) & 0xff);
        }
        return *this;
    }
    Wire& Bytes(uint32_t field, const std::string& b)
    {
        Varint((field << 3) | 2).Varint(b.size());
        bytes += b;
        return *this;
    }
    /** A record of a trace file: its length, then the message. */
    Wire& Record(const Wire& m) { return Varint(m.bytes.size()).Raw(m.bytes); }
    Wire& Raw(const std::string& b)
    {
        bytes += b;
        return *this;
    }
};

// Chakra's field numbers (et_def.proto): Node id 1, name 2, type 3, ctrl_deps 4, data_deps 5,
// duration_micros 7, attr 10; AttributeProto name 1, int32_val 7, int64_val 9, uint64_val 13,
// sint64_val 17, fixed64_val 21, bool_val 27, string_val 29; GlobalMetadata version 1.
Wire
Attr(const std::string& name, uint32_t field, uint64_t value)
{
    Wire a;
    a.Bytes(1, name);
    return field == 21 ? a.Fixed64(field, value) : a.Int(field, value);
}

Wire
StringAttr(const std::string& name, const std::string& value)
{
    Wire a;
    a.Bytes(1, name).Bytes(29, value);
    return a;
}

Wire
Metadata()
{
    Wire m;
    m.Bytes(1, "0.0.4");
    return m;
}

std::string
WriteFile(const std::string& name, const std::string& bytes)
{
    const fs::path p = Scratch("chakra") / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
}

std::string
ReadError(const std::string& bytes, uint32_t rank = 0)
{
    try
    {
        ChakraTrace::Read(WriteFile("bad.et", bytes), rank);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TraceNode
Node(uint64_t id, TraceNode::Kind kind, std::vector<uint64_t> parents = {})
{
    TraceNode n;
    n.id = id;
    n.kind = kind;
    n.parents = std::move(parents);
    n.durationMicros = 10;
    n.bytes = 4096;
    return n;
}
} // namespace

TEST(ChakraTrace, ReadsAstraSimsAllReduceRecordsEncodedByHand)
{
    // ASTRA-sim's 4-NPU all-reduce microbenchmark, rank 0: 81 bytes, the node 72.
    Wire node;
    node.Bytes(2, "all_reduce_4npus_1MB").Int(3, 7);
    node.Bytes(10, Attr("is_cpu_op", 27, 0).bytes);
    node.Bytes(10, Attr("comm_type", 9, 0).bytes); // ALL_REDUCE is 0, sent explicitly
    node.Bytes(10, Attr("comm_size", 9, 1048576).bytes);
    Wire file;
    file.Record(Metadata()).Record(node);
    ASSERT_EQ(node.bytes.size(), 72u);
    ASSERT_EQ(file.bytes.size(), 81u);
    const auto nodes = ChakraTrace::Read(WriteFile("ar.0.et", file.bytes), 0);
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0].id, 0u);
    EXPECT_EQ(nodes[0].name, "all_reduce_4npus_1MB");
    EXPECT_EQ(nodes[0].kind, TraceNode::COLLECTIVE);
    EXPECT_EQ(nodes[0].op, ALL_REDUCE);
    EXPECT_EQ(nodes[0].bytes, 1048576u);
    EXPECT_EQ(nodes[0].group, "");
}

TEST(ChakraTrace, ReadsEveryIntegerTypeDependenciesAndSendsAndReceives)
{
    Wire compute; // a GPU kernel of 25 us after nodes 1 (data) and 2 (control)
    compute.Int(1, 3).Int(3, 4).Bytes(4, Wire().Varint(2).bytes).Int(5, 1).Int(7, 25);
    Wire flops; // no duration: 2e12 FLOPs given as a uint64
    flops.Int(1, 4).Int(3, 4).Bytes(10, Attr("num_ops", 13, 2000000000000).bytes);
    Wire host; // a CPU op orders but takes no time
    host.Int(1, 1).Int(3, 4).Int(7, 999).Bytes(10, Attr("is_cpu_op", 27, 1).bytes);
    Wire meta;
    meta.Int(1, 2).Int(3, 1);
    Wire gather; // all-gather, its size a fixed64, on group "7"
    gather.Int(1, 5).Int(3, 7).Bytes(10, Attr("comm_type", 7, 2).bytes);
    gather.Bytes(10, Attr("comm_size", 21, 8192).bytes).Bytes(10, StringAttr("pg_name", "7").bytes);
    Wire send; // to rank 3, its size only as tensor_size (the Chakra generator's form)
    send.Int(1, 6).Int(3, 5).Bytes(10, Attr("comm_dst", 7, 3).bytes);
    send.Bytes(10, Attr("tensor_size", 13, 512).bytes);
    Wire recv; // from rank 0 into this rank 1, comm_size as a zigzag sint64
    Wire size;
    size.Bytes(1, "comm_size").Sint(17, 1024);
    recv.Int(1, 7).Int(3, 6).Bytes(10, Attr("comm_src", 7, 0).bytes).Bytes(10, size.bytes);
    Wire file;
    file.Record(Metadata()).Record(compute).Record(flops).Record(host).Record(meta);
    file.Record(gather).Record(send).Record(recv);
    const auto n = ChakraTrace::Read(WriteFile("mixed.1.et", file.bytes), 1);
    ASSERT_EQ(n.size(), 7u);
    EXPECT_EQ(n[0].kind, TraceNode::COMPUTE);
    EXPECT_EQ(n[0].durationMicros, 25u);
    EXPECT_EQ(n[0].parents, (std::vector<uint64_t>{1, 2}));
    EXPECT_EQ(n[1].kind, TraceNode::COMPUTE);
    EXPECT_EQ(n[1].flops, 2e12);
    EXPECT_EQ(n[2].kind, TraceNode::ORDER);
    EXPECT_EQ(n[3].kind, TraceNode::ORDER);
    EXPECT_EQ(n[4].op, ALL_GATHER);
    EXPECT_EQ(n[4].bytes, 8192u);
    EXPECT_EQ(n[4].group, "7");
    EXPECT_EQ(n[5].kind, TraceNode::SEND);
    EXPECT_EQ(n[5].peer, 3u);
    EXPECT_EQ(n[5].bytes, 512u);
    EXPECT_EQ(n[6].kind, TraceNode::RECV);
    EXPECT_EQ(n[6].peer, 0u);
    EXPECT_EQ(n[6].bytes, 1024u);
}

TEST(ChakraTrace, WritesWhatItReads)
{
    std::vector<TraceNode> nodes = {Node(1, TraceNode::COMPUTE), Node(2, TraceNode::COLLECTIVE, {1}),
                                    Node(3, TraceNode::SEND, {1}), Node(4, TraceNode::RECV, {2, 3})};
    nodes[1].op = REDUCE_SCATTER;
    nodes[1].group = "2";
    nodes[2].peer = 5;
    nodes[3].peer = 6;
    const std::string path = (Scratch("chakra") / "w.4.et").string();
    {
        std::ofstream f(path, std::ios::binary);
        ChakraTrace::Write(f, nodes, 4);
    }
    const auto back = ChakraTrace::Read(path, 4);
    ASSERT_EQ(back.size(), nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        EXPECT_EQ(back[i].id, nodes[i].id);
        EXPECT_EQ(back[i].kind, nodes[i].kind);
        EXPECT_EQ(back[i].parents, nodes[i].parents);
        EXPECT_EQ(back[i].peer, nodes[i].peer);
        EXPECT_EQ(back[i].group, nodes[i].group);
        if (nodes[i].kind == TraceNode::COMPUTE)
        {
            EXPECT_EQ(back[i].durationMicros, 10u);
        }
        else
        {
            EXPECT_EQ(back[i].bytes, 4096u);
        }
    }
    EXPECT_EQ(back[1].op, REDUCE_SCATTER);
    const std::map<std::string, std::vector<uint32_t>> groups = {{"1", {0, 1}}, {"2", {2, 3, 4}}};
    const std::string g = (Scratch("chakra") / "g.json").string();
    {
        std::ofstream f(g);
        ChakraTrace::WriteGroups(f, groups);
    }
    EXPECT_EQ(ChakraTrace::ReadGroups(g), groups);
}

TEST(ChakraTrace, RefusesWhatItCannotRunNamingTheNode)
{
    const auto withNode = [](const Wire& n) { return Wire().Record(Metadata()).Record(n).bytes; };
    Wire memory;
    memory.Int(1, 9).Int(3, 2);
    EXPECT_NE(ReadError(withNode(memory)).find("node 9: node type MEM_LOAD_NODE is not supported"),
              std::string::npos);
    Wire barrier;
    barrier.Int(1, 4).Int(3, 7).Bytes(10, Attr("comm_type", 9, 9).bytes);
    barrier.Bytes(10, Attr("comm_size", 9, 8).bytes);
    EXPECT_NE(ReadError(withNode(barrier)).find("comm_type 9 is not supported"), std::string::npos);
    Wire untyped; // comm_type absent must not read as ALL_REDUCE (0)
    untyped.Int(1, 4).Int(3, 7).Bytes(10, Attr("comm_size", 9, 8).bytes);
    EXPECT_NE(ReadError(withNode(untyped)).find("attribute comm_type is required"), std::string::npos);
    Wire foreign; // a send from another rank in rank 0's file
    foreign.Int(1, 4).Int(3, 5).Bytes(10, Attr("comm_src", 7, 2).bytes);
    foreign.Bytes(10, Attr("comm_dst", 7, 1).bytes).Bytes(10, Attr("comm_size", 9, 8).bytes);
    EXPECT_NE(ReadError(withNode(foreign)).find("comm_src is 2 in rank 0's trace"), std::string::npos);
    EXPECT_NE(ReadError("").find("no GlobalMetadata"), std::string::npos);
    EXPECT_NE(ReadError(Wire().Record(Metadata()).Varint(50).Raw("xx").bytes).find("record 1"),
              std::string::npos);
}

TEST(TraceProgram, IssuesLowestIdFirstAndWaitsOnlyForItsParents)
{
    // Rank 0 of DP 2: ids out of file order; node 5 (compute) does not depend on the
    // all-reduce 3, node 7 does; the metadata node 6 passes 3 on to its child 7.
    ParallelLayout layout;
    layout.dp = 2;
    std::vector<TraceNode> rank = {Node(7, TraceNode::COMPUTE, {6}), Node(5, TraceNode::COMPUTE, {1}),
                                   Node(3, TraceNode::COLLECTIVE, {1}), Node(1, TraceNode::COMPUTE),
                                   Node(6, TraceNode::ORDER, {3, 5})};
    const TraceProgram p({rank, rank}, layout, {}, {});
    Ptr<Accelerator> gpu = CreateObject<Accelerator>();
    const auto ops = p.GetOps(0, gpu);
    ASSERT_EQ(ops.size(), 5u); // 1, 3, 5, 7 and the final wait
    EXPECT_EQ(ops[0].kind, JobOp::COMPUTE);
    EXPECT_EQ(ops[0].picoseconds, 10000000);
    EXPECT_EQ(ops[1].kind, JobOp::COLLECTIVE);
    EXPECT_EQ(ops[1].comm, JobComm::DATA);
    EXPECT_FALSE(ops[1].blocking);
    EXPECT_TRUE(ops[2].after.empty());
    EXPECT_EQ(ops[3].after, (std::vector<uint32_t>{1}));
    EXPECT_EQ(ops[4].kind, JobOp::WAIT);
    EXPECT_EQ(ops[4].after, (std::vector<uint32_t>{1})); // the end waits for every collective
    ASSERT_EQ(p.GetRequests(JobComm::DATA).size(), 1u);
    EXPECT_EQ(p.GetRequests(JobComm::DATA)[0].elementBytes, 4u); // gradients
}

// EP 2 x DP 1: the expert and data groups are both ranks 0 and 1.  Each process group goes
// to one communicator: one the rank runs an all-to-all on to the experts' (its all-gather
// too), any other to the data group's; the world's two spellings ("" and "0") are one group.
TEST(TraceProgram, WithOneReplicaAProcessGroupIsTheExpertsIfItCarriesAnAllToAll)
{
    ParallelLayout layout;
    layout.ep = 2;
    const auto comms = [&](const std::vector<std::pair<std::string, CollectiveOperation>>& calls) {
        std::vector<TraceNode> rank;
        for (const auto& [group, op] : calls)
        {
            rank.push_back(Node(rank.size() + 1, TraceNode::COLLECTIVE));
            rank.back().group = group;
            rank.back().op = op;
        }
        const TraceProgram p({rank, rank}, layout, {{"1", {0, 1}}, {"2", {1, 0}}}, {});
        std::vector<JobComm> c;
        for (const JobOp& op : p.GetOps(1, CreateObject<Accelerator>()))
        {
            if (op.kind == JobOp::COLLECTIVE)
            {
                c.push_back(op.comm);
            }
        }
        return c;
    };
    EXPECT_EQ(comms({{"1", ALL_TO_ALL}, {"1", ALL_GATHER}, {"2", ALL_REDUCE}, {"", ALL_REDUCE}}),
              (std::vector<JobComm>{JobComm::EXPERT, JobComm::EXPERT, JobComm::DATA,
                                    JobComm::DATA}));
    EXPECT_EQ(comms({{"0", ALL_REDUCE}, {"", ALL_TO_ALL}, {"2", ALL_GATHER}}),
              (std::vector<JobComm>{JobComm::EXPERT, JobComm::EXPERT, JobComm::DATA}));
}

TEST(TraceProgram, RefusesTracesTheJobCannotRun)
{
    ParallelLayout layout;
    layout.tp = 2;
    layout.pp = 2; // ranks 0,1 stage 0; 2,3 stage 1
    const auto error = [&](std::vector<std::vector<TraceNode>> nodes,
                           std::map<std::string, std::vector<uint32_t>> groups = {}) {
        try
        {
            TraceProgram(nodes, layout, groups, {});
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::vector<TraceNode> idle = {Node(1, TraceNode::COMPUTE)};
    auto cycle = idle;
    cycle.push_back(Node(2, TraceNode::COMPUTE, {3}));
    cycle.push_back(Node(3, TraceNode::COMPUTE, {2}));
    EXPECT_NE(error({cycle, idle, idle, idle}).find("rank 0, node 2: is on a cycle"), std::string::npos);
    auto orphan = idle;
    orphan.push_back(Node(2, TraceNode::COMPUTE, {9}));
    EXPECT_NE(error({idle, orphan, idle, idle}).find("depends on node 9, which is not"),
              std::string::npos);
    auto far = idle; // rank 0 to rank 3: another tensor rank of the next stage
    far.push_back(Node(2, TraceNode::SEND));
    far.back().peer = 3;
    EXPECT_NE(error({far, idle, idle, idle}).find("not the next or previous pipeline stage"),
              std::string::npos);
    auto world = idle; // 4 ranks are no group of this layout
    world.push_back(Node(2, TraceNode::COLLECTIVE));
    EXPECT_NE(error({world, world, world, world}).find("(all ranks) with ranks [0,1,2,3] is not"),
              std::string::npos);
    auto tensor = idle;
    tensor.push_back(Node(2, TraceNode::COLLECTIVE));
    tensor.back().group = "1";
    EXPECT_NE(error({tensor, idle, idle, idle}, {{"1", {0, 1}}})
                  .find("rank 1: its tensor-parallel group [0,1] does not issue the same"),
              std::string::npos);
    auto lonely = idle; // a send nobody receives
    lonely.push_back(Node(2, TraceNode::SEND));
    lonely.back().peer = 2;
    EXPECT_NE(error({lonely, idle, idle, idle}).find("rank 2: its receives from rank 0 do not match"),
              std::string::npos);
    EXPECT_NE(error({idle}).find("a trace per rank: 4 ranks, 1 traces"), std::string::npos);
}

namespace
{
/** A k=4 fat-tree scenario (16 GPUs, 100G) of one job \p job (JSON object text). */
std::string
Scenario(const std::string& job, bool traces)
{
    return "{\"name\":\"t\",\"topology\":{\"kind\":\"fat_tree\",\"k\":4,\"nic_rate\":\"100Gbps\"},"
           "\"training\":{\"chakra_traces\":" +
           std::string(traces ? "true" : "false") + ",\"jobs\":[" + job + "]}}";
}

/**
 * Run \p job with chakra_traces, then the job its traces describe (layout \p layout), each in
 * \p dir; returns the two results folders.
 */
std::pair<fs::path, fs::path>
RunBothWays(const fs::path& dir, const std::string& job, const std::string& layout)
{
    std::ofstream(dir / "model.json") << Scenario(job, true);
    const fs::path a = dir / "model";
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "model.json").string() + " --out=" + a.string(),
                                 dir);
    EXPECT_EQ(o.exitCode, 0) << o.stderrText;
    const std::string prefix = (a / "trace-j").string();
    std::ofstream(dir / "trace.json")
        << Scenario("{\"name\":\"j\"," + layout + ",\"iterations\":2,\"trace\":\"" + prefix +
                        "\",\"process_groups\":\"" + prefix + ".groups.json\"}",
                    false);
    const fs::path b = dir / "trace";
    const Outcome t = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "trace.json").string() + " --out=" + b.string(),
                                 dir);
    EXPECT_EQ(t.exitCode, 0) << t.stderrText;
    return {a, b};
}
} // namespace

TEST(ChakraTraceRunner, AJobsTracesRunItsIterationsExactly)
{
    // Compute of whole microseconds (480 us over 4 micro-batches x 4 layer halves x 3): the
    // traces hold it exactly, so every time and its breakdown agree; with one gradient bucket,
    // and with FSDP (each layer's compute waiting for its own gather).
    for (const std::string data : {"\"bucket_bytes\":100000000", "\"fully_sharded\":true"})
    {
        const fs::path dir = Scratch("trace-exact");
        const std::string layout = "\"ranks\":8,\"tensor_parallel\":2,\"pipeline_parallel\":2";
        const auto [a, b] = RunBothWays(
            dir,
            "{\"name\":\"j\"," + layout + ",\"compute_time\":\"480us\",\"layers\":4,"
            "\"micro_batches\":4,\"parameters\":4000000,\"activation_bytes\":262144," + data +
                ",\"iterations\":2}",
            layout);
        const auto first = ReadCsv(a / "iterations.csv");
        ASSERT_EQ(first.size(), 2u);
        EXPECT_GT(std::stod(first[0].at("exposed_tensor_s")), 0);
        EXPECT_GT(std::stod(first[0].at("exposed_pipeline_s")), 0);
        EXPECT_GT(std::stod(first[0].at("exposed_data_s")), 0);
        EXPECT_EQ(ReadFile(a / "iterations.csv"), ReadFile(b / "iterations.csv")) << data;
        EXPECT_EQ(ReadFile(a / "ranks.csv"), ReadFile(b / "ranks.csv")) << data;
        EXPECT_EQ(ReadFile(a / "trace-j.groups.json"),
                  "{\"1\":[0,1],\"2\":[2,3],\"3\":[4,5],\"4\":[6,7],\"5\":[0,2],\"6\":[1,3],"
                  "\"7\":[4,6],\"8\":[5,7]}\n");
        fs::remove_all(dir);
    }
}

TEST(ChakraTraceRunner, ExpertParallelJobsTracesRunTheirIterationsExactly)
{
    const struct
    {
        const char* name;
        std::string layout;
        std::string keys;
        std::string groups;
    } cases[] = {
        // EP 2 x DP 2 x PP 2 with ZeRO-1: the expert all-to-alls on the EP groups, the dense
        // gradients on the EP x DP groups and the experts' on the DP groups, each a process
        // group of its own.
        {"trace-experts", "\"ranks\":8,\"expert_parallel\":2,\"pipeline_parallel\":2",
         ",\"distributed_optimizer\":true",
         "{\"1\":[0,1],\"10\":[5,7],\"2\":[2,3],\"3\":[4,5],\"4\":[6,7],"
         "\"5\":[0,1,2,3],\"6\":[4,5,6,7],\"7\":[0,2],\"8\":[1,3],\"9\":[4,6]}\n"},
        // EP 2 x PP 2, DP 1: the dense gradients reduce over the EP ranks.  The traces name the
        // expert and the data group of the same ranks apart, as PyTorch's two process groups
        // would; the all-to-alls' group runs on the expert communicator, the other on the data
        // one, concurrently, as in the model-driven run.
        {"trace-one-replica", "\"ranks\":4,\"expert_parallel\":2,\"pipeline_parallel\":2", "",
         "{\"1\":[0,1],\"2\":[2,3],\"3\":[0,1],\"4\":[2,3]}\n"},
    };
    // The traces run the same iterations to the picosecond.
    for (const auto& c : cases)
    {
        const fs::path dir = Scratch(c.name);
        const auto [a, b] = RunBothWays(
            dir,
            "{\"name\":\"j\"," + c.layout + ",\"compute_time\":\"480us\",\"layers\":4,"
            "\"moe_layers\":2,\"micro_batches\":4,\"parameters\":4000000,"
            "\"expert_parameters\":2000000,\"activation_bytes\":262144,\"iterations\":2" +
                c.keys + "}",
            c.layout);
        const auto first = ReadCsv(a / "iterations.csv");
        ASSERT_EQ(first.size(), 2u) << c.name;
        EXPECT_GT(std::stod(first[0].at("exposed_expert_s")), 0) << c.name;
        EXPECT_GT(std::stod(first[0].at("exposed_data_s")), 0) << c.name;
        EXPECT_EQ(ReadFile(a / "iterations.csv"), ReadFile(b / "iterations.csv")) << c.name;
        EXPECT_EQ(ReadFile(a / "ranks.csv"), ReadFile(b / "ranks.csv")) << c.name;
        EXPECT_EQ(ReadFile(a / "trace-j.groups.json"), c.groups) << c.name;
        fs::remove_all(dir);
    }
}

TEST(ChakraTraceRunner, AModelJobsTracesRunWithinTheirMicrosecondRounding)
{
    // Sequence parallelism and ZeRO-1 on a small transformer: each compute node's duration
    // is rounded to whole microseconds, so each rank's compute is within 0.5 us per node of
    // the model's; the iterations are then within 1%.
    const fs::path dir = Scratch("trace-model");
    const std::string layout = "\"ranks\":8,\"tensor_parallel\":2,\"pipeline_parallel\":2";
    const auto [a, b] = RunBothWays(
        dir,
        "{\"name\":\"j\"," + layout + ",\"model\":{\"layers\":4,\"hidden_size\":512,"
        "\"ffn_hidden_size\":2048,\"attention_heads\":8,\"kv_heads\":0,\"vocab_size\":1000,"
        "\"sequence_length\":256},\"micro_batches\":4,\"sequence_parallel\":true,"
        "\"distributed_optimizer\":true,\"bucket_bytes\":1000000,\"iterations\":2}",
        layout);
    const auto model = ReadCsv(a / "ranks.csv");
    const auto trace = ReadCsv(b / "ranks.csv");
    ASSERT_EQ(model.size(), 16u);
    ASSERT_EQ(trace.size(), 16u);
    for (std::size_t i = 0; i < model.size(); ++i)
    {
        const uint32_t rank = std::stoul(model[i].at("rank"));
        uint32_t computeNodes = 0;
        for (const TraceNode& n : ChakraTrace::Read(
                 ChakraTrace::RankFile((a / "trace-j").string(), rank), rank))
        {
            computeNodes += n.kind == TraceNode::COMPUTE;
        }
        EXPECT_NEAR(std::stod(trace[i].at("compute_s")), std::stod(model[i].at("compute_s")),
                    0.5e-6 * computeNodes)
            << "rank " << rank;
    }
    const auto mi = ReadCsv(a / "iterations.csv");
    const auto ti = ReadCsv(b / "iterations.csv");
    for (std::size_t i = 0; i < 2; ++i)
    {
        const double m = std::stod(mi[i].at("duration_s"));
        EXPECT_NEAR(std::stod(ti[i].at("duration_s")) / m, 1, 0.01);
    }
    fs::remove_all(dir);
}

namespace
{
/** Run a job of \p layout (job keys) whose rank r runs \p traces[r], on groups \p groups. */
Outcome
RunTraces(const fs::path& dir, const std::vector<std::vector<TraceNode>>& traces,
          const std::string& layout, const std::map<std::string, std::vector<uint32_t>>& groups)
{
    for (uint32_t r = 0; r < traces.size(); ++r)
    {
        std::ofstream f(ChakraTrace::RankFile((dir / "t").string(), r), std::ios::binary);
        ChakraTrace::Write(f, traces[r], r);
    }
    {
        std::ofstream f(dir / "groups.json");
        ChakraTrace::WriteGroups(f, groups);
    }
    std::ofstream(dir / "s.json") << Scenario("{\"name\":\"j\"," + layout + ",\"trace\":\"" +
                                                  (dir / "t").string() + "\",\"process_groups\":\"" +
                                                  (dir / "groups.json").string() + "\"}",
                                              false);
    return RunProgram(AI_FABRIC_RUN_BINARY,
                      "--scenario=" + (dir / "s.json").string() + " --out=" + (dir / "r").string(),
                      dir);
}

/**
 * Run four ranks of TP 2 x DP 2 whose traces are two collectives each, the first on group
 * firstThen[r].first, the last on firstThen[r].second: with compute after the first and the
 * last depending on nothing, or (\p chained) the last depending on the first.  The first
 * collectives need the other member's last one: rank 0's tensor all-reduce is rank 1's last
 * node, and round 0 -> 1 -> 3 -> 2 -> 0.
 */
Outcome
RunCrossedTraces(const fs::path& dir, bool chained)
{
    const std::array<std::pair<std::string, std::string>, 4> firstThen = {
        {{"1", "3"}, {"4", "1"}, {"3", "2"}, {"2", "4"}}};
    std::vector<std::vector<TraceNode>> traces;
    for (uint32_t r = 0; r < 4; ++r)
    {
        std::vector<TraceNode> nodes = {Node(1, TraceNode::COLLECTIVE)};
        if (chained)
        {
            nodes.push_back(Node(2, TraceNode::COLLECTIVE, {1}));
        }
        else
        {
            nodes.push_back(Node(2, TraceNode::COMPUTE, {1}));
            nodes.push_back(Node(3, TraceNode::COLLECTIVE));
        }
        nodes.front().group = firstThen[r].first;
        nodes.back().group = firstThen[r].second;
        traces.push_back(nodes);
    }
    return RunTraces(dir, traces, "\"ranks\":4,\"tensor_parallel\":2",
                     {{"1", {0, 1}}, {"2", {2, 3}}, {"3", {0, 2}}, {"4", {1, 3}}});
}
} // namespace

TEST(ChakraTraceRunner, ACollectiveStartsOnceItsParentsFinishNotInProgramOrder)
{
    // Each rank: a collective, compute after it, and a collective that depends on nothing: a
    // rank that started its last collective only after its compute would wait forever.
    const fs::path dir = Scratch("trace-ahead");
    const Outcome o = RunCrossedTraces(dir, false);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const auto rows = ReadCsv(dir / "r" / "iterations.csv");
    ASSERT_EQ(rows.size(), 1u);
    // 10 us of compute after a 4 KiB collective: far less than a millisecond.
    EXPECT_GT(std::stod(rows[0].at("duration_s")), 10e-6);
    EXPECT_LT(std::stod(rows[0].at("duration_s")), 1e-3);
    fs::remove_all(dir);
}

TEST(ChakraTraceRunner, RanksWaitingOnEachOtherExitTwoNamingTheRank)
{
    // Each rank's second collective depends on its first: the ranks wait on each other in a
    // cycle, as NCCL would hang.  Found once the run has ended: after the run's progress
    // lines, and no results folder.
    const fs::path dir = Scratch("trace-stall");
    const Outcome o = RunCrossedTraces(dir, true);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("error: training.jobs[0]: job 'j' stopped in iteration 0 with "
                                "nothing left to run: rank 0 is at node 2, waiting for tensor "
                                "collective node 1"),
              std::string::npos)
        << o.stderrText;
    EXPECT_FALSE(fs::exists(dir / "r"));
    fs::remove_all(dir);
}

TEST(ChakraTraceRunner, AFreeSendGoesAheadOfUnrelatedCompute)
{
    // Two stages, zero-byte messages: stage 0 computes 100 us and sends, the send depending
    // on nothing; stage 1 receives, then computes 100 us.  The send goes at once, so the
    // iteration is 100 us, not 200.
    const fs::path dir = Scratch("trace-free-send");
    std::vector<TraceNode> first = {Node(1, TraceNode::COMPUTE), Node(2, TraceNode::SEND)};
    std::vector<TraceNode> second = {Node(1, TraceNode::RECV), Node(2, TraceNode::COMPUTE, {1})};
    first[0].durationMicros = second[1].durationMicros = 100;
    first[1].bytes = second[0].bytes = 0;
    first[1].peer = 1;
    second[0].peer = 0;
    const Outcome o = RunTraces(dir, {first, second}, "\"ranks\":2,\"pipeline_parallel\":2", {});
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const auto rows = ReadCsv(dir / "r" / "iterations.csv");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_DOUBLE_EQ(std::stod(rows[0].at("duration_s")), 100e-6);
    fs::remove_all(dir);
}
