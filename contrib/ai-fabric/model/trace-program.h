#ifndef AI_FABRIC_TRACE_PROGRAM_H
#define AI_FABRIC_TRACE_PROGRAM_H

#include "accelerator.h"
#include "parallel-layout.h"
#include "training-program.h"

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * One node of a rank's execution trace as a job runs it: what an MLCommons Chakra node says
 * that matters here (ChakraTrace reads them from files).
 */
struct TraceNode
{
    enum Kind : uint8_t
    {
        ORDER,      //!< takes no time: a metadata node, or a host (CPU) operation
        COMPUTE,    //!< GPU work of durationMicros, or of flops when the duration is 0
        COLLECTIVE, //!< op of bytes on process group group
        SEND,       //!< bytes to rank peer
        RECV,       //!< bytes from rank peer
    };
    uint64_t id{0};
    std::string name;
    Kind kind{ORDER};
    std::vector<uint64_t> parents; //!< its data and control dependencies (node ids)
    uint64_t durationMicros{0};
    double flops{0};
    CollectiveOperation op{ALL_REDUCE};
    uint64_t bytes{0};
    std::string group; //!< "" or "0": every rank of the job
    uint32_t peer{0};
};

/**
 * \ingroup ai-fabric
 * \brief Every rank's program from its execution trace, on a job's communicators.
 *
 * A rank's nodes run in one order: the lowest id among the nodes whose parents are all
 * placed (the issue order of Chakra's reference feeder), each node waiting for its parents to
 * finish.  Compute nodes run one at a time on the GPU, for their duration (or their FLOPs at
 * the GPU's sustained rate when the duration is 0); a collective, send or receive starts once
 * its parents have finished, runs on its communicator in the order of issue, and holds up
 * only the nodes that depend on it.  ORDER nodes take no time: their children wait for their
 * parents instead.  The rank is done when every node has finished.
 *
 * Process groups map onto the job's layout: a collective's group must be the rank's tensor,
 * expert, data (EP x DP) or expert-data (DP) group (the world only where it is one of them;
 * a group of one rank costs nothing; with DP = 1, where the expert and data groups hold the
 * same ranks, a process group the rank runs an all-to-all on is the expert one, every
 * collective on it included), a send must go to the next or previous pipeline stage and a
 * receive come from it, and every member must issue the same sequence of operations and
 * sizes on each
 * communicator, as NCCL requires.  Anything else is refused with std::invalid_argument
 * naming the rank and node.
 */
class TraceProgram
{
  public:
    /** Element sizes the collectives of each communicator cut their pieces at. */
    struct ElementBytes
    {
        uint32_t gradient{4};  //!< data and expert-data all-reduces and reduce-scatters
        uint32_t parameter{2}; //!< data and expert-data all-gathers
    };

    /**
     * Rank r's program from \p nodes[r]; \p groups maps a process group's name to its ranks.
     * Throws std::invalid_argument on a trace the job cannot run.
     */
    TraceProgram(const std::vector<std::vector<TraceNode>>& nodes, const ParallelLayout& layout,
                 const std::map<std::string, std::vector<uint32_t>>& groups, ElementBytes element);

    /** Rank \p rank's operations, its compute timed on \p gpu (JobOp::after gives the order). */
    std::vector<JobOp> GetOps(uint32_t rank, Ptr<const Accelerator> gpu) const;
    /** The collectives of \p comm, by request index (one list for the four pipeline ways). */
    const std::vector<JobRequest>& GetRequests(JobComm comm) const;
    /** The id of the node op \p op of rank \p rank runs (0 for the final wait). */
    uint64_t GetNodeId(uint32_t rank, std::size_t op) const { return m_ops[rank][op].node; }
    /** Whether every send and receive has zero bytes: stages wait for each other, no packets. */
    bool HasFreeTransfers() const { return m_freeTransfers; }

    /**
     * Rank \p rank's operations \p ops as trace nodes of ids 1, 2, ...: each depends on the
     * operations it waits for in the program (a blocking collective, the compute before it,
     * every collective before a WAIT).  \p requests gives each communicator's collectives,
     * \p peers the pipeline neighbours (previous, next), \p groups each communicator's
     * process-group name.  The inverse of the constructor for TrainingProgram's programs.
     */
    static std::vector<TraceNode> FromOps(const std::vector<JobOp>& ops,
                                          const std::array<std::vector<JobRequest>, kJobComms>& requests,
                                          std::pair<uint32_t, uint32_t> peers,
                                          const std::array<std::string, kJobComms>& groups);

  private:
    struct Op
    {
        JobOp op;
        double flops{0};
        uint64_t micros{0};
        uint64_t node{0}; //!< the trace node's id
    };
    /** Rank \p r's nodes in issue order, ORDER nodes folded into their children. */
    void Build(uint32_t r, const std::vector<TraceNode>& nodes, const ParallelLayout& layout,
               const std::map<std::string, std::vector<uint32_t>>& groups, ElementBytes element);
    /**
     * Rank \p r's nodes (positions in \p nodes, \p index from id to position) in issue order:
     * the lowest id among those whose parents are all placed, as Chakra's reference feeder
     * orders them; a parent not in the trace is an error; nodes on or behind a cycle are left
     * out.
     */
    static std::vector<uint32_t> IssueOrder(uint32_t r, const std::vector<TraceNode>& nodes,
                                            const std::unordered_map<uint64_t, uint32_t>& index);
    /**
     * Node \p n of rank \p r as operation \p o (kind, communicator, request); false if it
     * becomes no operation (an ORDER node, a collective of a one-rank group).  \p allToAll:
     * the process groups the rank runs an all-to-all on.
     */
    bool Convert(uint32_t r, const TraceNode& n, const ParallelLayout& layout,
                 const std::map<std::string, std::vector<uint32_t>>& groups, ElementBytes element,
                 const std::set<std::string>& allToAll, Op& o);
    /**
     * The communicator a collective node of rank \p r runs on: the first whose group of the
     * rank holds the node's process group's ranks, the expert one before the data one for a
     * process group in \p allToAll, after it otherwise.
     */
    JobComm CommOf(uint32_t r, const TraceNode& n, const ParallelLayout& layout,
                   const std::map<std::string, std::vector<uint32_t>>& groups,
                   const std::set<std::string>& allToAll) const;
    uint32_t Request(JobComm comm, const JobRequest& request);
    /** Every member of every group issued the same operations on it. */
    void CheckMatched(const ParallelLayout& layout) const;

    std::vector<std::vector<Op>> m_ops; //!< by rank
    std::array<std::vector<JobRequest>, kJobComms> m_requests;
    bool m_freeTransfers{true};
    bool m_anyTransfer{false};
};

} // namespace ns3

#endif
