// Training jobs: iteration times against compute, the collective layer alone, the 1F1B
// bubble formula, stragglers, scale, and jobs sharing a fabric.
#include "collective-fixture.h"
#include "fabric-fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace ns3;
using namespace aifabric_test;

namespace
{

/** One job to install: its attributes, placement and overrides. */
struct JobConfig
{
    JobConfig(Attributes a)
        : attributes(std::move(a))
    {
    }
    Attributes attributes;
    Ptr<JobPlacement> placement = CreateObject<PackedPlacement>();
    std::map<uint32_t, double> serverSlowdown;
    std::string dataAlgorithm{"ring"};
};

/** What a job gave. */
struct JobOutcome
{
    std::vector<JobIteration> iterations;
    std::vector<JobRankIteration> ranks;
    std::vector<uint32_t> hosts;
    std::vector<double> slowdowns;
    Time ideal;
    double utilization{0};
};

std::vector<JobOutcome>
RunJobs(const FabricTopology& topology, const std::vector<JobConfig>& configs)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(topology);
    net->AssignStreams(100);
    RdmaHelper rdma;
    rdma.Install(net);
    std::vector<Ptr<TrainingJob>> jobs;
    for (std::size_t i = 0; i < configs.size(); ++i)
    {
        TrainingJobHelper helper;
        helper.SetJobAttribute("Name", StringValue("job" + std::to_string(i)));
        for (const auto& [name, value] : configs[i].attributes)
        {
            helper.SetJobAttribute(name, StringValue(value));
        }
        helper.SetPlacement(configs[i].placement);
        helper.SetAlgorithm(ParallelAxis::DATA, CollectiveAlgorithm::Create(configs[i].dataAlgorithm));
        for (const auto& [server, factor] : configs[i].serverSlowdown)
        {
            helper.SetServerSlowdown(server, factor);
        }
        jobs.push_back(helper.Install(net, rdma, 10 + 2 * static_cast<int64_t>(i)));
    }
    Simulator::Run();
    std::vector<JobOutcome> out;
    for (const auto& job : jobs)
    {
        JobOutcome o;
        o.iterations = job->GetIterations();
        o.ranks = job->GetRankIterations();
        for (uint32_t r = 0; r < job->GetNRanks(); ++r)
        {
            o.hosts.push_back(job->GetHost(r));
            o.slowdowns.push_back(job->GetSlowdown(r));
        }
        o.ideal = job->GetIdealComputeTime();
        o.utilization = job->GetUtilization();
        EXPECT_TRUE(job->IsFinished()) << job->GetName();
        out.push_back(o);
    }
    Simulator::Destroy();
    return out;
}

JobOutcome
RunJob(const FabricTopology& topology, const JobConfig& config)
{
    return RunJobs(topology, {config}).front();
}

/** Two leaves under one spine; every link \p rate; hosts 0..n-1 on leaf 0, n..2n-1 on leaf 1. */
FabricTopology
TwoLeaves(uint32_t hostsPerLeaf, DataRate rate)
{
    FabricTopology topo;
    std::vector<uint32_t> hosts;
    for (uint32_t i = 0; i < 2 * hostsPerLeaf; ++i)
    {
        hosts.push_back(topo.AddHost("h" + std::to_string(i), i, 0));
    }
    const uint32_t leaf0 = topo.AddNode(FabricTopology::Role::Leaf, "leaf0");
    const uint32_t leaf1 = topo.AddNode(FabricTopology::Role::Leaf, "leaf1");
    const uint32_t spine = topo.AddNode(FabricTopology::Role::Spine, "spine");
    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        topo.AddLink(hosts[i], i < hostsPerLeaf ? leaf0 : leaf1, rate, 3,
                     FabricTopology::Medium::Copper);
    }
    topo.AddLink(leaf0, spine, rate, 30, FabricTopology::Medium::Optical);
    topo.AddLink(leaf1, spine, rate, 30, FabricTopology::Medium::Optical);
    return topo;
}

/**
 * A 4-layer transformer (hidden 256, MLP 1024, 8 heads, vocabulary 32000, \p sequence tokens)
 * over PP 2 on two GPUs as packets, 3 micro-batches of one sequence, with job \p attributes
 * (strings); runs it to the end and returns the job (the caller destroys the simulator).
 */
Ptr<TrainingJob>
RunSmallModelOverTwoStages(Ptr<TransformerModel> model, uint64_t sequence,
                           const Attributes& attributes)
{
    for (const auto& [name, value] : std::vector<std::pair<std::string, uint64_t>>{
             {"Layers", 4}, {"HiddenSize", 256}, {"FfnHiddenSize", 1024},
             {"AttentionHeads", 8}, {"KvHeads", 0}, {"VocabSize", 32000},
             {"SequenceLength", sequence}})
    {
        model->SetAttribute(name, UintegerValue(value));
    }
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(2, DataRate("400Gbps"), 3));
    net->AssignStreams(100);
    RdmaHelper rdma;
    rdma.Install(net);
    TrainingJobHelper helper;
    helper.SetJobAttribute("Ranks", UintegerValue(2));
    helper.SetJobAttribute("PipelineParallel", UintegerValue(2));
    helper.SetJobAttribute("MicroBatches", UintegerValue(3));
    helper.SetJobAttribute("Model", PointerValue(model));
    for (const auto& [name, value] : attributes)
    {
        helper.SetJobAttribute(name, StringValue(value));
    }
    Ptr<TrainingJob> job = helper.Install(net, rdma, 10);
    Simulator::Run();
    return job;
}

/** A program's compute (ps) and its collectives per communicator. */
std::pair<int64_t, std::map<JobComm, uint32_t>>
CountOps(const TrainingProgram& p)
{
    int64_t compute = 0;
    std::map<JobComm, uint32_t> collectives;
    for (const auto& op : p.GetOps())
    {
        compute += op.kind == JobOp::COMPUTE ? op.picoseconds : 0;
        collectives[op.comm] += op.kind == JobOp::COLLECTIVE;
    }
    return {compute, collectives};
}

Ptr<JobPlacement>
Map(const std::vector<uint32_t>& hosts)
{
    std::string text;
    for (uint32_t r = 0; r < hosts.size(); ++r)
    {
        text += std::to_string(r) + " " + std::to_string(hosts[r]) + "\n";
    }
    return MapPlacement::FromText(text, "test map");
}

} // namespace

