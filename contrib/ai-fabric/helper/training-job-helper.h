#ifndef AI_FABRIC_TRAINING_JOB_HELPER_H
#define AI_FABRIC_TRAINING_JOB_HELPER_H

#include "ns3/collective-helper.h"
#include "ns3/job-placement.h"
#include "ns3/packed-placement.h"
#include "ns3/training-job.h"

#include <array>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Places TrainingJobs on a fabric and wires their communicators.
 *
 * Install places the job's ranks (JobPlacement) on GPUs no installed job holds yet,
 * makes one CollectiveGroup per tensor, expert, data-parallel (EP x DP) and, with EP > 1,
 * expert-data-parallel (DP) group (those with collectives to run) and two per pair of
 * adjacent pipeline stages (activations forward, gradients back), prepares every collective
 * the job's programs run (so a request an algorithm refuses fails here, not mid-run), and
 * starts the job.  The job's queue pairs carry its TrafficClass.  Install RDMA on the
 * network first (RdmaHelper::Install).  A job with a Trace has its rank files and process
 * groups read here (ChakraTrace) into its TraceProgram; TraceNodes and TraceGroups give a
 * started job's programs as such traces.
 */
class TrainingJobHelper
{
  public:
    TrainingJobHelper();
    /** A TrainingJob attribute, e.g. "DataParallel". */
    void SetJobAttribute(const std::string& name, const AttributeValue& value);
    /** An Accelerator attribute, e.g. "SustainedFlops". */
    void SetAcceleratorAttribute(const std::string& name, const AttributeValue& value);
    /** How the job is placed (default PackedPlacement). */
    void SetPlacement(Ptr<JobPlacement> placement) { m_placement = placement; }
    /** The algorithm for the collectives along \p axis (default "auto" for every axis). */
    void SetAlgorithm(ParallelAxis axis, Ptr<CollectiveAlgorithm> algorithm);
    /** The GPUs of \p server compute \p factor times slower than nominal (replaces Slowdown). */
    void SetServerSlowdown(uint32_t server, double factor);
    /**
     * Place, wire and start a job with the attributes set so far on \p network, its queue
     * pairs made by \p rdma.  Streams \p stream (scattered placement) and \p stream + 1 (the
     * job's Slowdown) are used: kStreamsPerJob in all.  Throws std::invalid_argument for a
     * bad description, too few free GPUs, a map that does not fit, or a collective an
     * algorithm refuses.
     */
    Ptr<TrainingJob> Install(Ptr<FabricNetwork> network, const RdmaHelper& rdma, int64_t stream);

    /**
     * The process groups of \p job's traces: its tensor groups, then expert, data-parallel
     * (EP x DP) and with EP > 1 expert-data-parallel (DP) groups, those of more than one
     * rank, named 1, 2, ... (with DP = 1 an expert group and a data group hold the same ranks
     * under two names, as two process groups of PyTorch would).
     */
    static std::map<std::string, std::vector<uint32_t>> TraceGroups(Ptr<const TrainingJob> job);
    /**
     * Rank \p rank's program of \p job (started by Install) as Chakra trace nodes
     * (TraceProgram::FromOps), its collectives on the TraceGroups.  A job whose Trace and
     * ProcessGroups are such files runs the same iterations, up to the traces' whole
     * microseconds of compute.  Throws std::invalid_argument for a job with VirtualStages
     * above 1 (its transfers wrap from the last stage to the first, which traces cannot say).
     */
    static std::vector<TraceNode> TraceNodes(Ptr<const TrainingJob> job, uint32_t rank);

    /** Random streams one Install uses, from the stream it is given. */
    static constexpr int64_t kStreamsPerJob = 2;

  private:
    /** Read \p job's Trace and ProcessGroups into its TraceProgram. */
    static void ReadTrace(Ptr<TrainingJob> job);
    /**
     * A communicator over \p ranks (job ranks) for \p requests, running \p axis's algorithm;
     * errors name it the "\p what-parallel group".  Returns its group.
     */
    Ptr<CollectiveGroup> MakeGroup(Ptr<FabricNetwork> network, const RdmaHelper& rdma,
                                   Ptr<TrainingJob> job, const std::vector<uint32_t>& ranks,
                                   ParallelAxis axis, const std::string& what,
                                   const std::vector<JobRequest>& requests,
                                   TrainingJob::ScheduleList& schedules) const;
    /** Whether TraceGroups lists the groups of \p comm (those of two ranks or more). */
    static bool IsTraceListed(const ParallelLayout& layout, JobComm comm);

    ObjectFactory m_jobFactory;
    CollectiveHelper m_collectives;
    Ptr<JobPlacement> m_placement;
    std::array<Ptr<CollectiveAlgorithm>, 4> m_algorithms; //!< by ParallelAxis
    std::map<uint32_t, double> m_serverSlowdown;
};

} // namespace ns3

#endif
