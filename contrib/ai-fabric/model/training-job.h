#ifndef AI_FABRIC_TRAINING_JOB_H
#define AI_FABRIC_TRAINING_JOB_H

#include "accelerator.h"
#include "collective-application.h"
#include "fabric-control-path.h"
#include "parallel-layout.h"
#include "trace-program.h"
#include "training-program.h"
#include "transformer-model.h"

#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/** What a rank waits on when it is neither computing nor done (its exposed time). */
enum class Exposure : uint8_t
{
    TENSOR,   //!< a tensor-parallel collective
    EXPERT,   //!< an expert all-to-all
    PIPELINE, //!< the other stage: an activation or gradient not yet there (bubble and transfer)
    DATA,     //!< the gradient reduction (the end-of-backward wait) and ZeRO's parameter gather
};
constexpr std::size_t kExposures = 4;
/** "tensor", "expert", "pipeline", "data". */
const char* ExposureName(Exposure e);

/** One iteration of a job: when it ran, and its ranks' times averaged over the ranks. */
struct JobIteration
{
    uint32_t iteration{0};
    Time start;
    Time end; //!< when the barrier released the ranks: the slowest's finish + BarrierLatency
    Time compute;       //!< GPU busy computing (slowdowns included)
    Time communication; //!< some collective of the rank in progress
    Time exposed;       //!< neither computing nor done: waiting on collectives or other stages
    std::array<Time, kExposures> exposedBy; //!< exposed, by what was waited on (Exposure)
    Time barrier;       //!< done, waiting for the slowest rank
    Time maxBarrier;
    uint32_t lastRank{0}; //!< the rank that finished last (its finish ends the iteration)
    Time Duration() const { return end - start; }
};

/** One rank's part of an iteration; compute + exposed + barrier = the iteration's duration. */
struct JobRankIteration
{
    uint32_t iteration;
    uint32_t rank;
    Time compute;
    Time communication;
    Time exposed;
    Time finish;
    Time barrier;
    std::array<Time, kExposures> exposedBy; //!< exposed by Exposure: they sum to exposed
};

/** A span of one rank's work, for timelines. */
struct JobSpan
{
    uint32_t rank;
    JobOp::Kind kind; //!< COMPUTE or COLLECTIVE
    JobOp::Phase phase;
    JobComm comm; //!< COLLECTIVE
    uint32_t microBatch;
    uint64_t bytes; //!< COLLECTIVE
    Time start;
    Time end;
    /** COLLECTIVE: the schedule's algorithm, with auto's pick ("auto:tree/ll128/16ch"). */
    const std::string* algorithm{nullptr};
};

/**
 * \ingroup ai-fabric
 * \brief A data/tensor/pipeline/expert-parallel training job: iterations of compute and the
 * collectives its parallelism implies, on the ranks the TrainingJobHelper placed it on.
 *
 * Each rank runs its pipeline stage's TrainingProgram every iteration: compute occupies the
 * rank for its (slowed) time, collectives run as packets through the CollectiveApplications of
 * the rank's communicators (one per group, each running its collectives in order, like a NCCL
 * stream), blocking ones hold the rank until its part is done.  With a Trace, each rank runs
 * its execution trace instead (TraceProgram: an operation waits for the collectives it
 * depends on).  An iteration ends at a barrier: when the slowest rank has finished, every
 * rank starts the next, BarrierLatency later (each rank's notice that it finished crosses the
 * control path, FabricControlPath).  In a run split over MPI ranks each process runs its own
 * ranks and learns of the others' from those notices, which carry each rank's accounting, so
 * every process records the same iterations.
 *
 * Each GPU's compute is slowed by a factor drawn once from the Slowdown random variable (a
 * per-server override replaces it), as for a GPU that runs hot or throttles.
 */
class TrainingJob : public Object
{
  public:
    /** A communicator's schedules, by request index (TrainingProgram::Requests). */
    using ScheduleList = std::shared_ptr<const std::vector<std::shared_ptr<const CollectiveSchedule>>>;

    static TypeId GetTypeId();
    TrainingJob();
    ~TrainingJob() override;