TEST(ParallelLayout, GroupsFollowTheTpEpDpPpOrder)
{
    ParallelLayout l;
    l.tp = 2;
    l.ep = 1;
    l.dp = 3;
    l.pp = 2;
    ASSERT_EQ(l.GetNRanks(), 12u);
    for (uint32_t r = 0; r < 12; ++r)
    {
        EXPECT_EQ(l.RankOf(l.Of(r)), r);
    }
    const auto tp = l.Groups(ParallelAxis::TENSOR);
    ASSERT_EQ(tp.size(), 6u);
    EXPECT_EQ(tp[0], (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(tp[5], (std::vector<uint32_t>{10, 11}));
    const auto dp = l.Groups(ParallelAxis::DATA);
    ASSERT_EQ(dp.size(), 4u);
    EXPECT_EQ(dp[0], (std::vector<uint32_t>{0, 2, 4}));
    EXPECT_EQ(dp[2], (std::vector<uint32_t>{6, 8, 10}));
    const auto pp = l.Groups(ParallelAxis::PIPELINE);
    ASSERT_EQ(pp.size(), 6u);
    EXPECT_EQ(pp[1], (std::vector<uint32_t>{1, 7}));
    // Every rank is in exactly one group of each axis.
    for (ParallelAxis axis : {ParallelAxis::TENSOR, ParallelAxis::EXPERT, ParallelAxis::DATA,
                              ParallelAxis::PIPELINE})
    {
        std::multiset<uint32_t> seen;
        for (const auto& g : l.Groups(axis))
        {
            seen.insert(g.begin(), g.end());
        }
        EXPECT_EQ(seen.size(), 12u);
        EXPECT_EQ(std::set<uint32_t>(seen.begin(), seen.end()).size(), 12u);
    }
}

// The dense parameters' replicas are the EP x DP ranks of a tensor and pipeline coordinate
// (Megatron-LM's data-parallel group); an expert's are the DP ranks of one EP coordinate.
TEST(ParallelLayout, GroupsSpanningSeveralAxesListTheirRanksInOrder)
{
    ParallelLayout l;
    l.tp = 2;
    l.ep = 2;
    l.dp = 2;
    l.pp = 2;
    const auto dense = l.Groups(SpanOf(JobComm::DATA));
    ASSERT_EQ(dense.size(), 4u);
    EXPECT_EQ(dense[0], (std::vector<uint32_t>{0, 2, 4, 6}));
    EXPECT_EQ(dense[1], (std::vector<uint32_t>{1, 3, 5, 7}));
    EXPECT_EQ(dense[3], (std::vector<uint32_t>{9, 11, 13, 15}));
    const auto experts = l.Groups(SpanOf(JobComm::EXPERT_DATA));
    ASSERT_EQ(experts.size(), 8u);
    EXPECT_EQ(experts[0], (std::vector<uint32_t>{0, 4}));
    EXPECT_EQ(experts[1], (std::vector<uint32_t>{1, 5}));
    EXPECT_EQ(experts[2], (std::vector<uint32_t>{2, 6}));
    // Spanning every axis: one group of all ranks; each rank in one group of each span.
    const auto all = l.Groups({ParallelAxis::TENSOR, ParallelAxis::EXPERT, ParallelAxis::DATA,
                               ParallelAxis::PIPELINE});
    ASSERT_EQ(all.size(), 1u);
    for (uint32_t r = 0; r < 16; ++r)
    {
        EXPECT_EQ(all[0][r], r);
    }
    for (JobComm comm : kCollectiveComms)
    {
        std::multiset<uint32_t> seen;
        for (const auto& g : l.Groups(SpanOf(comm)))
        {
            seen.insert(g.begin(), g.end());
        }
        EXPECT_EQ(std::set<uint32_t>(seen.begin(), seen.end()).size(), 16u);
        EXPECT_EQ(seen.size(), 16u);
    }
    // A rank's group, and its position in the list, for every span of a 3-wide axis.
    l.ep = 3;
    const std::vector<std::vector<ParallelAxis>> spans = {
        {ParallelAxis::TENSOR}, {ParallelAxis::EXPERT}, {ParallelAxis::EXPERT, ParallelAxis::DATA},
        {ParallelAxis::DATA}, {ParallelAxis::PIPELINE}, {ParallelAxis::TENSOR, ParallelAxis::PIPELINE}};
    for (const auto& span : spans)
    {
        const auto groups = l.Groups(span);
        EXPECT_EQ(groups.size() * l.Size(span), l.GetNRanks());
        for (uint32_t r = 0; r < l.GetNRanks(); ++r)
        {
            const auto& group = groups.at(l.GroupIndex(r, span));
            EXPECT_NE(std::find(group.begin(), group.end(), r), group.end()) << r;
            EXPECT_EQ(l.GroupOf(r, span), group) << r;
        }
    }
}

TEST(TrainingProgram, CountsOpsAndKeepsComputeExact)
{
    TrainingProgramSpec s;
    s.compute = PicoSeconds(1000000007);
    s.optimizer = MicroSeconds(3);
    s.layers = 6;
    s.microBatches = 5;
    s.tp = 2;
    s.pp = 3;
    s.dp = 2;
    s.ep = 2;
    s.moeLayers = 3;
    s.activationBytes = 1 << 20;
    s.gradientBytes = 10 << 20;
    s.bucketBytes = 4 << 20;
    for (uint32_t stage = 0; stage < 3; ++stage)
    {
        TrainingProgram p(s, stage);
        auto [compute, collectives] = CountOps(p);
        EXPECT_EQ(compute, s.compute.GetPicoSeconds() + s.optimizer.GetPicoSeconds());
        // Two layers per stage, 2 all-reduces per layer each way, per micro-batch.
        EXPECT_EQ(collectives[JobComm::TENSOR], 2u * 2 * 2 * 5);
        // Layers 1, 3, 5 are MoE: one per stage, two all-to-alls each way.
        EXPECT_EQ(collectives[JobComm::EXPERT], 1u * 2 * 2 * 5);
        EXPECT_EQ(collectives[JobComm::DATA], 3u); // 4 + 4 + 2 MiB
        EXPECT_EQ(collectives[JobComm::ACTIVATION_SEND], stage < 2 ? 5u : 0u);
        EXPECT_EQ(collectives[JobComm::ACTIVATION_RECV], stage > 0 ? 5u : 0u);
        EXPECT_EQ(collectives[JobComm::GRADIENT_SEND], stage > 0 ? 5u : 0u);
        EXPECT_EQ(collectives[JobComm::GRADIENT_RECV], stage < 2 ? 5u : 0u);
        EXPECT_EQ(p.GetOps().back().phase, JobOp::OPTIMIZER);
    }
    const auto buckets = TrainingProgram::Requests(s, JobComm::DATA);
    ASSERT_EQ(buckets.size(), 2u);
    EXPECT_EQ(buckets[0].bytes, 4u << 20);
    EXPECT_EQ(buckets[1].bytes, 2u << 20);
}

// Uneven stages (Megatron's first and last stage layers): each stage runs its own layers' tensor
// collectives and the expert all-to-alls of the MoE layers among them, counted over the model.
TEST(TrainingProgram, UnevenStagesRunTheirOwnLayers)
{
    TrainingProgramSpec s;
    s.compute = PicoSeconds(600000001);
    s.layers = 6;
    s.stageLayers = {1, 3, 2};
    s.microBatches = 4;
    s.tp = 2;
    s.pp = 3;
    s.ep = 2;
    s.moeLayers = 3; // layers 1, 3 and 5
    s.activationBytes = 1 << 20;
    const uint32_t moe[] = {0, 2, 1};
    for (uint32_t stage = 0; stage < 3; ++stage)
    {
        EXPECT_EQ(s.LayerOf(stage, 0), std::vector<uint32_t>({0, 1, 4})[stage]);
        TrainingProgram p(s, stage);
        auto [compute, collectives] = CountOps(p);
        EXPECT_EQ(compute, s.compute.GetPicoSeconds()) << stage;
        EXPECT_EQ(collectives[JobComm::TENSOR], s.stageLayers[stage] * 2 * 2 * 4) << stage;
        EXPECT_EQ(collectives[JobComm::EXPERT], moe[stage] * 2 * 2 * 4) << stage;
    }
}

// Sequence parallelism turns each tensor all-reduce into an all-gather before the layer half
// and a reduce-scatter after it (on a ring the same bytes: 2(n-1)/n S = (n-1)/n S twice) and
// pipeline transfers into 1/tp of the activation; ZeRO-1 reduce-scatters the buckets and
// all-gathers the BF16 parameters after the optimizer, blocking.
TEST(TrainingProgram, SequenceParallelAndDistributedOptimizerChangeTheCollectives)
{
    TrainingProgramSpec s;
    s.compute = MicroSeconds(100);
    s.layers = 4;
    s.microBatches = 3;
    s.tp = 4;
    s.pp = 2;
    s.dp = 2;
    s.activationBytes = 1 << 20;
    s.gradientBytes = 10 << 20;
    s.bucketBytes = 4 << 20;
    s.sequenceParallel = true;
    s.distributedOptimizer = true;
    const auto tensor = TrainingProgram::Requests(s, JobComm::TENSOR);
    ASSERT_EQ(tensor.size(), 2u);
    EXPECT_EQ(tensor[0].op, ALL_GATHER);
    EXPECT_EQ(tensor[1].op, REDUCE_SCATTER);
    EXPECT_EQ(tensor[0].bytes, 1u << 20);
    EXPECT_EQ(TrainingProgram::Requests(s, JobComm::ACTIVATION_SEND).at(0).bytes, 256u << 10);
    const auto data = TrainingProgram::Requests(s, JobComm::DATA);
    ASSERT_EQ(data.size(), 3u); // 4 MiB and 2 MiB buckets, then the parameters
    EXPECT_EQ(data[0].op, REDUCE_SCATTER);
    EXPECT_EQ(data[1].op, REDUCE_SCATTER);
    EXPECT_EQ(data[2].op, ALL_GATHER);
    EXPECT_EQ(data[2].bytes, (10u << 20) / 4 * 2); // FP32 gradients, BF16 parameters
    for (uint32_t stage = 0; stage < 2; ++stage)
    {
        const TrainingProgram p(s, stage);
        std::map<std::pair<JobComm, uint32_t>, uint32_t> calls;
        for (const auto& op : p.GetOps())
        {
            calls[{op.comm, op.request}] += op.kind == JobOp::COLLECTIVE;
        }
        // 2 layers a stage, an all-gather and a reduce-scatter a half, each way, 3 micro-batches.
        EXPECT_EQ((calls[{JobComm::TENSOR, 0}]), 2u * 2 * 2 * 3);
        EXPECT_EQ((calls[{JobComm::TENSOR, 1}]), 2u * 2 * 2 * 3);
        EXPECT_EQ((calls[{JobComm::DATA, 0}]), 2u);
        EXPECT_EQ((calls[{JobComm::DATA, 1}]), 1u);
        EXPECT_EQ((calls[{JobComm::DATA, 2}]), 1u);
        const JobOp& last = p.GetOps().back();
        EXPECT_EQ(last.kind, JobOp::COLLECTIVE);
        EXPECT_EQ(last.request, 2u);
        EXPECT_TRUE(last.blocking);
        EXPECT_EQ(last.phase, JobOp::OPTIMIZER);
    }
    // Degrees that do not divide the buffers: each request padded to whole pieces per rank,
    // which reduce-scatter and all-gather need (25 MiB buckets over 3 replicas, 1 MiB over TP 3).
    s.tp = 3;
    s.dp = 3;
    s.bucketBytes = 25 << 20;
    s.gradientBytes = 60 << 20;
    for (const auto& r : TrainingProgram::Requests(s, JobComm::DATA))
    {
        EXPECT_EQ(r.bytes % (3 * r.elementBytes), 0u) << r.bytes;
    }
    for (const auto& r : TrainingProgram::Requests(s, JobComm::TENSOR))
    {
        EXPECT_EQ(r.bytes % 3, 0u) << r.bytes;
    }
}

// With expert parallelism the dense gradients (4001 elements a rank) reduce over the EP x DP
// = 4 replicas and the routed experts' (2001) over the DP = 2 replicas of the rank's experts,
// each in buckets of its own spread over the last backward by its own bytes (the dense
// bucket first at an equal point); ZeRO-1 pads each to its own replicas and gathers both.
TEST(TrainingProgram, ExpertParallelReducesDenseAndExpertGradientsOverTheirOwnReplicas)
{
    TrainingProgramSpec s;
    s.compute = MicroSeconds(300);
    s.layers = 2;
    s.moeLayers = 1;
    s.microBatches = 2;
    s.ep = 2;
    s.dp = 2;
    s.gradientBytes = (4001 + 2001) * 4;
    s.expertGradientBytes = 2001 * 4;
    s.bucketBytes = 6000;
    EXPECT_EQ(s.ReplicasOf(JobComm::DATA), 4u);
    EXPECT_EQ(s.ReplicasOf(JobComm::EXPERT_DATA), 2u);
    const auto bytes = [&s](JobComm comm) {
        std::vector<uint64_t> b;
        for (const auto& r : TrainingProgram::Requests(s, comm))
        {
            b.push_back(r.bytes);
        }
        return b;
    };
    EXPECT_EQ(bytes(JobComm::DATA), (std::vector<uint64_t>{6000, 4004}));
    EXPECT_EQ(bytes(JobComm::EXPERT_DATA), (std::vector<uint64_t>{6000, 2004}));
    // Ready at 6000/16004, 12000/16004 and all of the backward; at 6000/8004 and all.
    const TrainingProgram p(s, 0);
    std::vector<std::pair<JobComm, uint32_t>> reductions;
    for (const auto& op : p.GetOps())
    {
        if (op.kind == JobOp::COLLECTIVE && IsGradientComm(op.comm))
        {
            reductions.emplace_back(op.comm, op.request);
        }
    }
    const std::vector<std::pair<JobComm, uint32_t>> expected{
        {JobComm::DATA, 0}, {JobComm::EXPERT_DATA, 0}, {JobComm::DATA, 0},
        {JobComm::DATA, 1}, {JobComm::EXPERT_DATA, 1}};
    EXPECT_EQ(reductions, expected);
    EXPECT_EQ(CountOps(p).first, s.compute.GetPicoSeconds());

    s.distributedOptimizer = true;
    // Reduce-scatters padded to 4 x 4 and 2 x 4 bytes; BF16 parameters to 4 x 2 and 2 x 2.
    EXPECT_EQ(bytes(JobComm::DATA), (std::vector<uint64_t>{6000, 4016, 8008}));
    EXPECT_EQ(bytes(JobComm::EXPERT_DATA), (std::vector<uint64_t>{6000, 2008, 4004}));
    const TrainingProgram zero(s, 0);
    const auto& ops = zero.GetOps();
    ASSERT_GE(ops.size(), 2u);
    EXPECT_EQ(ops[ops.size() - 2].comm, JobComm::DATA);
    EXPECT_EQ(ops[ops.size() - 2].request, 2u);
    EXPECT_EQ(ops.back().comm, JobComm::EXPERT_DATA);
    EXPECT_EQ(ops.back().request, 2u);
    EXPECT_TRUE(ops.back().blocking);

    // Without EP the experts are replicated like the rest: one stream over the DP replicas,
    // the same program as with no experts' share at all.
    s.ep = 1;
    EXPECT_TRUE(TrainingProgram::Requests(s, JobComm::EXPERT_DATA).empty());
    EXPECT_EQ(bytes(JobComm::DATA), (std::vector<uint64_t>{6000, 8, 12004})); // 24008 B
    TrainingProgramSpec none = s;
    none.expertGradientBytes = 0;
    const auto opsOf = [](const TrainingProgramSpec& spec) {
        std::vector<std::tuple<JobOp::Kind, JobComm, uint32_t, int64_t>> ops;
        const TrainingProgram program(spec, 0); // named: GetOps refers into it
        for (const auto& op : program.GetOps())
        {
            ops.emplace_back(op.kind, op.comm, op.request, op.picoseconds);
        }
        return ops;
    };
    EXPECT_EQ(opsOf(s), opsOf(none));
}

// A job's gradient bytes per rank: the dense weights over TP x PP and the routed experts'
// over EP x TP x PP, each rounded up to whole elements; without EP, all of them over TP x PP.
TEST(TrainingJob, ExpertGradientBytesAreTheRanksShareOfTheExperts)
{
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    for (const auto& [name, value] : std::vector<std::pair<std::string, uint64_t>>{
             {"Ranks", 8}, {"TensorParallel", 2}, {"PipelineParallel", 2}, {"ExpertParallel", 2},
             {"Layers", 2}, {"MoeLayers", 1}, {"Parameters", 1000003},
             {"ExpertParameters", 500001}})
    {
        job->SetAttribute(name, UintegerValue(value));
    }
    job->Check();
    EXPECT_EQ(job->GetExpertGradientBytes(), 62501u * 4);           // 500001 / 8, rounded up
    EXPECT_EQ(job->GetGradientBytes(), 125001u * 4 + 62501u * 4); // 500002 / 4, rounded up
    job->SetAttribute("ExpertParallel", UintegerValue(1));
    job->Check(); // DP 2: a data group of 2 ranks, and no expert-data one
    EXPECT_EQ(job->GetLayout().dp, 2u);
    EXPECT_EQ(job->GetExpertGradientBytes(), 0u);
    EXPECT_EQ(job->GetGradientBytes(), 250001u * 4); // 1000003 / 4, rounded up
    EXPECT_TRUE(job->GetRequests(JobComm::EXPERT_DATA).empty());
}

namespace
{
/**
 * A MoE job of EP 2 x DP \p dp ranks on one switch, no activations (so no all-to-alls), 1 ms of compute,
 * one bucket per stream reduced after the backward: 16 Mi dense parameters (64 MiB of FP32
 * gradients) and \p expertParameters routed experts'.
 */
JobConfig
ExpertJob(uint32_t dp, uint64_t expertParameters)
{
    return {{{"Ranks", std::to_string(2 * dp)},
             {"ExpertParallel", "2"},
             {"Layers", "2"},
             {"MoeLayers", "1"},
             {"ComputeTime", "1ms"},
             {"Parameters", std::to_string((16ULL << 20) + expertParameters)},
             {"ExpertParameters", std::to_string(expertParameters)},
             {"BucketBytes", "1000000000"},
             {"OverlapGradientReduction", "false"},
             {"Iterations", "2"}}};
}

/** A ring all-reduce (Simple protocol, as the job's) of \p bytes over \p n ranks alone. */
double
AllReduceAlone(uint64_t bytes, uint32_t n)
{
    return RunOnStar("ring", ALL_REDUCE, bytes, n, {{"Protocol", "ns3::SimpleProtocol"}})
        .result.Duration()
        .GetSeconds();
}
} // namespace

// EP 2 x DP 1: the dense gradients still have two replicas, the EP ranks; the iteration is
// the compute and their all-reduce alone (the experts have one replica each: nothing).
TEST(TrainingJob, ExpertParallelAloneReducesTheDenseGradientsOverTheExpertRanks)
{
    const double alone = AllReduceAlone(64 << 20, 2);
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), ExpertJob(1, 32ULL << 20));
    for (const auto& it : o.iterations)
    {
        const double expected = 1e-3 + alone;
        EXPECT_NEAR(it.Duration().GetSeconds(), expected, 0.01 * expected);
        EXPECT_EQ(it.exposedBy[static_cast<std::size_t>(Exposure::DATA)], it.exposed);
    }
}

