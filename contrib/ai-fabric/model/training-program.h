#ifndef AI_FABRIC_TRAINING_PROGRAM_H
#define AI_FABRIC_TRAINING_PROGRAM_H

#include "collective-schedule.h"
#include "parallel-layout.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** The communicators one rank of a training job uses. */
enum class JobComm : uint8_t
{
    TENSOR,          //!< its tensor-parallel group: per-layer all-reduces
    EXPERT,          //!< its expert-parallel group: MoE all-to-alls
    /**
     * Its data-parallel group, every replica of its dense parameters (the EP x DP ranks of
     * its tensor and pipeline coordinates; Megatron-LM's data-parallel group): gradient
     * buckets, ZeRO's parameter gather, FSDP's per-layer collectives.
     */
    DATA,
    ACTIVATION_SEND, //!< to the next pipeline stage (this rank is the root)
    ACTIVATION_RECV, //!< from the previous stage
    GRADIENT_SEND,   //!< to the previous stage (this rank is the root)
    GRADIENT_RECV,   //!< from the next stage
    /**
     * With EP > 1, its expert-data-parallel group, the DP replicas of its routed experts
     * (Megatron-LM's expert-data-parallel group): the experts' gradient buckets and ZeRO's
     * gather of them.  Last, so that the others keep their numbers.
     */
    EXPERT_DATA,
};
constexpr std::size_t kJobComms = 8;
const char* JobCommName(JobComm comm);
/** The communicators of collectives (not pipeline transfers), in the order jobs set them up. */
constexpr JobComm kCollectiveComms[] = {JobComm::TENSOR, JobComm::EXPERT, JobComm::DATA,
                                        JobComm::EXPERT_DATA};
/** Whether \p comm is a pipeline transfer (a send or a receive between stages). */
bool IsPipelineTransfer(JobComm comm);
/** Whether \p comm reduces gradients: DATA or EXPERT_DATA. */
bool IsGradientComm(JobComm comm);
/** The layout axes the groups of collective communicator \p comm span (DATA: EP and DP). */
std::vector<ParallelAxis> SpanOf(JobComm comm);
/** The axis whose algorithm runs \p comm's collectives (the gradients': DATA's). */
ParallelAxis AxisOf(JobComm comm);

/** One thing a rank does in an iteration, in program order. */
struct JobOp
{
    enum Kind : uint8_t
    {
        COMPUTE,    //!< busy on the GPU for \c picoseconds (before slowdown)
        COLLECTIVE, //!< run request \c request of communicator \c comm
        WAIT,       //!< until every collective this rank started has finished
    };
    enum Phase : uint8_t
    {
        FORWARD,
        BACKWARD,
        OPTIMIZER,
        TRACED, //!< a trace's node: no phase known
    };
    Kind kind;
    Phase phase;
    JobComm comm{JobComm::TENSOR};
    bool blocking{true}; //!< COLLECTIVE: the rank waits for it before its next op
    uint32_t request{0};
    uint32_t microBatch{0};
    int64_t picoseconds{0};
    /**
     * Collectives of the same program (by index) that must have finished before this op
     * starts: a trace's dependencies (TraceProgram); TrainingProgram's ops use blocking and
     * WAIT instead.
     */
    std::vector<uint32_t> after{};
    /**
     * A trace's collective may start ahead of its rank's program once the program has reached
     * op \c gate (its compute and free-transfer ancestors then finished); see TraceProgram.
     */
    uint32_t gate{0};

    static const char* PhaseName(Phase p);
};

/** A collective a program runs: what each member of the communicator calls. */
struct JobRequest
{
    CollectiveOperation op;
    uint64_t bytes;
    uint32_t elementBytes;
    uint32_t experts{0}; //!< an expert all-to-all's routed experts (0: no model gives them)
    uint32_t topK{0};    //!< an expert all-to-all's experts per token (0: not an expert one)
};

/**
 * Activation recomputation (Megatron-LM's --recompute-granularity; Korthikanti et al.,
 * "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023).
 */