    /**
     * Throw std::invalid_argument naming the attribute if the description is inconsistent
     * (degrees that do not multiply to Ranks, layers that do not split into stages, ...).
     */
    void Check() const;
    std::string GetName() const { return m_name; }
    uint32_t GetNRanks() const { return m_ranks; }
    /** The parallel degrees (DataParallel resolved). */
    ParallelLayout GetLayout() const;
    /** Model chunks per pipeline stage: above 1, transfers also run from the last to the first. */
    uint32_t GetVirtualStages() const { return m_virtualStages; }
    /** The iteration's description from the attributes (compute from FLOPs once placed). */
    TrainingProgramSpec GetProgramSpec() const;
    /**
     * The bytes each rank's gradient reductions cover: Parameters / (TP x PP) of them, the
     * routed experts' (a MoE Model's, or ExpertParameters) over ExpertParallel too.
     */
    uint64_t GetGradientBytes() const;
    /**
     * Of GetGradientBytes, the routed experts' when ExpertParallel > 1 (reduced over the
     * DataParallel replicas of the rank's experts; the dense rest over ExpertParallel x
     * DataParallel); 0 with ExpertParallel = 1 (all reduced together).
     */
    uint64_t GetExpertGradientBytes() const;
    uint8_t GetTrafficClass() const { return m_trafficClass; }
    /**
     * The collectives of \p comm the ranks run, by request index: the trace's if the job
     * has one, else TrainingProgram::Requests of GetProgramSpec().
     */
    std::vector<JobRequest> GetRequests(JobComm comm) const;
    /** The Trace attribute: the prefix of the rank files ("" when the job has none). */
    std::string GetTracePrefix() const { return m_tracePrefix; }
    /** The ProcessGroups attribute: the trace's process-group file ("" for none). */
    std::string GetProcessGroupsFile() const { return m_processGroups; }
    /** Run \p program's ranks instead of TrainingPrograms (the helper reads the Trace). */
    void SetTraceProgram(std::shared_ptr<const TraceProgram> program);
    /** Rank \p rank's operations (known once the job started). */
    const std::vector<JobOp>& GetOps(uint32_t rank) const { return *m_rankState[rank].ops; }

    /**
     * Rank \p rank runs on \p host (of \p server) with \p gpu; \p local: this process
     * simulates it (false: another MPI rank does, and tells this one when it finishes an
     * iteration, over the control path).
     */
    void SetRank(uint32_t rank, uint32_t host, uint32_t server, Ptr<Accelerator> gpu,
                 bool local = true);
    /**
     * The control path the ranks' barrier notices take (the network's; by default one of the
     * job's own, for a single process).
     */
    void SetControlPath(Ptr<FabricControlPath> path) { m_controlPath = path; }
    /** Rank \p rank's end of communicator \p comm: its application and the schedules. */
    void SetCommunicator(uint32_t rank, JobComm comm, Ptr<CollectiveApplication> app,
                         ScheduleList schedules);
    /** Replace the drawn slowdown of every GPU of \p server by \p factor (> 0). */
    void SetServerSlowdown(uint32_t server, double factor);
    /** Use \p stream for the Slowdown variable; returns the number of streams used (1). */
    int64_t AssignStreams(int64_t stream);
    /** Schedule the first iteration at StartTime (the helper calls it). */
    void Start();

    uint32_t GetHost(uint32_t rank) const { return m_rankState[rank].host; }
    /** The compute slowdown of rank \p rank's GPU (known once the job started). */
    double GetSlowdown(uint32_t rank) const { return m_rankState[rank].slowdown; }
    const std::vector<JobIteration>& GetIterations() const { return m_iterations; }
    const std::vector<JobRankIteration>& GetRankIterations() const { return m_rankIterations; }
    /**
     * Compute per rank per iteration at nominal speed: ComputeTime (with a Model, its slowest
     * stage's) + OptimizerTime.
     */
    Time GetIdealComputeTime() const;
    /** Mean iteration duration (zero before the first ends). */
    Time GetMeanIterationTime() const;
    /** Ideal compute time over mean iteration time: the fraction of the compute used. */
    double GetUtilization() const;
    /** SamplesPerIteration, or with a Model MicroBatchSize x MicroBatches x DP. */
    double GetSamplesPerIteration() const;
    /** TokensPerSample, or with a Model its sequence length. */
    double GetTokensPerSample() const;
    /** The model trained (null: the job is described by its numbers). */
    Ptr<const TransformerModel> GetModel() const { return m_model; }
    /**
     * With a Model, its FLOPs per iteration as MFU counts them: three forward passes (the
     * backward twice the forward, Kaplan et al.'s 6N per token) of every sample; else 0.
     */
    double GetModelFlopsPerIteration() const;
    /**
     * Model FLOPs utilization: GetModelFlopsPerIteration over Ranks x the GPU's PeakFlops x
     * the mean iteration time; 0 without a Model or an iteration.
     */
    double GetMfu() const;
    bool IsFinished() const { return m_iterations.size() == m_nIterations; }
    /**
     * Stop the job in the middle of its iteration because of \p cause (a failed GPU, or a
     * communicator whose queue pair exceeded its retry count): no rank does anything more.
     * The iteration in progress does not count; restarting is the availability model's.
     */
    void Interrupt(const std::string& cause);
    bool IsInterrupted() const { return m_interrupted; }
    /**
     * When the job is neither finished nor interrupted but nothing is left to simulate (a
     * trace whose ranks wait on each other in a cycle): which rank waits for what; else "".
     */
    std::string DescribeStall() const;
    Time GetInterruptionTime() const { return m_interruptedAt; }
    const std::string& GetInterruptionCause() const { return m_interruptionCause; }