// EP 2 x DP 2: 64 MiB of dense gradients all-reduced over 4 ranks and 64 MiB of each rank's
// experts (32 Mi x 4 B / EP 2) over 2, at the same time through the same NICs.  Each NIC
// sends 2 (3/4) 64 + 2 (1/2) 64 MiB: the iteration takes at least that at line rate (the
// conservation bound) and at most the two all-reduces one after the other.
TEST(TrainingJob, ExpertAndDataParallelReduceBothStreamsThroughTheSameNics)
{
    const double dense = AllReduceAlone(64 << 20, 4);
    const double experts = AllReduceAlone(64 << 20, 2);
    const double wire = (1.5 + 1.0) * (64 << 20) * 8 / 400e9;
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), ExpertJob(2, 32ULL << 20));
    for (const auto& it : o.iterations)
    {
        const double d = it.Duration().GetSeconds() - 1e-3;
        EXPECT_GT(d, wire);
        EXPECT_LT(d, 1.01 * (dense + experts)) << dense << " + " << experts;
        EXPECT_GT(d, 0.97 * (dense + experts)) << dense << " + " << experts;
        EXPECT_EQ(it.exposedBy[static_cast<std::size_t>(Exposure::DATA)], it.exposed);
    }
}

TEST(TrainingJob, WithoutCommunicationAnIterationIsExactlyItsCompute)
{
    const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3),
                                {{{"Ranks", "8"},
                                  {"ComputeTime", "1234567891ps"},
                                  {"OptimizerTime", "10us"},
                                  {"Layers", "3"},
                                  {"MicroBatches", "4"},
                                  {"Iterations", "3"}}});
    ASSERT_EQ(o.iterations.size(), 3u);
    const Time expected = PicoSeconds(1234567891) + MicroSeconds(10);
    EXPECT_EQ(o.ideal, expected);
    for (const auto& it : o.iterations)
    {
        EXPECT_EQ(it.Duration(), expected) << "iteration " << it.iteration;
        EXPECT_EQ(it.compute, expected);
        EXPECT_EQ(it.exposed, Time(0));
        EXPECT_EQ(it.barrier, Time(0));
        EXPECT_EQ(it.communication, Time(0));
    }
    EXPECT_EQ(o.iterations[2].start, 2 * expected);
    EXPECT_DOUBLE_EQ(o.utilization, 1.0);
}

TEST(TrainingJob, FlopsTakeTheSustainedRate)
{
    // 7.945e11 FLOPs at the default 794.5 TFLOP/s: exactly 1 ms.
    const JobOutcome o = RunJob(Star(2, DataRate("400Gbps"), 3),
                                {{{"Ranks", "2"}, {"Flops", "7.945e11"}}});
    EXPECT_EQ(o.iterations.at(0).Duration(), MilliSeconds(1));
}