enum Recompute
{
    RECOMPUTE_NONE,      //!< every activation kept
    RECOMPUTE_SELECTIVE, //!< the core attention (the s^2 part) recomputed in its backward
    RECOMPUTE_FULL,      //!< each layer's forward and its collectives rerun before its backward
};

/** The precision of a model's matrix products (TrainingJob's Precision). */
enum Precision
{
    PRECISION_BF16, //!< every product in BF16
    PRECISION_FP8,  //!< the transformer layers' linear layers in FP8 (Transformer Engine)
};

/** What a training iteration is made of, as TrainingJob's attributes give it. */
struct TrainingProgramSpec
{
    Time compute;              //!< forward + backward of every micro-batch, per rank
    double backwardRatio{2};   //!< backward compute / forward compute
    Time optimizer;            //!< the optimizer step, after the gradients are reduced
    uint32_t layers{1};
    /**
     * Per stage, its layers (summing to layers); empty: layers / pp each.  Megatron-LM's
     * first and last pipeline stages may hold fewer (its --decoder-first-pipeline-num-layers
     * and --decoder-last-pipeline-num-layers), as Llama 3 405B's do.
     */
    std::vector<uint32_t> stageLayers;
    /**
     * Megatron-LM's interleaved 1F1B: each stage holds this many model chunks of
     * layers / (pp x virtualStages) layers, chunk c of stage s being the model's (c pp + s)-th,
     * so activations pass from the last stage back to the first between chunks.  1: one chunk.
     */
    uint32_t virtualStages{1};
    uint32_t microBatches{1};
    uint32_t tp{1};
    uint32_t ep{1};
    uint32_t dp{1};
    uint32_t pp{1};
    uint32_t moeLayers{0};
    uint64_t activationBytes{0}; //!< one layer's output for one micro-batch
    uint32_t expertTopK{1};
    uint32_t experts{0};         //!< routed experts of the model (0: no model)
    uint64_t gradientBytes{0};   //!< per rank
    /**
     * Of gradientBytes, the routed experts': with ep > 1 reduced over the dp replicas of the
     * rank's experts (EXPERT_DATA), the rest over the ep x dp replicas of the dense
     * parameters (DATA); with ep = 1, or when this is 0, all over DATA.
     */
    uint64_t expertGradientBytes{0};
    uint32_t gradientElementBytes{4};
    uint64_t bucketBytes{0};
    bool overlap{true};
    /**
     * Per stage, the forward compute of one micro-batch for each half of its layers in order
     * (attention, MLP, attention, ...), ps, the output layer's in the last half of the last
     * stage; a half's backward is backwardRatio times it.  Empty: \c compute split evenly
     * over the micro-batches and halves.
     */
    std::vector<std::vector<int64_t>> stageHalves;
    Recompute recompute{RECOMPUTE_NONE};
    /**
     * Per stage, for each half as in stageHalves, the compute its backward recomputes, ps (a
     * model's: its core attention with SELECTIVE, the half's forward without the output
     * layer with FULL).  Empty: the half's forward with FULL, nothing otherwise.
     */
    std::vector<std::vector<int64_t>> stageRecompute;
    /** Per layer, whether it is mixture-of-experts; empty: moeLayers spread evenly. */
    std::vector<bool> moe;
    /**
     * Sequence parallelism: a tensor all-gather before each layer half and a reduce-scatter
     * after it, in place of the all-reduce; pipeline transfers of activationBytes / tp.
     */
    bool sequenceParallel{false};
    /**
     * ZeRO-1: gradient buckets reduce-scattered, not all-reduced, and after the optimizer the
     * updated parameters all-gathered (gradientBytes / gradientElementBytes elements of
     * parameterElementBytes).
     */
    bool distributedOptimizer{false};
    uint32_t parameterElementBytes{2};
    /**
     * FSDP (ZeRO-3): each layer's parameters (gradientBytes / gradientElementBytes elements
     * spread evenly over the stage's layers) all-gathered at parameterElementBytes before its
     * forward and again before its backward, the next layer's gather issued before this
     * layer's compute (PyTorch FSDP's implicit forward and backward-pre prefetching), and its
     * gradients reduce-scattered after its backward, every micro-batch; no gradient buckets.
     */
    bool fullySharded{false};