  protected:
    void DoDispose() override;

  private:
    /** What a rank is waiting for, if anything. */
    enum Wait : uint8_t
    {
        NOTHING,     //!< computing or about to go on
        COLLECTIVE,  //!< a blocking collective
        ALL,         //!< every collective it started
        DEPENDENCY,  //!< a collective the next operation depends on (JobOp::after)
        ACTIVATION,  //!< a zero-byte activation from the previous stage
        GRADIENT,    //!< a zero-byte gradient from the next stage
        FINISHED,
    };
    struct Endpoint
    {
        Ptr<CollectiveApplication> app;
        ScheduleList schedules;
    };
    struct RankState
    {
        bool local{true}; //!< simulated by this process
        uint32_t host{0};
        uint32_t server{0};
        Ptr<Accelerator> gpu;
        double slowdown{1};
        uint32_t stage{0};
        const std::vector<JobOp>* ops{nullptr}; //!< its stage's program, or its trace's
        std::vector<bool> finished; //!< which of its ops finished this iteration (JobOp::after)
        std::vector<bool> issued;   //!< with a trace: which of its collectives started
        std::array<std::vector<uint32_t>, kJobComms> commOps; //!< with a trace: by communicator
        std::array<std::size_t, kJobComms> commNext{}; //!< the first of commOps maybe unstarted
        std::size_t dependency{0};  //!< the op it waits for (DEPENDENCY)
        std::array<Endpoint, kJobComms> comms;
        std::size_t pc{0};
        Wait wait{NOTHING};
        uint32_t outstanding{0};     //!< collectives started, not finished
        uint32_t outstandingData{0}; //!< of them, data-parallel ones
        uint32_t activationsReady{0}; //!< zero-byte pipeline transfers arrived, not consumed
        uint32_t gradientsReady{0};
        int64_t nominalDone{0};      //!< ps of compute done this iteration, before slowdown
        Time computeStart;
        // This iteration's accounting.
        Time compute;
        Time communication;
        uint32_t active{0};
        Time activeSince;
        Time finish;
        std::array<Time, kExposures> exposedBy;
        Exposure blockedOn{Exposure::DATA}; //!< while wait is not NOTHING
        Time blockedSince;
    };

    void StartIteration();
    /** Run rank \p r's program until it has to wait; with a trace, then IssueAhead. */
    void Advance(uint32_t r);
    void RunProgram(uint32_t r);
    /**
     * With a trace: start every collective of rank \p r past its program counter that is its
     * communicator's next and whose dependencies (JobOp::after, JobOp::gate) are met.
     */
    void IssueAhead(uint32_t r);
    /** IssueAhead on communicator \p c alone; whether it started anything. */
    bool IssueAheadOn(uint32_t r, std::size_t c);
    /** Start op \p index of rank \p r, a collective, on its communicator. */
    void Issue(uint32_t r, std::size_t index);
    void ComputeDone(uint32_t r, std::size_t op);
    void CollectiveDone(uint32_t r, std::size_t op, Time start, uint32_t memberRank);
    /**
     * Rank \p r's free transfer \p op: a send passes its token (true); a receive takes one if
     * it has arrived (true) or not (false).
     */
    bool TakeFreeTransfer(uint32_t r, const JobOp& op);
    /** A zero-byte pipeline transfer from rank \p r's op; the peer may go on. */
    void PassToken(uint32_t r, JobComm comm);
    void RankFinished(uint32_t r);
    /** Rank \p r's notice that it finished (finish, compute, communication, exposedBy in ps). */
    void RankReported(uint32_t r, const std::vector<int64_t>& notice);
    /** The rank of the stage a pipeline transfer of rank \p r on \p comm goes to or comes from. */
    uint32_t PeerStage(uint32_t r, JobComm comm) const;
    void EndIteration();
    /**
     * Rank \p r's communicator stopped: a queue pair of member \p member failed.  The job
     * stops at once, or with the control path in use when its notice arrives (RankFailed).
     */
    void CommunicatorFailed(uint32_t r, uint32_t member);
    /** Stop the job: rank \p r's queue pair exceeded its retry count. */
    void RankFailed(uint32_t r);
    /** The control path's notice of RankFailed(\p r). */
    void RankFailedNotice(uint32_t r, const std::vector<int64_t>&) { RankFailed(r); }
    const JobOp& OpAt(uint32_t r, std::size_t op) const;
    /** Check()'s rules for a job with a Trace. */
    void CheckTrace() const;
    /** Whether every op of \p ops has finished this iteration. */
    static bool Finished(const RankState& rs, const std::vector<uint32_t>& ops);
    /** Whether rank \p r may start \p op: every op it depends on has finished. */
    bool DependenciesMet(uint32_t r, const JobOp& op);
    /** A pipeline transfer of zero bytes: a dependency between stages, no packets. */
    bool IsFreeTransfer(const JobOp& op) const;
    /** Whether attribute \p name holds its default (the value its TypeId declares). */
    bool IsDefault(const std::string& name) const;
    // The description in force: the Model's where one is given, else the attributes.
    uint32_t Layers() const;
    uint32_t MoeLayers() const;
    uint32_t ExpertTopK() const;
    uint64_t Parameters() const;
    uint64_t ExpertParameters() const;
    uint64_t ActivationBytes() const;
    /**
     * Per stage, each layer half's forward compute of one micro-batch on \p gpu, ps, or if
     * \p recomputed what its backward recomputes (TrainingProgramSpec::stageRecompute).
     */
    std::vector<std::vector<int64_t>> ModelStageHalves(Ptr<Accelerator> gpu, bool recomputed) const;