namespace
{
/** Data-parallel job on 8 hosts of one switch: 64 MiB of FP32 gradients, 1 ms compute. */
JobConfig
DataParallel(bool overlap, const std::string& bucketBytes)
{
    return {{{"Ranks", "8"},
             {"ComputeTime", "1ms"},
             {"Parameters", "16777216"},
             {"BucketBytes", bucketBytes},
             {"OverlapGradientReduction", overlap ? "true" : "false"},
             {"Iterations", "2"}}};
}
} // namespace

TEST(TrainingJob, DataParallelWithoutOverlapAddsTheAllReduceAlone)
{
    // The job's all-reduces run NCCL's Simple protocol (the algorithms' default): so does this.
    const Time alone =
        RunOnStar("ring", ALL_REDUCE, 64 << 20, 8, {{"Protocol", "ns3::SimpleProtocol"}}).result.Duration();
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), DataParallel(false, "67108864"));
    for (const auto& it : o.iterations)
    {
        const double expected = 1e-3 + alone.GetSeconds();
        EXPECT_NEAR(it.Duration().GetSeconds(), expected, 0.01 * expected)
            << "all-reduce alone " << alone.As(Time::US);
        EXPECT_EQ(it.compute, MilliSeconds(1));
        EXPECT_EQ(it.exposedBy[static_cast<std::size_t>(Exposure::DATA)], it.exposed);
    }
}

// ZeRO-1 without overlap: compute, then the gradients' reduce-scatter (64 MiB of FP32), then
// the parameters' all-gather (32 MiB of BF16), each as long as alone.
TEST(TrainingJob, DistributedOptimizerAddsTheReduceScatterAndTheAllGatherAlone)
{
    const auto alone = [](CollectiveOperation op, uint64_t bytes) {
        return RunOnStar("ring", op, bytes, 8, {{"Protocol", "ns3::SimpleProtocol"}})
            .result.Duration()
            .GetSeconds();
    };
    const double rs = alone(REDUCE_SCATTER, 64 << 20);
    const double ag = alone(ALL_GATHER, 32 << 20);
    JobConfig config = DataParallel(false, "67108864");
    config.attributes.emplace_back("DistributedOptimizer", "true");
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), config);
    for (const auto& it : o.iterations)
    {
        EXPECT_EQ(it.exposedBy[static_cast<std::size_t>(Exposure::DATA)], it.exposed);
        const double expected = 1e-3 + rs + ag;
        EXPECT_NEAR(it.Duration().GetSeconds(), expected, 0.01 * expected)
            << "reduce-scatter " << rs * 1e6 << " us, all-gather " << ag * 1e6 << " us";
    }
}

// FSDP: per stage and micro-batch, each layer's parameters gathered before its forward and
// its backward and its gradients reduce-scattered after its backward; each layer's compute
// waits for its own gather, and the next layer's gather is issued before it (prefetch).
TEST(TrainingProgram, FullyShardedGathersEachLayerBeforeItsComputeAndPrefetchesTheNext)
{
    TrainingProgramSpec s;
    s.compute = MicroSeconds(120);
    s.layers = 4;
    s.microBatches = 2;
    s.pp = 2;
    s.dp = 3;
    s.gradientBytes = 3000 * 4; // 3,000 FP32 gradients a rank: 1,500 parameters a layer
    s.fullySharded = true;
    const auto data = TrainingProgram::Requests(s, JobComm::DATA);
    ASSERT_EQ(data.size(), 2u);
    EXPECT_EQ(data[0].op, ALL_GATHER);
    EXPECT_EQ(data[0].bytes, 1500u * 2);
    EXPECT_EQ(data[1].op, REDUCE_SCATTER);
    EXPECT_EQ(data[1].bytes, 1500u * 4);
    s.gradientBytes = 3001 * 4; // 1,501 a layer: padded to whole elements per replica
    EXPECT_EQ(TrainingProgram::Requests(s, JobComm::DATA)[0].bytes, 1503u * 2);
    EXPECT_EQ(TrainingProgram::Requests(s, JobComm::DATA)[1].bytes, 1503u * 4);
    for (uint32_t stage = 0; stage < 2; ++stage)
    {
        const TrainingProgram p(s, stage);
        const auto& ops = p.GetOps();
        uint32_t gathers = 0;
        uint32_t reductions = 0;
        uint32_t waiting = 0;
        for (std::size_t i = 0; i < ops.size(); ++i)
        {
            const JobOp& op = ops[i];
            if (op.kind == JobOp::COLLECTIVE && op.comm == JobComm::DATA)
            {
                EXPECT_FALSE(op.blocking);
                (op.request == 0 ? gathers : reductions) += 1;
            }
            if (op.kind == JobOp::COMPUTE && !op.after.empty())
            {
                // A layer's first compute: it waits for a gather issued before it, and the
                // op just before it is the next layer's gather (but for the last layer).
                ++waiting;
                ASSERT_EQ(op.after.size(), 1u);
                const JobOp& gather = ops.at(op.after[0]);
                EXPECT_EQ(gather.request, 0u);
                EXPECT_EQ(gather.comm, JobComm::DATA);
                EXPECT_LT(op.after[0], i);
            }
        }
        // 2 layers a stage, 2 micro-batches: a gather each way, a reduce-scatter backward.
        EXPECT_EQ(gathers, 2u * 2 * 2) << "stage " << stage;
        EXPECT_EQ(reductions, 2u * 2) << "stage " << stage;
        EXPECT_EQ(waiting, 2u * 2 * 2) << "stage " << stage;
    }
}

namespace
{
/** A data-parallel job of 8 ranks, 4 layers of 2 Mi parameters, under FSDP. */
JobConfig
FullySharded(const std::string& compute, const std::string& microBatches)
{
    return {{{"Ranks", "8"},
             {"ComputeTime", compute},
             {"Layers", "4"},
             {"MicroBatches", microBatches},
             {"Parameters", "8388608"},
             {"FullySharded", "true"},
             {"Iterations", "2"}}};
}

/** A layer's gather (4 MiB of BF16) and reduce-scatter (8 MiB of FP32), each alone. */
std::pair<double, double>
FsdpCollectivesAlone()
{
    const auto alone = [](CollectiveOperation op, uint64_t bytes) {
        return RunOnStar("ring", op, bytes, 8, {{"Protocol", "ns3::SimpleProtocol"}})
            .result.Duration()
            .GetSeconds();
    };
    return {alone(ALL_GATHER, 4 << 20), alone(REDUCE_SCATTER, 8 << 20)};
}
} // namespace

// Without compute, an FSDP iteration is its collectives one after another on the data-parallel
// communicator: 2 gathers and a reduce-scatter per layer, each as long as alone.
TEST(TrainingJob, FullyShardedWithoutComputeIsItsGathersAndReduceScattersInTurn)
{
    const auto [ag, rs] = FsdpCollectivesAlone();
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), FullySharded("0s", "1"));
    ASSERT_EQ(o.iterations.size(), 2u);
    for (const auto& it : o.iterations)
    {
        const double expected = 4 * (2 * ag + rs);
        EXPECT_NEAR(it.Duration().GetSeconds(), expected, 0.01 * expected)
            << "gather " << ag * 1e6 << " us, reduce-scatter " << rs * 1e6 << " us";
        EXPECT_EQ(it.exposedBy[static_cast<std::size_t>(Exposure::DATA)], it.exposed);
    }
}

// With compute to hide them, only what prefetching cannot hide is exposed, per micro-batch: the
// first layer's gather before the forward, the last layer's before the backward, and the
// reduce-scatter after the last backward compute.
TEST(TrainingJob, FullyShardedHidesAllButTheFirstGathersAndTheLastReduceScatter)
{
    const auto [ag, rs] = FsdpCollectivesAlone();
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), FullySharded("20ms", "2"));
    ASSERT_EQ(o.iterations.size(), 2u);
    for (const auto& it : o.iterations)
    {
        const double expected = 20e-3 + 2 * (2 * ag + rs);
        EXPECT_NEAR(it.Duration().GetSeconds(), expected, 0.01 * (expected - 20e-3))
            << "gather " << ag * 1e6 << " us, reduce-scatter " << rs * 1e6 << " us";
    }
}

TEST(TrainingJob, OverlappedBucketsLieBetweenTheMaximumAndTheSum)
{
    const double comm = RunOnStar("ring", ALL_REDUCE, 64 << 20, 8, {{"Protocol", "ns3::SimpleProtocol"}})
                            .result.Duration()
                            .GetSeconds();
    const double compute = 1e-3;
    const JobOutcome overlapped = RunJob(Star(16, DataRate("400Gbps"), 3), DataParallel(true, "26214400"));
    const JobOutcome serial = RunJob(Star(16, DataRate("400Gbps"), 3), DataParallel(false, "26214400"));
    for (uint32_t i = 0; i < 2; ++i)
    {
        const double t = overlapped.iterations[i].Duration().GetSeconds();
        EXPECT_GE(t, std::max(compute, comm));
        EXPECT_LE(t, compute + comm);
        EXPECT_LT(t, serial.iterations[i].Duration().GetSeconds());
        // The exposed part is what the overlap did not hide.
        EXPECT_NEAR(overlapped.iterations[i].exposed.GetSeconds(), t - compute, 1e-12);
    }
}

