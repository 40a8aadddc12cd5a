#include "training-job.h"

#include "range-checkers.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJob");
NS_OBJECT_ENSURE_REGISTERED(TrainingJob);

const char*
ExposureName(Exposure e)
{
    switch (e)
    {
    case Exposure::TENSOR:
        return "tensor";
    case Exposure::EXPERT:
        return "expert";
    case Exposure::PIPELINE:
        return "pipeline";
    case Exposure::DATA:
        return "data";
    }
    return "?";
}

namespace
{
/** What a blocking collective of \p comm is waited on as. */
Exposure
ExposureOf(JobComm comm)
{
    switch (comm)
    {
    case JobComm::TENSOR:
        return Exposure::TENSOR;
    case JobComm::EXPERT:
        return Exposure::EXPERT;
    case JobComm::DATA:
    case JobComm::EXPERT_DATA:
        return Exposure::DATA;
    default:
        return Exposure::PIPELINE;
    }
}
} // namespace

TypeId
TrainingJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingJob")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<TrainingJob>()
            .AddAttribute("Name", "The job's name in results.", StringValue("job"),
                          MakeStringAccessor(&TrainingJob::m_name), MakeStringChecker())
            .AddAttribute("Ranks", "GPUs the job runs on (one rank per GPU); must be given.",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_ranks),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TensorParallel", "TP degree: ranks a layer's matrices are split over.",
                          UintegerValue(1), MakeUintegerAccessor(&TrainingJob::m_tp),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ExpertParallel", "EP degree: ranks a MoE layer's experts are split over.",
                          UintegerValue(1), MakeUintegerAccessor(&TrainingJob::m_ep),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PipelineParallel", "PP degree: pipeline stages.", UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_pp),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DataParallel",
                          "DP degree: model replicas; 0 = Ranks / (TP x EP x PP).  With "
                          "ExpertParallel, the replicas of each expert (the dense layers have "
                          "ExpertParallel x DataParallel).",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_dp),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Iterations", "Training iterations to run.", UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_nIterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ComputeTime",
                          "Forward and backward compute of one iteration on one rank (all its "
                          "micro-batches), at nominal speed.  Give this or Flops.",
                          TimeValue(Time(0)), MakeTimeAccessor(&TrainingJob::m_computeTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Flops",
                          "Forward and backward FLOPs of one iteration on one rank; the time is "
                          "FLOPs / the GPU's SustainedFlops.  Give this or ComputeTime.",
                          DoubleValue(0), MakeDoubleAccessor(&TrainingJob::m_flops),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("BackwardRatio",
                          "Backward compute over forward compute.  Default 2: a dense "
                          "transformer's backward costs twice its forward, 4N of the 6N FLOPs "
                          "per token (Kaplan et al., \"Scaling Laws for Neural Language "
                          "Models\", 2020, section 2.1).",
                          DoubleValue(2), MakeDoubleAccessor(&TrainingJob::m_backwardRatio),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("OptimizerTime",
                          "The optimizer step after the gradients are reduced, per rank.",
                          TimeValue(Time(0)), MakeTimeAccessor(&TrainingJob::m_optimizerTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Parameters",
                          "Model parameters; each rank reduces the gradients of its "
                          "Parameters / (TP x PP) over its data-parallel group (but see "
                          "ExpertParameters).",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_parameters),
                          MakeUintegerChecker<uint64_t>(0, kMaxByteCount))
            .AddAttribute("ExpertParameters",
                          "Of Parameters, the routed experts' (needs MoeLayers).  With "
                          "ExpertParallel > 1 a rank holds 1/ExpertParallel of them and "
                          "reduces their gradients over the DataParallel ranks holding the "
                          "same experts (Megatron-LM's expert-data-parallel group), the "
                          "other parameters' over the ExpertParallel x DataParallel ranks of "
                          "its tensor and pipeline coordinates (its data-parallel group).  "
                          "0: every parameter dense, held and reduced by every EP rank.",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_expertParameters),
                          MakeUintegerChecker<uint64_t>(0, kMaxByteCount))
            .AddAttribute("GradientElementBytes",
                          "Bytes per gradient element.  Default 4: FP32 gradients of mixed-"
                          "precision training with FP32 master weights (Micikevicius et al., "
                          "\"Mixed Precision Training\", ICLR 2018).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&TrainingJob::m_gradientElementBytes),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("Layers",
                          "Transformer layers, split evenly over the stages (but see "
                          "FirstStageLayers and LastStageLayers).",
                          UintegerValue(1), MakeUintegerAccessor(&TrainingJob::m_layers),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FirstStageLayers",
                          "With a Model: the first pipeline stage's layers, the others "
                          "splitting the rest evenly; 0: as many as the others.  Megatron-LM's "
                          "--decoder-first-pipeline-num-layers; Llama 3 405B's first and last "
                          "of 16 stages hold 7 of its 126 layers, one fewer than the others, "
                          "to balance the embedding and output layer (Dubey et al., \"The "
                          "Llama 3 Herd of Models\", 2024, section 3.3.2).  Not with "
                          "VirtualStages.",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_firstStageLayers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LastStageLayers",
                          "With a Model: the last pipeline stage's layers, the others "
                          "splitting the rest evenly; 0: as many as the others.  Megatron-LM's "
                          "--decoder-last-pipeline-num-layers.  Not with VirtualStages.",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_lastStageLayers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("VirtualStages",
                          "Model chunks per pipeline stage (v of the interleaved 1F1B schedule "
                          "of Narayanan et al., SC'21, section 2.2.2; Megatron-LM's "
                          "--num-virtual-stages-per-pipeline-rank): each stage holds v chunks "
                          "of Layers / (PP x v) layers, chunk c of stage s the model's "
                          "(c PP + s)-th, which divides the pipeline bubble by v at the cost of "
                          "v times the pipeline transfers.  1: no interleaving.  Above 1 it "
                          "needs PipelineParallel > 1, Layers a multiple of PipelineParallel x "
                          "v and MicroBatches a multiple of PipelineParallel (as Megatron-LM's "
                          "schedule does), and combines with neither FirstStageLayers, "
                          "LastStageLayers nor FullySharded.",
                          UintegerValue(1), MakeUintegerAccessor(&TrainingJob::m_virtualStages),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("Recompute",
                          "Activation recomputation (Megatron-LM's --recompute-granularity; "
                          "Korthikanti et al., \"Reducing Activation Recomputation in Large "
                          "Transformer Models\", MLSys 2023): none; selective, each attention "
                          "half's backward also recomputes its core attention (the s^2 scores "
                          "and weighted values, a Model's GetCoreAttentionFlops; needs a Model); "
                          "full, each layer's forward (without the output layer), its "
                          "tensor-parallel collectives and expert all-to-alls included, rerun "
                          "before its backward.  The recomputed FLOPs count in the ideal compute "
                          "(utilization), not in the model FLOPs (MFU).",
                          EnumValue(RECOMPUTE_NONE),
                          MakeEnumAccessor(&TrainingJob::m_recompute),
                          MakeEnumChecker(RECOMPUTE_NONE, "none", RECOMPUTE_SELECTIVE,
                                          "selective", RECOMPUTE_FULL, "full"))
            .AddAttribute("Precision",
                          "With a Model, the precision of its matrix products: bf16; or fp8, as "
                          "Megatron-LM trains with Transformer Engine (--fp8-format): the "
                          "transformer layers' linear layers (the attention's projections, the "
                          "MLP and its experts; here its router too, under 0.5% of a MoE MLP, "
                          "which Megatron-LM keeps in BF16 or FP32) at the Accelerator's "
                          "SustainedFlops x LowPrecisionSpeedup, the core attention and the "
                          "output layer in "
                          "BF16.  The MFU stays against the Accelerator's PeakFlops; element "
                          "sizes on the wire are the *ElementBytes attributes'.",
                          EnumValue(PRECISION_BF16), MakeEnumAccessor(&TrainingJob::m_precision),
                          MakeEnumChecker(PRECISION_BF16, "bf16", PRECISION_FP8, "fp8"))
            .AddAttribute("MicroBatches", "Micro-batches per iteration (m of 1F1B).",
                          UintegerValue(1), MakeUintegerAccessor(&TrainingJob::m_microBatches),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ActivationBytes",
                          "One layer's output for one micro-batch (micro-batch x sequence x "
                          "hidden x element bytes): the size of each tensor-parallel "
                          "all-reduce and pipeline transfer.  0 makes pipeline transfers free "
                          "(stages still wait for each other).",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_activationBytes),
                          MakeUintegerChecker<uint64_t>(0, kMaxByteCount))
            .AddAttribute("MoeLayers",
                          "Layers that are mixture-of-experts, spread evenly (every "
                          "Layers / MoeLayers-th layer).",
                          UintegerValue(0), MakeUintegerAccessor(&TrainingJob::m_moeLayers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ExpertTopK",
                          "Experts each token is routed to: an expert all-to-all moves "
                          "ActivationBytes x ExpertTopK.  Default 2 (GShard's top-2 gating, "
                          "Lepikhin et al., 2020).",
                          UintegerValue(2), MakeUintegerAccessor(&TrainingJob::m_expertTopK),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("BucketBytes",
                          "Gradient bucket size.  Default 25 MiB: PyTorch "
                          "DistributedDataParallel's bucket_cap_mb = 25.",
                          UintegerValue(25 << 20), MakeUintegerAccessor(&TrainingJob::m_bucketBytes),
                          MakeUintegerChecker<uint64_t>(1, kMaxByteCount))
            .AddAttribute("OverlapGradientReduction",
                          "Start each bucket's all-reduce as soon as the backward has produced "
                          "it (DDP's overlap), instead of after the whole backward.",
                          BooleanValue(true), MakeBooleanAccessor(&TrainingJob::m_overlap),
                          MakeBooleanChecker())
            .AddAttribute("Slowdown",
                          "Each GPU's compute time factor, drawn once per GPU in rank order "
                          "(1 = nominal; e.g. ns3::StragglerRandomVariable for 1% of GPUs "
                          "10% slower).  Draws must be > 0.",
                          StringValue("ns3::ConstantRandomVariable[Constant=1.0]"),
                          MakePointerAccessor(&TrainingJob::m_slowdown),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("SamplesPerIteration",
                          "Samples (sequences) one iteration trains on, for samples/s; 0 = "
                          "not given.",
                          DoubleValue(0), MakeDoubleAccessor(&TrainingJob::m_samplesPerIteration),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("TokensPerSample", "Tokens per sample, for tokens/s; 0 = not given.",
                          DoubleValue(0), MakeDoubleAccessor(&TrainingJob::m_tokensPerSample),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("TrafficClass",
                          "Priority (PFC class) of the job's queue pairs' data.  Default 3, "
                          "the RoCE class of RdmaQueuePair::Priority.",
                          UintegerValue(3), MakeUintegerAccessor(&TrainingJob::m_trafficClass),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("StartTime", "When the first iteration starts.", TimeValue(Time(0)),
                          MakeTimeAccessor(&TrainingJob::m_startTime), MakeTimeChecker(Time(0)))
            .AddAttribute("BarrierLatency",
                          "From the slowest rank's finish to every rank starting the next "
                          "iteration: each rank's notice that it finished crosses the cluster's "
                          "control path (FabricControlPath) in this time.  0: an ideal barrier, "
                          "in one process only; a run split over MPI ranks needs more than each "
                          "rank's lookahead (the shortest delay of its links to other ranks): at "
                          "least the longest plus 2 ps.",
                          TimeValue(Time(0)), MakeTimeAccessor(&TrainingJob::m_barrierLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SequenceParallel",
                          "Megatron's sequence parallelism (Korthikanti et al., \"Reducing "
                          "Activation Recomputation in Large Transformer Models\", 2022): each "
                          "tensor-parallel all-reduce becomes an all-gather before the layer "
                          "half and a reduce-scatter after it (the same bytes on a ring: "
                          "4 all-gathers and 4 reduce-scatters a layer), and pipeline transfers "
                          "carry 1/TensorParallel of the activation.  Needs TensorParallel > 1.",
                          BooleanValue(false), MakeBooleanAccessor(&TrainingJob::m_sequenceParallel),
                          MakeBooleanChecker())
            .AddAttribute("DistributedOptimizer",
                          "ZeRO-1 (Rajbhandari et al., \"ZeRO\", SC'20; Megatron's distributed "
                          "optimizer): gradient buckets are reduce-scattered over the "
                          "data-parallel group instead of all-reduced, each rank updates its "
                          "shard, and after the optimizer step the updated parameters are "
                          "all-gathered (blocking) at ParameterElementBytes, each buffer padded "
                          "to whole elements per replica.  OptimizerTime is then the update of "
                          "one shard.  With ExpertParallel > 1 the experts' buffers shard over "
                          "their expert-data-parallel group (see ExpertParameters).  Needs "
                          "ExpertParallel x DataParallel > 1.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TrainingJob::m_distributedOptimizer),
                          MakeBooleanChecker())
            .AddAttribute("FullySharded",
                          "FSDP / ZeRO-3 (Rajbhandari et al., \"ZeRO\", SC'20; PyTorch's "
                          "FullyShardedDataParallel, FULL_SHARD, one unit per layer): every "
                          "layer's parameters are all-gathered over the data-parallel group "
                          "before its forward and again before its backward, at "
                          "ParameterElementBytes, the next layer's gather started before this "
                          "layer's compute (FSDP's implicit forward and backward-pre "
                          "prefetching), and its gradients are reduce-scattered after its "
                          "backward, every micro-batch; each buffer padded to whole elements per "
                          "replica.  The parameters are spread evenly over a stage's layers.  "
                          "No gradient buckets (BucketBytes, OverlapGradientReduction); not with "
                          "DistributedOptimizer nor ExpertParallel > 1.  Needs DataParallel > 1.",
                          BooleanValue(false), MakeBooleanAccessor(&TrainingJob::m_fullySharded),
                          MakeBooleanChecker())
            .AddAttribute("ParameterElementBytes",
                          "Bytes per parameter the distributed optimizer or FSDP all-gathers.  "
                          "Default 2: BF16 weights, Megatron's distributed optimizer's "
                          "all-gather.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TrainingJob::m_parameterElementBytes),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("Model",
                          "The transformer the job trains (null: none).  It gives Layers, "
                          "MoeLayers (its mixture-of-experts layers, where it has them), "
                          "ExpertTopK, Parameters, ActivationBytes (MicroBatchSize sequences "
                          "of its hidden size at ActivationElementBytes), TokensPerSample and "
                          "SamplesPerIteration, and the compute: each layer's attention and "
                          "MLP FLOPs, over TensorParallel, at the GPU's SustainedFlops (the "
                          "output layer's on the last stage); leave those attributes and "
                          "ComputeTime and Flops unset.",
                          PointerValue(), MakePointerAccessor(&TrainingJob::m_model),
                          MakePointerChecker<TransformerModel>())
            .AddAttribute("MicroBatchSize",
                          "Sequences per micro-batch (b), with a Model.", UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_microBatchSize),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("ActivationElementBytes",
                          "Bytes per activation element, with a Model.  Default 2: BF16 "
                          "activations of mixed-precision training.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TrainingJob::m_activationElementBytes),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("Trace",
                          "The job's MLCommons Chakra execution traces, one file per rank: "
                          "\"<Trace>.<rank>.et\" (ASTRA-sim's naming); \"\" for none.  Each "
                          "iteration runs every rank's trace (TraceProgram, ChakraTrace); the "
                          "layout (TensorParallel, ...) tells which process group is which.  "
                          "Leave the Model and the attributes that describe an iteration "
                          "(ComputeTime, Flops, Layers, MicroBatches, Parameters, ...) unset.",
                          StringValue(""), MakeStringAccessor(&TrainingJob::m_tracePrefix),
                          MakeStringChecker())
            .AddAttribute("ProcessGroups",
                          "With a Trace: the file of its process groups, ASTRA-sim's "
                          "communicator-group JSON (group name -> ranks, e.g. "
                          "{\"1\": [0, 1]}); \"\" when every collective is on all ranks.",
                          StringValue(""), MakeStringAccessor(&TrainingJob::m_processGroups),
                          MakeStringChecker())
            .AddTraceSource("Span",
                            "A rank finished a compute span or its part of a collective.",
                            MakeTraceSourceAccessor(&TrainingJob::m_spanTrace),
                            "ns3::TrainingJob::SpanTracedCallback")
            .AddTraceSource("Iteration", "An iteration ended (its slowest rank finished).",
                            MakeTraceSourceAccessor(&TrainingJob::m_iterationTrace),
                            "ns3::TrainingJob::IterationTracedCallback")
            .AddTraceSource("Interrupted",
                            "The job stopped mid-iteration: the cause (a failed component, or "
                            "a queue pair past its retry count).",
                            MakeTraceSourceAccessor(&TrainingJob::m_interruptedTrace),
                            "ns3::TrainingJob::InterruptedTracedCallback");
    return tid;
}

TrainingJob::TrainingJob() = default;
TrainingJob::~TrainingJob() = default;

void
TrainingJob::DoDispose()
{
    m_rankState.clear();
    m_programs.clear();
    m_traceOps.clear();
    m_trace.reset();
    m_slowdown = nullptr;
    m_controlPath = nullptr;
    Object::DoDispose();
}

namespace
{
[[noreturn]] void
Bad(const std::string& what)
{
    throw std::invalid_argument(what);
}

std::string
Str(uint64_t v)
{
    return std::to_string(v);
}
} // namespace

void
TrainingJob::Check() const
{
    const std::string job = "job '" + m_name + "': ";
    if (m_name.empty())
    {
        Bad("a job's Name must not be empty");
    }
    if (m_ranks == 0)
    {
        Bad(job + "Ranks must be given (at least 1)");
    }
    const uint64_t model = uint64_t(m_tp) * m_ep * m_pp;
    if (m_dp == 0 && m_ranks % model != 0)
    {
        Bad(job + "Ranks (" + Str(m_ranks) + ") is not a multiple of TensorParallel x "
            "ExpertParallel x PipelineParallel (" + Str(model) + ")");
    }
    if (m_dp != 0 && model * m_dp != m_ranks)
    {
        Bad(job + "TensorParallel x ExpertParallel x DataParallel x PipelineParallel = " +
            Str(model * m_dp) + " but Ranks = " + Str(m_ranks) + "; they must be equal");
    }
    if (!m_tracePrefix.empty())
    {
        CheckTrace();
        return;
    }
    if (!m_processGroups.empty())
    {
        Bad(job + "ProcessGroups applies only with a Trace");
    }
    if (m_model)
    {
        try
        {
            m_model->Check();
        }
        catch (const std::invalid_argument& e)
        {
            Bad(job + "Model: " + e.what());
        }
        for (const char* given :
             {"ComputeTime", "Flops", "Layers", "MoeLayers", "ExpertTopK", "Parameters",
              "ExpertParameters", "ActivationBytes", "SamplesPerIteration", "TokensPerSample"})
        {
            if (!IsDefault(given))
            {
                Bad(job + given + " is given by the Model; leave it unset");
            }
        }
    }
    else
    {
        for (const char* modelOnly : {"MicroBatchSize", "ActivationElementBytes"})
        {
            if (!IsDefault(modelOnly))
            {
                Bad(job + modelOnly + " applies only with a Model");
            }
        }
    }
    const ParallelLayout layout = GetLayout();
    if (m_sequenceParallel && m_tp < 2)
    {
        Bad(job + "SequenceParallel needs TensorParallel > 1");
    }
    if (m_distributedOptimizer && layout.ep * layout.dp < 2)
    {
        Bad(job + "DistributedOptimizer needs ExpertParallel x DataParallel > 1 (it shards "
            "over the replicas)");
    }
    if (!m_distributedOptimizer && !m_fullySharded && !IsDefault("ParameterElementBytes"))
    {
        Bad(job + "ParameterElementBytes applies only with DistributedOptimizer or FullySharded");
    }
    if (m_fullySharded)
    {
        if (layout.dp < 2)
        {
            Bad(job + "FullySharded needs DataParallel > 1 (it shards over the replicas)");
        }
        if (m_distributedOptimizer)
        {
            Bad(job + "FullySharded shards the optimizer too; leave DistributedOptimizer unset");
        }
        if (m_ep > 1)
        {
            Bad(job + "FullySharded with ExpertParallel > 1 is not modelled (the experts' "
                "replicas are not the dense parameters'); use DistributedOptimizer");
        }
        for (const char* bucket : {"BucketBytes", "OverlapGradientReduction"})
        {
            if (!IsDefault(bucket))
            {
                Bad(job + bucket + " applies to gradient buckets, which FullySharded does not use");
            }
        }
    }
    const uint32_t layers = Layers();
    const bool uneven = m_firstStageLayers > 0 || m_lastStageLayers > 0;
    if (m_precision == PRECISION_FP8 && !m_model)
    {
        Bad(job + "Precision = fp8 runs a Model's matrix products in FP8, which needs a Model");
    }
    if (m_recompute == RECOMPUTE_SELECTIVE && !m_model)
    {
        Bad(job + "Recompute = selective recomputes the core attention, which needs a Model");
    }
    if (uneven && m_virtualStages > 1)
    {
        Bad(job + "VirtualStages (" + Str(m_virtualStages) +
            ") with FirstStageLayers or LastStageLayers is not modelled; give one");
    }
    if (uneven && !m_model)
    {
        Bad(job + "FirstStageLayers and LastStageLayers need a Model (without one, ComputeTime "
            "is every rank's, whatever its stage's layers)");
    }
    if (uneven && m_pp < 2)
    {
        Bad(job + "FirstStageLayers and LastStageLayers need PipelineParallel > 1");
    }
    if (uneven)
    {
        // The stages neither attribute sets split the remaining layers evenly, each at least one.
        const uint32_t given = m_firstStageLayers + m_lastStageLayers;
        const uint32_t others = m_pp - (m_firstStageLayers > 0) - (m_lastStageLayers > 0);
        const std::string what = "Layers (" + Str(layers) + ") minus FirstStageLayers (" +
                                 Str(m_firstStageLayers) + ") and LastStageLayers (" +
                                 Str(m_lastStageLayers) + ")";
        if (given > layers || (others == 0 && given != layers))
        {
            Bad(job + what + " must leave " +
                (others == 0 ? "no layers (PipelineParallel is 2)" : "layers for the other stages"));
        }
        if (others > 0 && ((layers - given) % others != 0 || layers - given < others))
        {
            Bad(job + what + " must split evenly over the other " + Str(others) +
                " stages, at least one layer each");
        }
    }
    if (m_virtualStages > 1)
    {
        const std::string v = "VirtualStages (" + Str(m_virtualStages) + ")";
        if (m_pp < 2)
        {
            Bad(job + v + " needs PipelineParallel > 1");
        }
        if (m_fullySharded)
        {
            Bad(job + v + " with FullySharded is not modelled; give one");
        }
        if (layers % (m_pp * m_virtualStages) != 0)
        {
            Bad(job + "Layers (" + Str(layers) + ") must be a multiple of PipelineParallel x " +
                v + " = " + Str(m_pp * m_virtualStages));
        }
        if (m_microBatches % m_pp != 0)
        {
            Bad(job + "MicroBatches (" + Str(m_microBatches) + ") must be a multiple of "
                "PipelineParallel (" + Str(m_pp) + ") with " + v +
                ", as Megatron-LM's interleaved schedule requires");
        }
    }
    else if (!uneven && layers % m_pp != 0)
    {
        Bad(job + "Layers (" + Str(layers) + ") must be a multiple of PipelineParallel (" +
            Str(m_pp) + ")" + (m_model ? "; or set FirstStageLayers or LastStageLayers" : ""));
    }
    const uint32_t moe = MoeLayers();
    if (!m_model && (moe > layers || (moe > 0 && layers % moe != 0)))
    {
        Bad(job + "MoeLayers (" + Str(moe) + ") must divide Layers (" + Str(layers) + ")");
    }
    if (m_model && m_ep > 1 && m_model->GetExperts() % m_ep != 0)
    {
        Bad(job + "ExpertParallel (" + Str(m_ep) + ") must divide the Model's Experts (" +
            Str(m_model->GetExperts()) + ")");
    }
    if (!m_model && m_expertParameters > 0 && moe == 0)
    {
        Bad(job + "ExpertParameters (" + Str(m_expertParameters) + ") needs MoeLayers > 0");
    }
    if (!m_model && m_expertParameters > m_parameters)
    {
        Bad(job + "ExpertParameters (" + Str(m_expertParameters) + ") must be at most "
            "Parameters (" + Str(m_parameters) + ")");
    }
    if (m_ep > 1 && moe == 0)
    {
        Bad(job + "ExpertParallel = " + Str(m_ep) + " needs MoeLayers > 0" +
            (m_model ? " (a Model with Experts)" : ""));
    }
    if (m_computeTime.IsStrictlyPositive() && m_flops > 0)
    {
        Bad(job + "give ComputeTime or Flops, not both");
    }
}

void
TrainingJob::CheckTrace() const
{
    if (m_model)
    {
        Bad("job '" + m_name + "': a Trace describes the iteration; leave the Model unset");
    }
    for (const char* given :
         {"ComputeTime", "Flops", "BackwardRatio", "OptimizerTime", "Parameters",
          "ExpertParameters", "Layers", "FirstStageLayers", "LastStageLayers", "VirtualStages",
          "Recompute", "Precision", "MicroBatches", "ActivationBytes", "MoeLayers", "ExpertTopK",
          "BucketBytes", "OverlapGradientReduction", "SequenceParallel", "DistributedOptimizer",
          "FullySharded", "MicroBatchSize", "ActivationElementBytes"})
    {
        if (!IsDefault(given))
        {
            Bad("job '" + m_name + "': " + given +
                " describes an iteration, which the Trace gives; leave it unset");
        }
    }
}

ParallelLayout
TrainingJob::GetLayout() const
{
    ParallelLayout l;
    l.tp = m_tp;
    l.ep = m_ep;
    l.pp = m_pp;
    l.dp = m_dp != 0 ? m_dp : m_ranks / (m_tp * m_ep * m_pp);
    return l;
}

bool
TrainingJob::IsDefault(const std::string& name) const
{
    TypeId::AttributeInformation info;
    GetTypeId().LookupAttributeByName(name, &info);
    Ptr<AttributeValue> value = info.checker->Create();
    GetAttribute(name, *value);
    return value->SerializeToString(info.checker) ==
           info.initialValue->SerializeToString(info.checker);
}

uint32_t
TrainingJob::Layers() const
{
    return m_model ? m_model->GetLayers() : m_layers;
}

uint32_t
TrainingJob::MoeLayers() const
{
    return m_model ? m_model->GetMoeLayers() : m_moeLayers;
}

uint32_t
TrainingJob::ExpertTopK() const
{
    return m_model ? std::max<uint32_t>(1, m_model->GetExpertTopK()) : m_expertTopK;
}

uint64_t
TrainingJob::Parameters() const
{
    return m_model ? m_model->GetParameters() : m_parameters;
}

uint64_t
TrainingJob::ActivationBytes() const
{
    return m_model ? m_model->GetActivationElements(m_microBatchSize) * m_activationElementBytes
                   : m_activationBytes;
}

double
TrainingJob::GetSamplesPerIteration() const
{
    // Expert-parallel ranks are data replicas of the dense layers: each trains its own samples.
    const ParallelLayout l = GetLayout();
    return m_model ? double(m_microBatchSize) * m_microBatches * l.dp * l.ep
                   : m_samplesPerIteration;
}

double
TrainingJob::GetTokensPerSample() const
{
    return m_model ? double(m_model->GetSequenceLength()) : m_tokensPerSample;
}

double
TrainingJob::GetModelFlopsPerIteration() const
{
    return m_model ? 3 * m_model->GetForwardFlops(1) * GetSamplesPerIteration() : 0;
}

double
TrainingJob::GetMfu() const
{
    const double mean = GetMeanIterationTime().GetSeconds();
    return m_model && mean > 0 && m_peakFlops > 0
               ? GetModelFlopsPerIteration() / (m_ranks * m_peakFlops * mean)
               : 0;
}

std::vector<std::vector<int64_t>>
TrainingJob::ModelStageHalves(Ptr<Accelerator> gpu, bool recomputed) const
{
    const TrainingProgramSpec spec = GetProgramSpec();
    // BF16 compute, and with FP8 the linear layers' matrix products.
    const auto ps = [&](double flops) { return gpu->ComputeTime(flops / m_tp).GetPicoSeconds(); };
    const auto gemm = [&](double flops) {
        return gpu->Fp8ComputeTime(flops / m_tp).GetPicoSeconds();
    };
    const uint32_t b = m_microBatchSize;
    const double core = m_model->GetCoreAttentionFlops(b);
    const double projections = m_model->GetAttentionFlops(b) - core;
    std::vector<std::vector<int64_t>> halves(m_pp);
    for (uint32_t stage = 0; stage < m_pp; ++stage)
    {
        for (uint32_t i = 0; i < spec.LayersOf(stage); ++i)
        {
            const uint32_t layer = spec.LayerOf(stage, i);
            if (recomputed && m_recompute == RECOMPUTE_SELECTIVE)
            {
                halves[stage].push_back(ps(core));
                halves[stage].push_back(0);
                continue;
            }
            // The output layer joins the last half, in BF16; it is never recomputed.
            const double logits =
                !recomputed && layer + 1 == Layers() ? m_model->GetLogitFlops(b) : 0;
            const double mlp = m_model->GetMlpFlops(layer, b);
            if (m_precision == PRECISION_FP8)
            {
                halves[stage].push_back(gemm(projections) + ps(core));
                halves[stage].push_back(gemm(mlp) + (logits > 0 ? ps(logits) : 0));
            }
            else
            {
                halves[stage].push_back(ps(m_model->GetAttentionFlops(b)));
                halves[stage].push_back(ps(mlp + logits));
            }
        }
    }
    return halves;
}

uint64_t
TrainingJob::ExpertParameters() const
{
    return m_model ? m_model->GetRoutedExpertParameters() : m_expertParameters;
}

uint64_t
TrainingJob::GetGradientBytes() const
{
    const uint64_t shards = uint64_t(m_tp) * m_pp;
    if (m_ep == 1)
    {
        return (Parameters() + shards - 1) / shards * m_gradientElementBytes;
    }
    const uint64_t dense = Parameters() - ExpertParameters();
    return (dense + shards - 1) / shards * m_gradientElementBytes + GetExpertGradientBytes();
}

uint64_t
TrainingJob::GetExpertGradientBytes() const
{
    if (m_ep == 1)
    {
        return 0;
    }
    // A rank holds 1/ExpertParallel of the routed experts, split over TP x PP.
    const uint64_t shards = uint64_t(m_tp) * m_ep * m_pp;
    return (ExpertParameters() + shards - 1) / shards * m_gradientElementBytes;
}

TrainingProgramSpec
TrainingJob::GetProgramSpec() const
{
    const ParallelLayout l = GetLayout();
    TrainingProgramSpec s;
    s.compute = m_resolvedCompute;
    s.backwardRatio = m_backwardRatio;
    s.optimizer = m_optimizerTime;
    s.layers = Layers();
    if (m_firstStageLayers > 0 || m_lastStageLayers > 0)
    {
        const uint32_t given = m_firstStageLayers + m_lastStageLayers;
        const uint32_t others = l.pp - (m_firstStageLayers > 0) - (m_lastStageLayers > 0);
        const uint32_t each = others > 0 ? (s.layers - given) / others : 0;
        s.stageLayers.assign(l.pp, each);
        if (m_firstStageLayers > 0)
        {
            s.stageLayers.front() = m_firstStageLayers;
        }
        if (m_lastStageLayers > 0)
        {
            s.stageLayers.back() = m_lastStageLayers;
        }
    }
    s.virtualStages = m_virtualStages;
    s.microBatches = m_microBatches;
    s.tp = l.tp;
    s.ep = l.ep;
    s.dp = l.dp;
    s.pp = l.pp;
    s.moeLayers = MoeLayers();
    s.activationBytes = ActivationBytes();
    s.expertTopK = ExpertTopK();
    s.experts = m_model ? m_model->GetExperts() : 0;
    s.gradientBytes = GetGradientBytes();
    s.expertGradientBytes = GetExpertGradientBytes();
    s.gradientElementBytes = m_gradientElementBytes;
    s.bucketBytes = m_bucketBytes;
    s.overlap = m_overlap;
    s.stageHalves = m_stageHalves;
    s.recompute = m_recompute;
    s.stageRecompute = m_stageRecompute;
    s.sequenceParallel = m_sequenceParallel;
    s.distributedOptimizer = m_distributedOptimizer;
    s.fullySharded = m_fullySharded;
    s.parameterElementBytes = m_parameterElementBytes;
    if (m_model)
    {
        for (uint32_t l = 0; l < s.layers; ++l)
        {
            s.moe.push_back(m_model->IsMoeLayer(l));
        }
    }
    return s;
}

std::vector<JobRequest>
TrainingJob::GetRequests(JobComm comm) const
{
    if (!m_tracePrefix.empty())
    {
        NS_ABORT_MSG_IF(!m_trace, "job '" << m_name << "': its Trace was not read (SetTraceProgram)");
        return m_trace->GetRequests(comm);
    }
    return TrainingProgram::Requests(GetProgramSpec(), comm);
}

void
TrainingJob::SetTraceProgram(std::shared_ptr<const TraceProgram> program)
{
    m_trace = std::move(program);
}

void
TrainingJob::SetRank(uint32_t rank, uint32_t host, uint32_t server, Ptr<Accelerator> gpu,
                     bool local)
{
    NS_ABORT_MSG_IF(rank >= m_ranks, "job '" << m_name << "' has no rank " << rank);
    m_rankState.resize(m_ranks);
    RankState& rs = m_rankState[rank];
    rs.local = local;
    rs.host = host;
    rs.server = server;
    rs.gpu = gpu;
    rs.stage = GetLayout().Of(rank).pp;
    if (rank == 0)
    {
        m_resolvedCompute = m_flops > 0 ? gpu->ComputeTime(m_flops) : m_computeTime;
        m_peakFlops = gpu->GetPeakFlops();
        if (m_model)
        {
            // The slowest stage's forward, backward and recomputation of every micro-batch, as
            // the program runs them (a half's backward rounded from its forward).
            m_stageHalves = ModelStageHalves(gpu, false);
            m_stageRecompute.clear();
            if (m_recompute != RECOMPUTE_NONE)
            {
                m_stageRecompute = ModelStageHalves(gpu, true);
            }
            int64_t slowest = 0;
            for (uint32_t stage = 0; stage < m_stageHalves.size(); ++stage)
            {
                int64_t total = 0;
                for (std::size_t h = 0; h < m_stageHalves[stage].size(); ++h)
                {
                    const int64_t f = m_stageHalves[stage][h];
                    total += f + TrainingProgram::BackwardOf(f, m_backwardRatio) +
                             (m_stageRecompute.empty() ? 0 : m_stageRecompute[stage][h]);
                }
                slowest = std::max(slowest, total);
            }
            m_resolvedCompute = PicoSeconds(slowest * m_microBatches);
        }
    }
}

void
TrainingJob::SetCommunicator(uint32_t rank, JobComm comm, Ptr<CollectiveApplication> app,
                             ScheduleList schedules)
{
    m_rankState.resize(m_ranks);
    m_rankState[rank].comms[static_cast<std::size_t>(comm)] = {app, std::move(schedules)};
    if (app) // null: another MPI rank simulates it
    {
        app->TraceConnectWithoutContext("Failed",
                                        MakeCallback(&TrainingJob::CommunicatorFailed, this).Bind(rank));
    }
}

void
TrainingJob::CommunicatorFailed(uint32_t r, uint32_t)
{
    if (m_barrierHandler < 0)
    {
        RankFailed(r);
        return;
    }
    // Every process stops the job when the failure's notice reaches it, as the barrier's.
    m_controlPath->Broadcast(static_cast<uint32_t>(m_failureHandler), r, {}, m_barrierLatency);
}

void
TrainingJob::RankFailed(uint32_t r)
{
    Interrupt("rank " + std::to_string(r) + " (host " + std::to_string(m_rankState[r].host) +
              "): a queue pair exceeded its retry count");
}

void
TrainingJob::Interrupt(const std::string& cause)
{
    if (m_interrupted || IsFinished())
    {
        return;
    }
    NS_LOG_INFO("job " << m_name << " interrupted: " << cause);
    m_interrupted = true;
    m_interruptedAt = Simulator::Now();
    m_interruptionCause = cause;
    m_interruptedTrace(cause);
}

std::string
TrainingJob::DescribeStall() const
{
    if (IsFinished() || m_interrupted)
    {
        return "";
    }
    // Of the ranks this process simulates, one waiting for something in particular rather
    // than one parked at its end.
    std::optional<uint32_t> pick;
    for (uint32_t i = 0; i < m_rankState.size(); ++i)
    {
        const Wait w = m_rankState[i].wait;
        if (m_rankState[i].local && w != FINISHED &&
            (!pick || (m_rankState[*pick].wait == ALL && w != ALL)))
        {
            pick = i;
        }
    }
    if (!pick)
    {
        // Split over MPI ranks, every rank here finished: others' notices never came.
        std::string missing;
        for (uint32_t i = 0; i < m_rankState.size(); ++i)
        {
            if (m_rankState[i].wait != FINISHED)
            {
                missing += (missing.empty() ? "" : ", ") + Str(i);
            }
        }
        return "job '" + m_name + "' stopped in iteration " + Str(m_iterations.size()) +
               " with nothing left to run: this process's ranks finished it, but rank(s) " +
               missing + " (simulated by other MPI ranks) never did";
    }
    const uint32_t r = *pick;
    {
        const RankState& rs = m_rankState[r];
        const auto where = [this, r](std::size_t op) {
            return m_trace ? "node " + std::to_string(m_trace->GetNodeId(r, op))
                           : "op " + std::to_string(op);
        };
        std::string what;
        switch (rs.wait)
        {
        case DEPENDENCY:
            what = JobCommName(OpAt(r, rs.dependency).comm) + std::string(" collective ") +
                   where(rs.dependency);
            break;
        case ACTIVATION:
        case GRADIENT:
            what = rs.wait == ACTIVATION ? "an activation" : "a gradient";
            break;
        default:
            what = "its collectives to finish";
        }
        const bool end = rs.pc + 1 == rs.ops->size();
        return "job '" + m_name + "' stopped in iteration " + Str(m_iterations.size()) +
               " with nothing left to run: rank " + Str(r) + " is at " +
               (end ? std::string("its end") : where(rs.pc)) + ", waiting for " + what +
               " (a collective or message its peers never start: ranks waiting on each other)";
    }
}

void
TrainingJob::SetServerSlowdown(uint32_t server, double factor)
{
    if (!(factor > 0))
    {
        Bad("job '" + m_name + "': the slowdown of server " + Str(server) + " must be > 0");
    }
    m_serverSlowdown[server] = factor;
}

int64_t
TrainingJob::AssignStreams(int64_t stream)
{
    m_slowdown->SetStream(stream);
    return 1;
}

void
TrainingJob::Start()
{
    Check();
    NS_ABORT_MSG_IF(m_rankState.size() != m_ranks || !m_rankState.back().gpu,
                    "job '" << m_name << "': place every rank (SetRank) before Start");
    if (m_trace)
    {
        // The compute each rank's trace holds; the ideal is the busiest rank's.
        int64_t busiest = 0;
        m_traceOps.reserve(m_ranks); // the ranks point into it
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            m_traceOps.push_back(m_trace->GetOps(r, m_rankState[r].gpu));
            int64_t compute = 0;
            for (const JobOp& op : m_traceOps.back())
            {
                compute += op.kind == JobOp::COMPUTE ? op.picoseconds : 0;
            }
            busiest = std::max(busiest, compute);
            RankState& rs = m_rankState[r];
            rs.ops = &m_traceOps.back();
            rs.finished.assign(rs.ops->size(), false);
            rs.issued.assign(rs.ops->size(), false);
            for (uint32_t i = 0; i < rs.ops->size(); ++i)
            {
                const JobOp& op = (*rs.ops)[i];
                if (op.kind == JobOp::COLLECTIVE)
                {
                    rs.commOps[static_cast<std::size_t>(op.comm)].push_back(i);
                }
            }
        }
        m_resolvedCompute = PicoSeconds(busiest);
    }
    else
    {
        NS_ABORT_MSG_IF(!m_tracePrefix.empty(), "job '" << m_name << "': its Trace was not read");
        m_spec = GetProgramSpec();
        for (uint32_t stage = 0; stage < m_spec.pp; ++stage)
        {
            m_programs.push_back(std::make_unique<TrainingProgram>(m_spec, stage));
        }
        for (RankState& rs : m_rankState)
        {
            rs.ops = &m_programs[rs.stage]->GetOps();
            rs.finished.assign(rs.ops->size(), false); // for FSDP's JobOp::after
        }
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        RankState& rs = m_rankState[r];
        rs.slowdown = m_slowdown->GetValue();
        if (auto it = m_serverSlowdown.find(rs.server); it != m_serverSlowdown.end())
        {
            rs.slowdown = it->second;
        }
        if (!(rs.slowdown > 0))
        {
            Bad("job '" + m_name + "': Slowdown drew " + std::to_string(rs.slowdown) +
                " for rank " + Str(r) + "; slowdowns must be > 0");
        }
        for (const JobOp& op : *rs.ops)
        {
            NS_ABORT_MSG_IF(rs.local && op.kind == JobOp::COLLECTIVE && !IsFreeTransfer(op) &&
                                !rs.comms[static_cast<std::size_t>(op.comm)].app,
                            "job '" << m_name << "': rank " << r << " has no "
                                    << JobCommName(op.comm) << " communicator");
            if (rs.local && op.kind == JobOp::COLLECTIVE && IsFreeTransfer(op) &&
                !m_rankState[PeerStage(r, op.comm)].local)
            {
                Bad("job '" + m_name + "': rank " + Str(r) + "'s zero-byte pipeline transfer "
                    "to or from rank " + Str(PeerStage(r, op.comm)) + " crosses MPI ranks "
                    "(zero-byte transfers take no time, so they cannot); give the job "
                    "ActivationBytes above 0, or a Model");
            }
        }
    }
    if (!m_controlPath)
    {
        m_controlPath = CreateObject<FabricControlPath>();
    }
    if (m_barrierLatency.IsStrictlyPositive() || m_controlPath->GetMinLatency().IsStrictlyPositive())
    {
        m_controlPath->CheckLatency("job '" + m_name + "': BarrierLatency of", m_barrierLatency);
        m_barrierHandler = static_cast<int64_t>(
            m_controlPath->AddHandler(MakeCallback(&TrainingJob::RankReported, this)));
        m_failureHandler = m_controlPath->AddHandler(MakeCallback(&TrainingJob::RankFailedNotice, this));
    }
    Simulator::Schedule(m_startTime, &TrainingJob::StartIteration, this);
}

bool
TrainingJob::IsFreeTransfer(const JobOp& op) const
{
    return IsPipelineTransfer(op.comm) &&
           (m_trace ? m_trace->HasFreeTransfers() : ActivationBytes() == 0);
}

const JobOp&
TrainingJob::OpAt(uint32_t r, std::size_t op) const
{
    return (*m_rankState[r].ops)[op];
}

bool
TrainingJob::DependenciesMet(uint32_t r, const JobOp& op)
{
    // Waiting on several, the time counts against the first unfinished of tensor, expert,
    // data and pipeline collectives: the order a TrainingProgram waits on them (its blocking
    // tensor and expert ops, then its WAIT, on the gradients before the pipeline sends).
    const auto order = [](Exposure e) {
        return e == Exposure::PIPELINE ? 3 : e == Exposure::DATA ? 2 : static_cast<int>(e);
    };
    RankState& rs = m_rankState[r];
    bool met = true;
    for (uint32_t dep : op.after)
    {
        const Exposure e = ExposureOf(OpAt(r, dep).comm);
        if (!rs.finished[dep] && (met || order(e) < order(rs.blockedOn)))
        {
            met = false;
            rs.wait = DEPENDENCY;
            rs.dependency = dep;
            rs.blockedOn = e;
        }
    }
    return met;
}

void
TrainingJob::StartIteration()
{
    if (m_interrupted)
    {
        return;
    }
    m_iterationStart = Simulator::Now();
    m_ranksLeft = m_ranks;
    for (RankState& rs : m_rankState)
    {
        NS_ASSERT(rs.outstanding == 0 && rs.activationsReady == 0 && rs.gradientsReady == 0);
        rs.pc = 0;
        rs.wait = NOTHING;
        rs.nominalDone = 0;
        rs.compute = rs.communication = Time();
        rs.exposedBy = {};
        rs.active = 0;
        rs.finished.assign(rs.finished.size(), false);
        rs.issued.assign(rs.issued.size(), false);
        rs.commNext = {};
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        if (m_rankState[r].local)
        {
            Advance(r);
        }
    }
}

void
TrainingJob::Advance(uint32_t r)
{
    RunProgram(r);
    if (m_trace)
    {
        IssueAhead(r);
    }
}

void
TrainingJob::IssueAhead(uint32_t r)
{
    RankState& rs = m_rankState[r];
    if (m_interrupted || rs.wait == FINISHED)
    {
        return;
    }
    // Each communicator's next collective, in the order the rank issues them (NCCL's), once
    // what it depends on has finished: the program need not reach it.  Until none can start
    // (a free transfer taken may let another communicator's next go).
    for (bool progress = true; progress;)
    {
        progress = false;
        for (std::size_t c = 0; c < kJobComms; ++c)
        {
            progress = IssueAheadOn(r, c) || progress;
        }
    }
}

bool
TrainingJob::IssueAheadOn(uint32_t r, std::size_t c)
{
    RankState& rs = m_rankState[r];
    const auto& list = rs.commOps[c];
    std::size_t& next = rs.commNext[c];
    bool started = false;
    while (next < list.size())
    {
        const uint32_t j = list[next];
        if (rs.issued[j])
        {
            ++next;
            continue;
        }
        const JobOp& op = OpAt(r, j);
        if (j <= rs.pc || rs.pc < op.gate || !Finished(rs, op.after))
        {
            break;
        }
        if (IsFreeTransfer(op))
        {
            if (!TakeFreeTransfer(r, op))
            {
                break;
            }
            rs.issued[j] = true;
            rs.finished[j] = true;
        }
        else
        {
            Issue(r, j);
        }
        started = true;
        ++next;
    }
    return started;
}

bool
TrainingJob::Finished(const RankState& rs, const std::vector<uint32_t>& ops)
{
    return std::all_of(ops.begin(), ops.end(), [&rs](uint32_t op) { return rs.finished[op]; });
}

void
TrainingJob::Issue(uint32_t r, std::size_t index)
{
    RankState& rs = m_rankState[r];
    const JobOp& op = OpAt(r, index);
    Endpoint& e = rs.comms[static_cast<std::size_t>(op.comm)];
    ++rs.outstanding;
    rs.outstandingData += IsGradientComm(op.comm);
    if (rs.active++ == 0)
    {
        rs.activeSince = Simulator::Now();
    }
    if (!rs.issued.empty())
    {
        rs.issued[index] = true;
    }
    e.app->Execute((*e.schedules)[op.request],
                   MakeCallback(&TrainingJob::CollectiveDone, this).Bind(r, index, Simulator::Now()));
}

void
TrainingJob::RunProgram(uint32_t r)
{
    if (m_interrupted)
    {
        return;
    }
    RankState& rs = m_rankState[r];
    const auto& ops = *rs.ops;
    if (rs.wait != NOTHING)
    {
        rs.exposedBy[static_cast<std::size_t>(rs.blockedOn)] += Simulator::Now() - rs.blockedSince;
    }
    rs.wait = NOTHING;
    rs.blockedSince = Simulator::Now();
    while (rs.pc < ops.size())
    {
        const JobOp& op = ops[rs.pc];
        if (!rs.issued.empty() && rs.issued[rs.pc])
        {
            ++rs.pc; // started ahead of the program (IssueAhead)
            continue;
        }
        if (!op.after.empty() && !DependenciesMet(r, op))
        {
            return;
        }
        switch (op.kind)
        {
        case JobOp::COMPUTE: {
            // Slow the iteration's running total, not each piece, so rounding never adds up.
            const auto slowed = [&rs](int64_t ps) { return std::llround(ps * rs.slowdown); };
            const int64_t before = slowed(rs.nominalDone);
            rs.nominalDone += op.picoseconds;
            rs.computeStart = Simulator::Now();
            Simulator::Schedule(PicoSeconds(slowed(rs.nominalDone) - before),
                                &TrainingJob::ComputeDone, this, r, rs.pc);
            return;
        }
        case JobOp::COLLECTIVE: {
            if (IsFreeTransfer(op))
            {
                if (!TakeFreeTransfer(r, op))
                {
                    rs.wait = op.comm == JobComm::ACTIVATION_RECV ? ACTIVATION : GRADIENT;
                    rs.blockedOn = Exposure::PIPELINE;
                    return;
                }
                if (!rs.finished.empty())
                {
                    rs.finished[rs.pc] = true;
                }
                ++rs.pc;
                continue;
            }
            Issue(r, rs.pc);
            ++rs.pc;
            if (op.blocking)
            {
                rs.wait = COLLECTIVE;
                rs.blockedOn = ExposureOf(op.comm);
                return;
            }
            continue;
        }
        case JobOp::WAIT:
            if (rs.outstanding > 0)
            {
                rs.wait = ALL;
                rs.blockedOn = rs.outstandingData > 0 ? Exposure::DATA : Exposure::PIPELINE;
                return;
            }
            ++rs.pc;
            continue;
        }
    }
    RankFinished(r);
}

void
TrainingJob::ComputeDone(uint32_t r, std::size_t op)
{
    if (m_interrupted)
    {
        return;
    }
    RankState& rs = m_rankState[r];
    rs.compute += Simulator::Now() - rs.computeStart;
    const JobOp& o = OpAt(r, op);
    m_spanTrace(JobSpan{r, JobOp::COMPUTE, o.phase, o.comm, o.microBatch, 0, rs.computeStart,
                        Simulator::Now()});
    ++rs.pc;
    Advance(r);
}

void
TrainingJob::CollectiveDone(uint32_t r, std::size_t op, Time start, uint32_t)
{
    if (m_interrupted)
    {
        return;
    }
    RankState& rs = m_rankState[r];
    --rs.outstanding;
    const JobOp& done = OpAt(r, op);
    if (!rs.finished.empty())
    {
        rs.finished[op] = true;
    }
    rs.outstandingData -= IsGradientComm(done.comm);
    if (rs.wait == ALL && rs.outstanding > 0 && rs.blockedOn == Exposure::DATA &&
        rs.outstandingData == 0)
    {
        // Still waiting at the end, now only on pipeline sends.
        rs.exposedBy[static_cast<std::size_t>(Exposure::DATA)] += Simulator::Now() - rs.blockedSince;
        rs.blockedSince = Simulator::Now();
        rs.blockedOn = Exposure::PIPELINE;
    }
    if (--rs.active == 0)
    {
        rs.communication += Simulator::Now() - rs.activeSince;
    }
    const auto& schedule = (*rs.comms[static_cast<std::size_t>(done.comm)].schedules)[done.request];
    m_spanTrace(JobSpan{r, JobOp::COLLECTIVE, done.phase, done.comm, done.microBatch, schedule->GetBytes(),
                        start, Simulator::Now(), &schedule->GetAlgorithm()});
    if (done.blocking || (rs.wait == ALL && rs.outstanding == 0) ||
        (rs.wait == DEPENDENCY && rs.dependency == op))
    {
        NS_ASSERT(!done.blocking || rs.wait == COLLECTIVE);
        Advance(r);
    }
    else if (m_trace)
    {
        IssueAhead(r);
    }
}

bool
TrainingJob::TakeFreeTransfer(uint32_t r, const JobOp& op)
{
    if (op.comm == JobComm::ACTIVATION_SEND || op.comm == JobComm::GRADIENT_SEND)
    {
        PassToken(r, op.comm);
        return true;
    }
    RankState& rs = m_rankState[r];
    uint32_t& ready = op.comm == JobComm::ACTIVATION_RECV ? rs.activationsReady : rs.gradientsReady;
    if (ready == 0)
    {
        return false;
    }
    --ready;
    return true;
}

uint32_t
TrainingJob::PeerStage(uint32_t r, JobComm comm) const
{
    const ParallelLayout layout = GetLayout();
    ParallelLayout::Coordinates c = layout.Of(r);
    const bool next = comm == JobComm::ACTIVATION_SEND || comm == JobComm::GRADIENT_RECV;
    // Interleaved stages pass between chunks from the last stage to the first and back.
    c.pp = next ? (c.pp + 1) % layout.pp : (c.pp + layout.pp - 1) % layout.pp;
    return layout.RankOf(c);
}

void
TrainingJob::PassToken(uint32_t r, JobComm comm)
{
    const bool activation = comm == JobComm::ACTIVATION_SEND;
    const uint32_t peer = PeerStage(r, comm);
    RankState& ps = m_rankState[peer];
    ++(activation ? ps.activationsReady : ps.gradientsReady);
    if (ps.wait == (activation ? ACTIVATION : GRADIENT))
    {
        Advance(peer);
    }
    else if (m_trace)
    {
        IssueAhead(peer); // its receive may be ahead of its program
    }
}

void
TrainingJob::RankFinished(uint32_t r)
{
    RankState& rs = m_rankState[r];
    rs.wait = FINISHED;
    rs.finish = Simulator::Now();
    if (m_barrierHandler < 0)
    {
        if (--m_ranksLeft == 0)
        {
            EndIteration();
        }
        return;
    }
    // The notice carries the rank's accounting, so every process ends the iteration alike.
    std::vector<int64_t> notice{rs.finish.GetPicoSeconds(), rs.compute.GetPicoSeconds(),
                                rs.communication.GetPicoSeconds()};
    for (const Time& t : rs.exposedBy)
    {
        notice.push_back(t.GetPicoSeconds());
    }
    m_controlPath->Broadcast(static_cast<uint32_t>(m_barrierHandler), r, std::move(notice),
                             m_barrierLatency);
}

void
TrainingJob::RankReported(uint32_t r, const std::vector<int64_t>& notice)
{
    if (m_interrupted)
    {
        return;
    }
    RankState& rs = m_rankState[r];
    rs.wait = FINISHED;
    rs.finish = PicoSeconds(notice.at(0));
    rs.compute = PicoSeconds(notice.at(1));
    rs.communication = PicoSeconds(notice.at(2));
    for (std::size_t e = 0; e < kExposures; ++e)
    {
        rs.exposedBy[e] = PicoSeconds(notice.at(3 + e));
    }
    if (--m_ranksLeft == 0)
    {
        EndIteration(); // the barrier releases: the slowest rank's finish + BarrierLatency
    }
}

void
TrainingJob::EndIteration()
{
    const Time end = Simulator::Now();
    JobIteration it;
    it.iteration = static_cast<uint32_t>(m_iterations.size());
    it.start = m_iterationStart;
    it.end = end;
    int64_t compute = 0;
    int64_t communication = 0;
    int64_t barrier = 0;
    std::array<int64_t, kExposures> exposedBy{};
    Time slowest(-1);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        const RankState& rs = m_rankState[r];
        JobRankIteration ri{it.iteration, r, rs.compute, rs.communication,
                            rs.finish - m_iterationStart - rs.compute, rs.finish, end - rs.finish,
                            rs.exposedBy};
        for (std::size_t e = 0; e < kExposures; ++e)
        {
            exposedBy[e] += ri.exposedBy[e].GetPicoSeconds();
        }
        compute += ri.compute.GetPicoSeconds();
        communication += ri.communication.GetPicoSeconds();
        barrier += ri.barrier.GetPicoSeconds();
        it.maxBarrier = std::max(it.maxBarrier, ri.barrier);
        if (rs.finish > slowest)
        {
            slowest = rs.finish;
            it.lastRank = r;
        }
        m_rankIterations.push_back(ri);
    }
    it.compute = PicoSeconds(compute / m_ranks);
    it.communication = PicoSeconds(communication / m_ranks);
    it.exposed = Time();
    for (std::size_t e = 0; e < kExposures; ++e)
    {
        it.exposedBy[e] = PicoSeconds(exposedBy[e] / m_ranks);
        it.exposed += it.exposedBy[e]; // the parts' mean sums to the whole's exactly
    }
    it.barrier = PicoSeconds(barrier / m_ranks);
    m_iterations.push_back(it);
    NS_LOG_INFO("job " << m_name << " iteration " << it.iteration << ": "
                       << it.Duration().As(Time::US) << ", last rank " << it.lastRank);
    m_iterationTrace(it);
    if (m_iterations.size() < m_nIterations)
    {
        // Not from inside the ranks' loop of StartIteration when nothing takes time.
        Simulator::ScheduleNow(&TrainingJob::StartIteration, this);
    }
}

Time
TrainingJob::GetIdealComputeTime() const
{
    // Without a Model full recomputation reruns the forward share of ComputeTime (the
    // program's split; with a Model it is in the slowest stage's compute).
    const Time rerun =
        !m_model && m_recompute == RECOMPUTE_FULL
            ? PicoSeconds(TrainingProgram::ForwardOf(m_resolvedCompute.GetPicoSeconds(),
                                                     m_backwardRatio))
            : Time(0);
    return m_resolvedCompute + rerun + m_optimizerTime;
}

Time
TrainingJob::GetMeanIterationTime() const
{
    if (m_iterations.empty())
    {
        return Time();
    }
    int64_t total = 0;
    for (const auto& it : m_iterations)
    {
        total += it.Duration().GetPicoSeconds();
    }
    return PicoSeconds(total / static_cast<int64_t>(m_iterations.size()));
}

double
TrainingJob::GetUtilization() const
{
    const Time mean = GetMeanIterationTime();
    return mean.IsStrictlyPositive() ? GetIdealComputeTime().GetSeconds() / mean.GetSeconds() : 0;
}

} // namespace ns3