    // Attributes.
    std::string m_name;
    uint32_t m_ranks;
    uint32_t m_tp;
    uint32_t m_ep;
    uint32_t m_dp;
    uint32_t m_pp;
    uint32_t m_nIterations;
    Time m_computeTime;
    double m_flops;
    double m_backwardRatio;
    Time m_optimizerTime;
    uint64_t m_parameters;
    uint64_t m_expertParameters;
    uint32_t m_gradientElementBytes;
    uint32_t m_layers;
    uint32_t m_microBatches;
    uint64_t m_activationBytes;
    uint32_t m_moeLayers;
    uint32_t m_firstStageLayers; //!< 0: as many as the other stages
    uint32_t m_lastStageLayers;  //!< 0: as many as the other stages
    uint32_t m_virtualStages;
    Recompute m_recompute;
    Precision m_precision;
    uint32_t m_expertTopK;
    uint64_t m_bucketBytes;
    bool m_overlap;
    Ptr<RandomVariableStream> m_slowdown;
    double m_samplesPerIteration;
    double m_tokensPerSample;
    uint8_t m_trafficClass;
    Time m_startTime;
    Time m_barrierLatency;
    bool m_sequenceParallel;
    bool m_distributedOptimizer;
    bool m_fullySharded;
    uint32_t m_parameterElementBytes;
    Ptr<TransformerModel> m_model;
    uint32_t m_microBatchSize;
    uint32_t m_activationElementBytes;

    std::map<uint32_t, double> m_serverSlowdown;
    Time m_resolvedCompute; //!< ComputeTime, Flops at rank 0's GPU's rate, or the Model's slowest stage
    std::vector<std::vector<int64_t>> m_stageHalves; //!< with a Model (TrainingProgramSpec)
    std::vector<std::vector<int64_t>> m_stageRecompute; //!< with a Model and Recompute
    double m_peakFlops{0};  //!< rank 0's GPU's
    TrainingProgramSpec m_spec;
    std::vector<std::unique_ptr<TrainingProgram>> m_programs; //!< by stage
    std::string m_tracePrefix;
    std::string m_processGroups;
    std::shared_ptr<const TraceProgram> m_trace;
    std::vector<std::vector<JobOp>> m_traceOps; //!< by rank, with a trace
    std::vector<RankState> m_rankState;
    std::vector<JobIteration> m_iterations;
    std::vector<JobRankIteration> m_rankIterations;
    Time m_iterationStart;
    uint32_t m_ranksLeft{0};
    Ptr<FabricControlPath> m_controlPath;
    int64_t m_barrierHandler{-1}; //!< the control path's handler of the notices; -1: direct
    uint32_t m_failureHandler{0}; //!< its handler of RankFailed notices (with m_barrierHandler)

    TracedCallback<const JobSpan&> m_spanTrace;
    TracedCallback<const JobIteration&> m_iterationTrace;
    bool m_interrupted{false};
    Time m_interruptedAt;
    std::string m_interruptionCause;
    TracedCallback<const std::string&> m_interruptedTrace; //!< the cause
};

} // namespace ns3

#endif