TEST(TrainingJob, TheSlowestRankSetsTheIterationAndTheOthersWaitTheDifference)
{
    JobConfig c{{{"Ranks", "8"}, {"ComputeTime", "2ms"}, {"Iterations", "2"}}};
    c.serverSlowdown[5] = 1.5; // Star: host i is server i
    const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3), c);
    for (const auto& it : o.iterations)
    {
        EXPECT_EQ(it.Duration(), MilliSeconds(3));
        EXPECT_EQ(it.lastRank, 5u);
        EXPECT_EQ(it.maxBarrier, MilliSeconds(1));
    }
    for (const auto& r : o.ranks)
    {
        EXPECT_EQ(r.barrier, r.rank == 5 ? Time(0) : MilliSeconds(1)) << "rank " << r.rank;
        EXPECT_EQ(r.compute, r.rank == 5 ? MilliSeconds(3) : MilliSeconds(2));
    }
    EXPECT_NEAR(o.utilization, 2.0 / 3.0, 1e-12);
}

// The barrier's notices take BarrierLatency: each iteration ends that long after the slowest
// rank's finish, every rank's barrier time grows by it, and the next iteration starts then.
TEST(TrainingJob, TheBarrierReleasesTheRanksBarrierLatencyAfterTheSlowestFinishes)
{
    JobConfig c{{{"Ranks", "8"},
                 {"ComputeTime", "2ms"},
                 {"Iterations", "3"},
                 {"BarrierLatency", "7us"}}};
    c.serverSlowdown[5] = 1.5;
    const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3), c);
    ASSERT_EQ(o.iterations.size(), 3u);
    const Time latency = MicroSeconds(7);
    for (const auto& it : o.iterations)
    {
        EXPECT_EQ(it.start, it.iteration * (MilliSeconds(3) + latency));
        EXPECT_EQ(it.Duration(), MilliSeconds(3) + latency);
        EXPECT_EQ(it.lastRank, 5u);
        EXPECT_EQ(it.maxBarrier, MilliSeconds(1) + latency);
        EXPECT_EQ(it.compute + it.exposed + it.barrier, it.Duration());
    }
    for (const auto& r : o.ranks)
    {
        EXPECT_EQ(r.barrier, (r.rank == 5 ? Time(0) : MilliSeconds(1)) + latency) << "rank " << r.rank;
        EXPECT_EQ(r.compute, r.rank == 5 ? MilliSeconds(3) : MilliSeconds(2));
    }
}

TEST(TrainingJob, StragglersDrawnFromTheRandomVariableSlowTheJob)
{
    JobConfig c{{{"Ranks", "16"},
                 {"ComputeTime", "1ms"},
                 {"Slowdown", "ns3::StragglerRandomVariable[Fraction=0.25|Factor=1.2]"}}};
    const JobOutcome o = RunJob(Star(16, DataRate("400Gbps"), 3), c);
    const auto slow = std::count(o.slowdowns.begin(), o.slowdowns.end(), 1.2);
    EXPECT_EQ(slow + std::count(o.slowdowns.begin(), o.slowdowns.end(), 1.0), 16);
    ASSERT_GT(slow, 0) << "seeded draw: some of 16 GPUs should straggle at 25%";
    EXPECT_LT(slow, 16);
    EXPECT_EQ(o.iterations[0].Duration(), MicroSeconds(1200));
    // The same seed draws the same stragglers.
    EXPECT_EQ(RunJob(Star(16, DataRate("400Gbps"), 3), c).slowdowns, o.slowdowns);
}

TEST(TrainingJob, PipelineBubbleMatchesOneFOneB)
{
    for (const auto& [p, m] : std::vector<std::pair<uint32_t, uint32_t>>{{2, 4}, {4, 8}, {4, 4}, {8, 3}})
    {
        const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3),
                                    {{{"Ranks", std::to_string(p)},
                                      {"PipelineParallel", std::to_string(p)},
                                      {"Layers", std::to_string(2 * p)},
                                      {"MicroBatches", std::to_string(m)},
                                      {"ComputeTime", "24ms"}}});
        const double bubble = 1 - o.utilization;
        EXPECT_NEAR(bubble, double(p - 1) / (m + p - 1), 1e-9) << "p=" << p << " m=" << m;
        // With free transfers every exposed moment is the other stage's: the bubble.
        for (const auto& r : o.ranks)
        {
            EXPECT_EQ(r.exposedBy[static_cast<std::size_t>(Exposure::PIPELINE)], r.exposed);
        }
    }
}

// Interleaved 1F1B (Narayanan et al., SC'21, section 2.2.2): with v chunks per stage, equal
// stages and free transfers, the bubble is (p - 1) / v of a micro-batch's forward and
// backward, so utilization is v m / (v m + p - 1).
TEST(TrainingJob, InterleavedPipelineBubbleIsDividedByTheVirtualStages)
{
    for (const auto& [p, m, v] : std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{
             {2, 4, 2}, {4, 8, 2}, {4, 4, 3}, {8, 16, 4}})
    {
        const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3),
                                    {{{"Ranks", std::to_string(p)},
                                      {"PipelineParallel", std::to_string(p)},
                                      {"VirtualStages", std::to_string(v)},
                                      {"Layers", std::to_string(2 * p * v)},
                                      {"MicroBatches", std::to_string(m)},
                                      {"ComputeTime", "24ms"}}});
        EXPECT_NEAR(o.utilization, double(v * m) / (v * m + p - 1), 1e-9)
            << "p=" << p << " m=" << m << " v=" << v;
    }
}

// Each stage of an interleaved pipeline runs v chunks of every micro-batch: it receives an
// activation for each chunk but the first stage's first, sends one for each but the last
// stage's last, runs its own layers' tensor collectives and its MoE layers' all-to-alls (layers
// 3, 7 and 11, all in stage 1's chunks), each chunk's gradient buckets, its compute exact.
TEST(TrainingProgram, InterleavedStagesRunEveryChunk)
{
    TrainingProgramSpec s;
    s.compute = PicoSeconds(900000007);
    s.layers = 12;
    s.virtualStages = 3;
    s.microBatches = 4;
    s.tp = 2;
    s.pp = 2;
    s.ep = 2;
    s.dp = 2;
    s.moeLayers = 3;
    s.activationBytes = 1 << 20;
    s.gradientBytes = 12 << 20; // 4 MiB a chunk
    s.bucketBytes = 3 << 20;    // 3 + 1 MiB a chunk
    EXPECT_EQ(s.LayerOf(0, 0), 0u);
    EXPECT_EQ(s.LayerOf(0, 2), 4u); // chunk 1 of stage 0: the model's 3rd chunk of 2 layers
    EXPECT_EQ(s.LayerOf(1, 5), 11u);
    for (uint32_t stage = 0; stage < 2; ++stage)
    {
        TrainingProgram p(s, stage);
        auto [compute, collectives] = CountOps(p);
        EXPECT_EQ(compute, s.compute.GetPicoSeconds()) << stage;
        EXPECT_EQ(collectives[JobComm::TENSOR], 6u * 2 * 2 * 4) << stage;
        EXPECT_EQ(collectives[JobComm::ACTIVATION_RECV], stage == 0 ? 8u : 12u);
        EXPECT_EQ(collectives[JobComm::ACTIVATION_SEND], stage == 1 ? 8u : 12u);
        EXPECT_EQ(collectives[JobComm::GRADIENT_RECV], stage == 1 ? 8u : 12u);
        EXPECT_EQ(collectives[JobComm::GRADIENT_SEND], stage == 0 ? 8u : 12u);
        EXPECT_EQ(collectives[JobComm::EXPERT], stage == 0 ? 0u : 3u * 2 * 2 * 4) << stage;
        EXPECT_EQ(collectives[JobComm::DATA], 3u * 2) << stage;
    }
    const auto buckets = TrainingProgram::Requests(s, JobComm::DATA);
    ASSERT_EQ(buckets.size(), 2u);
    EXPECT_EQ(buckets[0].bytes, 3u << 20);
    EXPECT_EQ(buckets[1].bytes, 1u << 20);
}

// Full recomputation reruns each layer's forward before its backward, its tensor all-reduces
// and expert all-to-alls included: a third pass of each, and the forward's compute once more.
TEST(TrainingProgram, FullRecomputationRerunsEachLayersForward)
{
    TrainingProgramSpec s;
    s.compute = PicoSeconds(1000000007);
    s.layers = 6;
    s.microBatches = 5;
    s.tp = 2;
    s.pp = 3;
    s.ep = 2;
    s.moeLayers = 3;
    s.activationBytes = 1 << 20;
    s.recompute = RECOMPUTE_FULL;
    const int64_t forward = std::llround(s.compute.GetPicoSeconds() / 3.0);
    for (uint32_t stage = 0; stage < 3; ++stage)
    {
        TrainingProgram p(s, stage);
        auto [compute, collectives] = CountOps(p);
        EXPECT_EQ(compute, s.compute.GetPicoSeconds() + forward) << stage;
        EXPECT_EQ(collectives[JobComm::TENSOR], 2u * 2 * 3 * 5) << stage;
        EXPECT_EQ(collectives[JobComm::EXPERT], 1u * 2 * 3 * 5) << stage;
    }
}