    /** Stage \p stage's layers. */
    uint32_t LayersOf(uint32_t stage) const;
    /** The model layer that is stage \p stage's \p index-th, its chunks in order. */
    uint32_t LayerOf(uint32_t stage, uint32_t index) const;
    /** The gradient bytes per rank gradient communicator \p comm reduces. */
    uint64_t GradientBytesOf(JobComm comm) const;
    /** The ranks of a group of gradient communicator \p comm: ep x dp for DATA, dp for EXPERT_DATA. */
    uint32_t ReplicasOf(JobComm comm) const;
    /** One chunk's share of \p bytes of gradients: bytes / virtualStages, whole elements. */
    uint64_t ChunkBytes(uint64_t bytes) const;
};

/**
 * \ingroup ai-fabric
 * \brief One pipeline stage's iteration as a sequence of compute and collective operations.
 *
 * Micro-batches run in the 1F1B order of Narayanan et al. (SC'21, Megatron-LM): stage s of p
 * runs min(p - s - 1, m) forwards, then alternates one forward and one backward, then drains
 * the remaining backwards.  With v virtual stages (the paper's interleaved schedule, in the
 * order of current Megatron-LM's forward_backward_pipelining_with_interleaving) the m v chunk
 * passes take the same shape with min(2 (p - s - 1) + (v - 1) p, m v) forwards first (older
 * versions ran all m v first when m = p: the same bubble), forward k being chunk
 * (k mod p v) / p of micro-batch (k / p v) p + k mod p, backward k its chunk v - 1 - that.
 * Each layer's forward and backward are two halves (attention, MLP), each followed by a
 * blocking tensor-parallel all-reduce of the activation (the paper's two all-reduces per layer
 * each way); a MoE layer's MLP half sits between two expert all-to-alls (dispatch and
 * combine).  A forward on a later stage (or chunk) first receives its activation; a backward
 * on an earlier one first receives its gradient; sends do not block.  Each chunk's gradients
 * (1/v of the rank's) are ready in buckets as its last micro-batch's backward proceeds (bucket
 * k once (k + 1) buckets' share of that backward is done, as Megatron-LM syncs a chunk's
 * gradients after its last micro-batch), and each bucket's all-reduce starts then if
 * overlapped, or all after the backward if not.  With expert parallelism the dense gradients
 * and the routed experts' are two such streams of buckets (Megatron-LM's separate dense and
 * expert gradient buffers), each spread over the backward by its own bytes, the dense ones
 * first at equal points, reduced over their own groups (DATA over EP x DP, EXPERT_DATA over
 * DP).  Recomputation adds to each backward half the core attention (selective) or reruns
 * each layer's forward, collectives included, before its backward (full).  The rank then
 * waits for all its collectives and runs the optimizer step.  With FSDP (fullySharded) each
 * layer's compute instead waits for its own parameter all-gather, started one layer ahead.
 */
class TrainingProgram
{
  public:
    /** Stage \p stage of \p spec (checked by TrainingJob). */
    TrainingProgram(const TrainingProgramSpec& spec, uint32_t stage);
    const std::vector<JobOp>& GetOps() const { return m_ops; }
    /** The collectives of \p comm that programs of \p spec run, by request index. */
    static std::vector<JobRequest> Requests(const TrainingProgramSpec& spec, JobComm comm);
    /** Part \p index of \p total picoseconds cut into \p parts: the parts sum to the total. */
    static int64_t Part(int64_t total, uint32_t parts, uint32_t index);
    /** The forward's share of \p total picoseconds of forward and backward compute. */
    static int64_t ForwardOf(int64_t total, double backwardRatio);
    /** The backward of a layer half whose forward takes \p forward picoseconds. */
    static int64_t BackwardOf(int64_t forward, double backwardRatio);