// Full recomputation with sequence parallelism and FSDP: the rerun repeats each half's
// all-gather and reduce-scatter (three passes of each), and its first op waits for the
// layer's parameter gather, as the backward did without it.
TEST(TrainingProgram, FullRecomputationWithSequenceParallelWaitsForTheLayersGather)
{
    TrainingProgramSpec s;
    s.compute = PicoSeconds(600000000);
    s.layers = 2;
    s.microBatches = 2;
    s.tp = 2;
    s.dp = 2;
    s.sequenceParallel = true;
    s.fullySharded = true;
    s.activationBytes = 1 << 20;
    s.gradientBytes = 8 << 20;
    s.recompute = RECOMPUTE_FULL;
    TrainingProgram p(s, 0);
    const auto& ops = p.GetOps();
    uint32_t tensor = 0;
    uint32_t waits = 0;
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        tensor += ops[i].kind == JobOp::COLLECTIVE && ops[i].comm == JobComm::TENSOR;
        if (ops[i].phase == JobOp::BACKWARD && !ops[i].after.empty())
        {
            ++waits;
            ASSERT_EQ(ops[i].after.size(), 1u);
            const JobOp& gather = ops[ops[i].after[0]];
            EXPECT_EQ(gather.comm, JobComm::DATA);
            EXPECT_EQ(gather.request, 0u); // the parameter all-gather
            // The rerun's first op: the attention half's all-gather.
            EXPECT_EQ(ops[i].comm, JobComm::TENSOR) << i;
            EXPECT_EQ(ops[i].request, 0u) << i;
        }
    }
    EXPECT_EQ(tensor, 2u * 4 * 3 * 2); // layers x (AG + RS) x 2 halves x 3 passes x m
    EXPECT_EQ(waits, 2u * 2);           // every layer's backward, every micro-batch
}

// Without communication a job with full recomputation computes its forward twice: 24 ms of
// forward and backward (8 + 16) take 32 ms, all of it ideal compute.
TEST(TrainingJob, FullRecomputationAddsTheForwardToTheIteration)
{
    const JobOutcome o = RunJob(Star(2, DataRate("400Gbps"), 3),
                                {{{"Ranks", "1"}, {"ComputeTime", "24ms"}, {"Layers", "4"},
                                  {"MicroBatches", "3"}, {"Recompute", "full"}}});
    ASSERT_FALSE(o.iterations.empty());
    EXPECT_EQ(o.iterations.front().Duration(), MilliSeconds(32));
    EXPECT_EQ(o.ideal, MilliSeconds(32));
}

// Megatron-LM's interleaved order on stage 0 of 2, 2 chunks, 4 micro-batches (micro-batch,
// chunk): F00 F10 F01 F11 F20 B01 F30 B11 F21 B00 F31 B10 B21 B31 B20 B30.
TEST(TrainingProgram, InterleavedPassesRunInMegatronsOrder)
{
    TrainingProgramSpec s;
    s.compute = PicoSeconds(800000000);
    s.layers = 4;
    s.virtualStages = 2;
    s.microBatches = 4;
    s.pp = 2;
    TrainingProgram p(s, 0);
    // A chunk is one layer: each pass is two compute ops, its halves.
    std::vector<std::string> halves;
    for (const auto& op : p.GetOps())
    {
        if (op.kind == JobOp::COMPUTE)
        {
            halves.push_back((op.phase == JobOp::FORWARD ? "F" : "B") +
                             std::to_string(op.microBatch));
        }
    }
    ASSERT_EQ(halves.size(), 32u);
    std::string order;
    for (std::size_t i = 0; i < halves.size(); i += 2)
    {
        EXPECT_EQ(halves[i], halves[i + 1]) << i;
        order += halves[i] + " ";
    }
    EXPECT_EQ(order, "F0 F1 F0 F1 F2 B0 F3 B1 F2 B0 F3 B1 B2 B3 B2 B3 ");
}

// Over packets the transfers between chunks go from the last stage back to the first: the job
// finishes, v times the transfers of one chunk per stage.
TEST(TrainingJob, InterleavedPipelineOverPacketsFinishes)
{
    std::vector<double> iteration;
    for (uint32_t v : {1u, 2u})
    {
        const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3),
                                    {{{"Ranks", "4"},
                                      {"PipelineParallel", "4"},
                                      {"VirtualStages", std::to_string(v)},
                                      {"Layers", "8"},
                                      {"MicroBatches", "8"},
                                      {"ActivationBytes", "1048576"},
                                      {"ComputeTime", "4ms"}}});
        ASSERT_FALSE(o.iterations.empty());
        iteration.push_back(o.iterations.front().Duration().GetSeconds());
        // Transfers only add to the bubble of free transfers: 4 ms over 8 v / (8 v + 3).
        EXPECT_GT(iteration.back(), 4e-3 * (8 * v + 3) / (8 * v)) << v;
    }
    EXPECT_LT(iteration[1], iteration[0]);
}

TEST(TrainingJob, PipelineOverPacketsAddsTheTransfers)
{
    // With real activation transfers the bubble only grows, and the job finishes.
    const JobOutcome o = RunJob(Star(8, DataRate("400Gbps"), 3),
                                {{{"Ranks", "4"},
                                  {"PipelineParallel", "4"},
                                  {"Layers", "4"},
                                  {"MicroBatches", "8"},
                                  {"ActivationBytes", "1048576"},
                                  {"ComputeTime", "8ms"}}});
    EXPECT_LT(o.utilization, 8.0 / 11.0);
    EXPECT_GT(o.utilization, 0.6);
    // No data parallelism: nothing is exposed as data, the last gradient sends included.
    for (const auto& r : o.ranks)
    {
        EXPECT_EQ(r.exposedBy[static_cast<std::size_t>(Exposure::DATA)], Time(0)) << r.rank;
        EXPECT_EQ(r.exposedBy[static_cast<std::size_t>(Exposure::PIPELINE)], r.exposed) << r.rank;
    }
}

TEST(TrainingJob, ThreeDimensionalParallelismWithExpertsRunsToTheEnd)
{
    RailOptimizedTopologyHelper rail(2, 8);
    JobConfig c{{{"Ranks", "16"},
                 {"TensorParallel", "2"},
                 {"ExpertParallel", "2"},
                 {"PipelineParallel", "2"},
                 {"Layers", "4"},
                 {"MoeLayers", "2"},
                 {"MicroBatches", "2"},
                 {"ActivationBytes", "65536"},
                 {"Parameters", "1000000"},
                 {"ComputeTime", "200us"},
                 {"Iterations", "2"}}};
    c.dataAlgorithm = "auto";
    const JobOutcome o = RunJob(rail.Build(), c);
    ASSERT_EQ(o.iterations.size(), 2u);
    for (const auto& r : o.ranks)
    {
        EXPECT_EQ(r.compute, MicroSeconds(200));
        EXPECT_EQ(r.compute + r.exposed + r.barrier,
                  o.iterations[r.iteration].Duration());
        EXPECT_GT(r.communication, Time(0));
        // The exposed time, by what was waited on, to the picosecond; each axis waited on.
        Time parts;
        for (const Time& t : r.exposedBy)
        {
            parts += t;
            EXPECT_GT(t, Time(0)) << "rank " << r.rank;
        }
        EXPECT_EQ(parts, r.exposed);
    }
    // Packed: each tensor-parallel pair shares a server.
    for (uint32_t r = 0; r < 16; r += 2)
    {
        EXPECT_EQ(o.hosts[r] / 8, o.hosts[r + 1] / 8);
    }
}

TEST(TrainingJob, UtilizationFallsWithScaleOnAnOversubscribedFabric)
{
    // 2:1 leaf-spine, 4 hosts per leaf; fixed work per GPU, growing data-parallel ranks.
    double last = 1.1;
    for (uint32_t ranks : {4u, 8u, 16u})
    {
        LeafSpineTopologyHelper leafSpine(4, 4, 2);
        leafSpine.SetCluster(ClusterHelper(16, 1));
        JobConfig c{{{"Ranks", std::to_string(ranks)},
                     {"ComputeTime", "300us"},
                     {"Parameters", "1048576"}}};
        c.dataAlgorithm = "ring";
        const double u = RunJob(leafSpine.Build(), c).utilization;
        EXPECT_LT(u, last) << ranks << " ranks";
        last = u;
    }
}

TEST(TrainingJob, JobsSharingALinkSlowEachOtherAndDisjointJobsDoNot)
{
    const FabricTopology topo = TwoLeaves(4, DataRate("100Gbps"));
    auto job = [](const std::vector<uint32_t>& hosts) {
        JobConfig c{{{"Ranks", "2"}, {"ComputeTime", "100us"}, {"Parameters", "2097152"}}};
        c.placement = Map(hosts);
        return c;
    };
    // Across the leaves: both jobs' rings cross the leaf-spine links.
    const Time aloneAcross = RunJob(topo, job({0, 4})).iterations[0].Duration();
    const auto sharing = RunJobs(topo, {job({0, 4}), job({1, 5})});
    for (const auto& o : sharing)
    {
        EXPECT_GT(o.iterations[0].Duration().GetSeconds(), 1.3 * aloneAcross.GetSeconds());
    }
    // Each on its own leaf: nothing in common.
    const Time aloneA = RunJob(topo, job({0, 1})).iterations[0].Duration();
    const Time aloneB = RunJob(topo, job({4, 5})).iterations[0].Duration();
    const auto disjoint = RunJobs(topo, {job({0, 1}), job({4, 5})});
    EXPECT_EQ(disjoint[0].iterations[0].Duration(), aloneA);
    EXPECT_EQ(disjoint[1].iterations[0].Duration(), aloneB);
}

TEST(TrainingJob, SameSeedSameResults)
{
    FatTreeTopologyHelper fatTree(4);
    fatTree.SetCluster(ClusterHelper(16, 1));
    JobConfig c{{{"Ranks", "12"},
                 {"ComputeTime", "100us"},
                 {"Parameters", "3000000"},
                 {"Iterations", "2"},
                 {"Slowdown", "ns3::UniformRandomVariable[Min=1.0|Max=1.1]"}}};
    c.placement = CreateObject<ScatteredPlacement>();
    c.dataAlgorithm = "auto";
    const JobOutcome a = RunJob(fatTree.Build(), c);
    const JobOutcome b = RunJob(fatTree.Build(), c);
    EXPECT_EQ(a.hosts, b.hosts);
    EXPECT_EQ(a.slowdowns, b.slowdowns);
    ASSERT_EQ(a.ranks.size(), b.ranks.size());
    for (std::size_t i = 0; i < a.ranks.size(); ++i)
    {
        EXPECT_EQ(a.ranks[i].finish, b.ranks[i].finish);
        EXPECT_EQ(a.ranks[i].communication, b.ranks[i].communication);
    }
}

TEST(JobPlacement, PackedScatteredAndMapped)
{
    FatTreeTopologyHelper fatTree(4);
    fatTree.SetCluster(ClusterHelper(8, 2));
    const FabricTopology topo = fatTree.Build();
    std::vector<bool> taken(16, false);
    taken[0] = taken[3] = true;
    auto rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(7);
    EXPECT_EQ(CreateObject<PackedPlacement>()->Place(topo, 4, taken, rng),
              (std::vector<uint32_t>{1, 2, 4, 5}));
    const auto scattered = CreateObject<ScatteredPlacement>()->Place(topo, 14, taken, rng);
    EXPECT_EQ(std::set<uint32_t>(scattered.begin(), scattered.end()).size(), 14u);
    EXPECT_EQ(std::count(scattered.begin(), scattered.end(), 0), 0);
    EXPECT_EQ(std::count(scattered.begin(), scattered.end(), 3), 0);
    EXPECT_NE(scattered, CreateObject<PackedPlacement>()->Place(topo, 14, taken, rng));
    const auto mapped = MapPlacement::FromText("# rank gpu\n1 s2g1\n0, 7 # by id\n", "m")->Place(topo, 2, taken, rng);
    EXPECT_EQ(mapped[0], 7u);
    EXPECT_EQ(topo.GetNode(topo.HostNode(mapped[1])).name, "s2g1");
}