  private:
    /** Chunk \p chunk's forward of micro-batch \p microBatch. */
    void Forward(uint32_t microBatch, uint32_t chunk);
    /** Chunk \p chunk's backward of micro-batch \p microBatch. */
    void Backward(uint32_t microBatch, uint32_t chunk);
    /** The compute of half \p half of the stage's layers for micro-batch \p microBatch. */
    int64_t Half(JobOp::Phase phase, uint32_t microBatch, uint32_t half) const;
    /** The compute half \p half's backward recomputes for micro-batch \p microBatch. */
    int64_t Recomputed(uint32_t microBatch, uint32_t half) const;
    /**
     * Layer \p layer's forward (stage index) in \p phase: its two halves of \p attention
     * and \p mlp picoseconds with their tensor collectives and, if \p moe, the expert
     * all-to-alls; in the backward, full recomputation's rerun.
     */
    void LayerForward(JobOp::Phase phase, uint32_t microBatch, int64_t attention, int64_t mlp,
                      bool moe);
    /** Compute of \p ps; gradient buckets ready inside it are started there. */
    void Compute(JobOp::Phase phase, uint32_t microBatch, int64_t ps);
    void Collective(JobComm comm, uint32_t request, bool blocking, JobOp::Phase phase,
                    uint32_t microBatch);
    /** Before a layer half: with sequence parallelism, the tensor all-gather. */
    void TensorBefore(JobOp::Phase phase, uint32_t microBatch);
    /** After a layer half: the tensor all-reduce, or with sequence parallelism reduce-scatter. */
    void TensorAfter(JobOp::Phase phase, uint32_t microBatch);
    void ExpertAllToAll(JobOp::Phase phase, uint32_t microBatch);
    bool IsMoeLayer(uint32_t layer) const;
    /**
     * FSDP: before layer \p layer's ops, start layer \p prefetch's gather (if the stage has
     * it) and make the layer's first op wait for its own.
     */
    void WaitForGather(uint32_t layer, JobOp::Phase phase, uint32_t microBatch, uint32_t prefetch);
    /** FSDP: start layer \p layer's parameter all-gather (not blocking); remember its op. */
    void GatherLayer(uint32_t layer, JobOp::Phase phase, uint32_t microBatch);
    /** Start bucket \p index of gradient stream \p stream (not blocking). */
    void StartBucket(uint32_t stream, uint32_t index, JobOp::Phase phase, uint32_t microBatch);

    /** A gradient reduction: DATA's dense gradients, then with EP EXPERT_DATA's experts'. */
    struct GradientStream
    {
        JobComm comm;
        uint64_t chunkBytes;      //!< per chunk
        uint32_t buckets;         //!< per chunk
        bool remainder;           //!< the last bucket is smaller (the comm's request 1)
        uint32_t parameterGather; //!< ZeRO-1: the request of the parameters' all-gather; 0: none
    };
    /** A bucket ready in the last backward: at this point of its compute. */
    struct BucketReady
    {
        int64_t at;
        uint32_t stream;
        uint32_t index;
    };

    const TrainingProgramSpec& m_spec;
    uint32_t m_stage;
    uint32_t m_layers;     //!< the stage's layers
    uint32_t m_chunkLayers; //!< layers per chunk (m_layers without interleaving)
    int64_t m_forward;  //!< all micro-batches' forward compute, ps (without stageHalves)
    int64_t m_backward; //!< and backward
    // Which collectives the spec has, from Requests() once.
    bool m_tensor;
    bool m_expert;
    std::vector<GradientStream> m_streams; //!< none with FSDP or nothing to reduce
    std::vector<JobOp> m_ops;
    std::vector<uint32_t> m_gatherOp; //!< FSDP: per layer of the stage, its latest gather's op
    std::vector<uint32_t> m_waitFor;  //!< JobOp::after of the next op added
    // Gradient buckets during the last backward: their ready points in that backward's
    // compute (in order), and how far it has got.
    std::vector<BucketReady> m_bucketReady;
    std::size_t m_nextBucket{0};
    int64_t m_bucketClock{-1}; //!< compute done in the last backward, ps; -1 outside it
};

} // namespace ns3

#endif