TEST(JobPlacement, BadInputSaysWhat)
{
    FatTreeTopologyHelper fatTree(4);
    fatTree.SetCluster(ClusterHelper(16, 1));
    const FabricTopology topo = fatTree.Build();
    const std::vector<bool> none(16, false);
    auto rng = CreateObject<UniformRandomVariable>();
    auto expectThrow = [&](const std::function<void()>& f, const std::string& needle) {
        try
        {
            f();
            ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectThrow([&] { CreateObject<PackedPlacement>()->Place(topo, 17, none, rng); }, "needs 17 GPUs");
    expectThrow([&] { MapPlacement::FromText("0 s0g0\nx y\n", "m"); }, "m line 2");
    expectThrow([&] { MapPlacement::FromText("0 s0g0 extra\n", "m"); }, "line 1");
    expectThrow([&] { MapPlacement::FromText("0 s0g0\n", "m")->Place(topo, 2, none, rng); },
                "rank 1 has no GPU");
    expectThrow([&] { MapPlacement::FromText("0 s0g0\n1 s99g0\n", "m")->Place(topo, 2, none, rng); },
                "'s99g0' is not in the topology");
    expectThrow([&] { MapPlacement::FromText("0 s0g0\n1 s0g0\n", "m")->Place(topo, 2, none, rng); },
                "already runs a rank");
    expectThrow([&] { MapPlacement::FromText("0 s0g0\n0 s1g0\n", "m")->Place(topo, 2, none, rng); },
                "mapped twice");
    expectThrow([&] { MapPlacement::FromText("5 s0g0\n", "m")->Place(topo, 2, none, rng); },
                "out of range");
    expectThrow([] { MapPlacement::FromText("", "m")->SetAttribute("File", StringValue("/nonexistent/map.txt")); },
                "cannot be read");
}

TEST(TrainingJob, InconsistentDescriptionsSayWhich)
{
    auto check = [](const Attributes& attributes, const std::string& needle) {
        Ptr<TrainingJob> job = CreateObject<TrainingJob>();
        for (const auto& [name, value] : attributes)
        {
            job->SetAttribute(name, StringValue(value));
        }
        try
        {
            job->Check();
            ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    check({}, "Ranks must be given");
    check({{"Ranks", "8"}, {"TensorParallel", "3"}}, "not a multiple");
    check({{"Ranks", "8"}, {"TensorParallel", "2"}, {"DataParallel", "2"}}, "= 4 but Ranks = 8");
    check({{"Ranks", "4"}, {"PipelineParallel", "4"}, {"Layers", "6"}}, "Layers (6)");
    check({{"Ranks", "4"}, {"PipelineParallel", "4"}, {"Layers", "6"}, {"FirstStageLayers", "1"}},
          "FirstStageLayers and LastStageLayers need a Model");
    check({{"Ranks", "4"}, {"VirtualStages", "2"}}, "VirtualStages (2) needs PipelineParallel > 1");
    check({{"Ranks", "4"}, {"Recompute", "selective"}}, "Recompute = selective");
    check({{"Ranks", "4"}, {"Precision", "fp8"}}, "Precision = fp8 runs a Model's matrix products");
    check({{"Ranks", "4"}, {"PipelineParallel", "4"}, {"VirtualStages", "2"}, {"Layers", "12"}},
          "Layers (12) must be a multiple of PipelineParallel x VirtualStages (2) = 8");
    check({{"Ranks", "4"}, {"PipelineParallel", "4"}, {"VirtualStages", "2"}, {"Layers", "8"},
           {"MicroBatches", "6"}},
          "MicroBatches (6) must be a multiple of PipelineParallel (4)");
    check({{"Ranks", "8"}, {"PipelineParallel", "4"}, {"VirtualStages", "2"}, {"Layers", "8"},
           {"MicroBatches", "4"}, {"FullySharded", "true"}},
          "with FullySharded is not modelled");
    check({{"Ranks", "4"}, {"ExpertParallel", "2"}}, "needs MoeLayers");
    check({{"Ranks", "4"}, {"Layers", "4"}, {"MoeLayers", "3"}}, "MoeLayers (3)");
    check({{"Ranks", "4"}, {"ComputeTime", "1ms"}, {"Flops", "1e12"}}, "not both");
    check({{"Ranks", "4"}, {"Name", ""}}, "Name");
}

TEST(TrainingJob, TooManyRanksForTheFabricIsRefusedAtInstall)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(Star(4, DataRate("100Gbps"), 3));
    RdmaHelper rdma;
    rdma.Install(net);
    TrainingJobHelper helper;
    helper.SetJobAttribute("Ranks", UintegerValue(3));
    helper.Install(net, rdma, 1);
    // The first job holds 3 of the 4 GPUs.
    EXPECT_THROW(helper.Install(net, rdma, 3), std::invalid_argument);
    Simulator::Destroy();
}

// A Llama 3 8B job (the model's defaults) over TP 2 x PP 2: each stage gets its 16 layers'
// attention and MLP halves, each at its FLOPs over TP at the sustained rate, the output
// layer's on the last stage; the ideal compute is that slowest stage's forward and backward
// (twice the forward) of every micro-batch; activations are b s h BF16 elements and each rank
// reduces the gradients of its quarter of the weights.
TEST(TrainingJob, ModelGivesEachStageItsLayersCompute)
{
    Ptr<TransformerModel> model = CreateObject<TransformerModel>();
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Ranks", UintegerValue(4));
    job->SetAttribute("TensorParallel", UintegerValue(2));
    job->SetAttribute("PipelineParallel", UintegerValue(2));
    job->SetAttribute("MicroBatches", UintegerValue(4));
    job->SetAttribute("MicroBatchSize", UintegerValue(2));
    job->SetAttribute("Model", PointerValue(model));
    job->Check();
    Ptr<Accelerator> gpu = CreateObject<Accelerator>();
    job->SetRank(0, 0, 0, gpu);
    const TrainingProgramSpec s = job->GetProgramSpec();
    ASSERT_EQ(s.stageHalves.size(), 2u);
    const auto ps = [&](double flops) { return gpu->ComputeTime(flops / 2).GetPicoSeconds(); };
    for (const auto& halves : s.stageHalves)
    {
        ASSERT_EQ(halves.size(), 32u);
        EXPECT_EQ(halves[0], ps(model->GetAttentionFlops(2)));
        EXPECT_EQ(halves[1], ps(model->GetMlpFlops(0, 2)));
    }
    EXPECT_EQ(s.stageHalves[1].back(),
              ps(model->GetMlpFlops(31, 2) + model->GetLogitFlops(2)));
    int64_t last = 0;
    for (int64_t f : s.stageHalves[1])
    {
        last += 3 * f;
    }
    EXPECT_EQ(job->GetIdealComputeTime(), PicoSeconds(4 * last));
    EXPECT_EQ(s.layers, 32u);
    EXPECT_EQ(s.activationBytes, 2u * 8192 * 4096 * 2);
    EXPECT_EQ(job->GetGradientBytes(), (8030261248u + 3) / 4 * 4);
    EXPECT_EQ(job->GetSamplesPerIteration(), 2.0 * 4 * 1);
    EXPECT_EQ(job->GetTokensPerSample(), 8192.0);
}

// A small model over PP 2 run as packets: each stage's ranks compute exactly their layers'
// halves (the output layer's on the last stage), forward and backward of every micro-batch,
// with the layers split evenly (2 + 2) or as FirstStageLayers (1 + 3) or LastStageLayers
// (3 + 1) say.
TEST(TrainingJob, ModelStagesComputeTheirOwnLayers)
{
    for (const auto& [attribute, firstStage] : std::vector<std::pair<std::string, uint32_t>>{
             {"", 2}, {"FirstStageLayers", 1}, {"LastStageLayers", 3}})
    {
        Ptr<TransformerModel> model = CreateObject<TransformerModel>();
        Ptr<TrainingJob> job = RunSmallModelOverTwoStages(
            model, 128, attribute.empty() ? Attributes{} : Attributes{{attribute, "1"}});
        ASSERT_TRUE(job->IsFinished()) << attribute;
        Ptr<Accelerator> gpu = CreateObject<Accelerator>();
        const auto ps = [&](double flops) { return gpu->ComputeTime(flops).GetPicoSeconds(); };
        const auto pass = [&](int64_t forward) { return forward + 2 * forward; };
        int64_t first = 0;
        int64_t last = 0;
        for (uint32_t l = 0; l < 4; ++l)
        {
            const int64_t layer = pass(ps(model->GetAttentionFlops(1))) +
                                  pass(ps(model->GetMlpFlops(l, 1) +
                                          (l == 3 ? model->GetLogitFlops(1) : 0)));
            (l < firstStage ? first : last) += layer;
        }
        const auto& ranks = job->GetRankIterations();
        ASSERT_EQ(ranks.size(), 2u);
        EXPECT_EQ(ranks[0].compute, PicoSeconds(3 * first)) << attribute;
        EXPECT_EQ(ranks[1].compute, PicoSeconds(3 * last)) << attribute;
        EXPECT_EQ(job->GetIdealComputeTime(), PicoSeconds(3 * std::max(first, last))) << attribute;
        Simulator::Destroy();
    }
}

// A small model over PP 2 as packets with recomputation: selective adds each layer's core
// attention (4 b s^2 h) to its attention half's backward, full its whole forward but the
// output layer's; each stage's compute is exactly that, the MFU's model FLOPs unchanged.
TEST(TrainingJob, ModelRecomputationAddsTheCoreAttentionOrTheForward)
{
    double mfu[3] = {};
    for (const char* mode : {"none", "selective", "full"})
    {
        Ptr<TransformerModel> model = CreateObject<TransformerModel>();
        Ptr<TrainingJob> job =
            RunSmallModelOverTwoStages(model, 512, Attributes{{"Recompute", mode}});
        ASSERT_TRUE(job->IsFinished()) << mode;
        Ptr<Accelerator> gpu = CreateObject<Accelerator>();
        const auto ps = [&](double flops) { return gpu->ComputeTime(flops).GetPicoSeconds(); };
        const auto pass = [&](int64_t forward) { return forward + 2 * forward; };
        const std::string m(mode);
        int64_t stage[2] = {0, 0};
        for (uint32_t l = 0; l < 4; ++l)
        {
            const double attention = model->GetAttentionFlops(1);
            const double mlp = model->GetMlpFlops(l, 1);
            const double logits = l == 3 ? model->GetLogitFlops(1) : 0;
            int64_t layer = pass(ps(attention)) + pass(ps(mlp + logits));
            if (m == "selective")
            {
                EXPECT_DOUBLE_EQ(model->GetCoreAttentionFlops(1), 4.0 * 512 * 512 * 256);
                layer += ps(model->GetCoreAttentionFlops(1));
            }
            if (m == "full")
            {
                layer += ps(attention) + ps(mlp);
            }
            stage[l / 2] += layer;
        }
        const auto& ranks = job->GetRankIterations();
        ASSERT_EQ(ranks.size(), 2u);
        EXPECT_EQ(ranks[0].compute, PicoSeconds(3 * stage[0])) << mode;
        EXPECT_EQ(ranks[1].compute, PicoSeconds(3 * stage[1])) << mode;
        EXPECT_EQ(job->GetIdealComputeTime(), PicoSeconds(3 * std::max(stage[0], stage[1])))
            << mode;
        mfu[m == "none" ? 0 : m == "selective" ? 1 : 2] =
            job->GetModelFlopsPerIteration() / job->GetMeanIterationTime().GetSeconds();
        Simulator::Destroy();
    }
    EXPECT_GT(mfu[0], mfu[1]);
    EXPECT_GT(mfu[1], mfu[2]);
}

// With Precision fp8 a model's linear layers (attention projections, MLP) compute at the sustained
// rate times the Accelerator's LowPrecisionSpeedup, the core attention and the output layer at it:
// each stage's compute is exactly that, and the MFU rises (here little: the output layer,
// 32000 x 256, is most of this small model's compute).
TEST(TrainingJob, ModelFp8RunsTheLinearLayersFaster)
{
    double mfu[3] = {};
    // BF16; FP8; FP8 with full recomputation (the rerun's linear layers in FP8 too).
    for (int run : {0, 1, 2})
    {
        const bool fp8 = run > 0;
        Ptr<TransformerModel> model = CreateObject<TransformerModel>();
        Ptr<TrainingJob> job = RunSmallModelOverTwoStages(
            model, 512,
            Attributes{{"Precision", fp8 ? "fp8" : "bf16"}, {"Recompute", run == 2 ? "full" : "none"}});
        ASSERT_TRUE(job->IsFinished()) << run;
        Ptr<Accelerator> gpu = CreateObject<Accelerator>();
        const auto ps = [&](double flops) { return gpu->ComputeTime(flops).GetPicoSeconds(); };
        const auto fast = [&](double flops) { return gpu->Fp8ComputeTime(flops).GetPicoSeconds(); };
        int64_t stage[2] = {0, 0};
        for (uint32_t l = 0; l < 4; ++l)
        {
            const double core = 4.0 * 512 * 512 * 256;
            const double attention = model->GetAttentionFlops(1);
            const double mlp = model->GetMlpFlops(l, 1);
            const double logits = l == 3 ? model->GetLogitFlops(1) : 0;
            const int64_t halves =
                fp8 ? fast(attention - core) + ps(core) + fast(mlp) + (l == 3 ? ps(logits) : 0)
                    : ps(attention) + ps(mlp + logits);
            const int64_t rerun = run == 2 ? fast(attention - core) + ps(core) + fast(mlp) : 0;
            stage[l / 2] += 3 * halves + rerun; // forward, backward, rerun: per micro-batch
        }
        const auto& ranks = job->GetRankIterations();
        ASSERT_EQ(ranks.size(), 2u);
        EXPECT_EQ(ranks[0].compute, PicoSeconds(3 * stage[0])) << run;
        EXPECT_EQ(ranks[1].compute, PicoSeconds(3 * stage[1])) << run;
        mfu[run] = job->GetMfu();
        Simulator::Destroy();
    }
    EXPECT_GT(mfu[1], mfu[0]);
    EXPECT_GT(mfu[1], mfu[2]);
}

// A MoE model with a dense first layer over EP 2: the expert all-to-alls come only in its MoE
// layers, each rank reduces the gradients of its half of the routed experts, and both expert
// ranks train their own samples.
TEST(TrainingJob, ModelExpertsSplitOverExpertParallel)
{
    Ptr<TransformerModel> model = CreateObject<TransformerModel>();
    for (const auto& [name, value] : std::vector<std::pair<std::string, uint64_t>>{
             {"Layers", 4}, {"HiddenSize", 256}, {"FfnHiddenSize", 1024},
             {"AttentionHeads", 8}, {"KvHeads", 0}, {"VocabSize", 1000},
             {"SequenceLength", 128}, {"Experts", 4}, {"ExpertTopK", 2},
             {"ExpertFfnHiddenSize", 512}, {"DenseLayers", 1}})
    {
        model->SetAttribute(name, UintegerValue(value));
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Ranks", UintegerValue(4));
    job->SetAttribute("ExpertParallel", UintegerValue(2));
    job->SetAttribute("MicroBatches", UintegerValue(2));
    job->SetAttribute("Model", PointerValue(model));
    job->Check();
    const TrainingProgramSpec s = job->GetProgramSpec();
    EXPECT_EQ(s.moe, (std::vector<bool>{false, true, true, true}));
    const TrainingProgram p(s, 0);
    uint32_t expert = 0;
    for (const auto& op : p.GetOps())
    {
        expert += op.kind == JobOp::COLLECTIVE && op.comm == JobComm::EXPERT;
    }
    EXPECT_EQ(expert, 3u * 2 * 2 * 2); // 3 MoE layers, dispatch and combine, each way, 2 mbs
    // Its all-to-alls name the model's routing, for an algorithm that routes tokens (deepep).
    const auto dispatch = job->GetRequests(JobComm::EXPERT);
    ASSERT_EQ(dispatch.size(), 1u);
    EXPECT_EQ(dispatch[0].experts, 4u);
    EXPECT_EQ(dispatch[0].topK, 2u);
    // Routed experts: 3 layers x 4 experts x 3 x 256 x 512; a rank holds half of them.
    const uint64_t routed = 3ULL * 4 * 3 * 256 * 512;
    EXPECT_EQ(model->GetRoutedExpertParameters(), routed);
    EXPECT_EQ(job->GetGradientBytes(), (model->GetParameters() - routed / 2) * 4);
    EXPECT_EQ(job->GetSamplesPerIteration(), 1.0 * 2 * 2 * 2); // b x m x DP x EP
    job->SetAttribute("ExpertParallel", UintegerValue(3));
    job->SetAttribute("Ranks", UintegerValue(3));
    try
    {
        job->Check();
        ADD_FAILURE() << "3 expert ranks over 4 experts accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("must divide the Model's Experts (4)"),
                  std::string::npos)
            << e.what();
    }
}
