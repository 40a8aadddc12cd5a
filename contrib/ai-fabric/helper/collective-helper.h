#ifndef AI_FABRIC_COLLECTIVE_HELPER_H
#define AI_FABRIC_COLLECTIVE_HELPER_H

#include "ns3/collective-algorithm.h"
#include "ns3/collective-application.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-helper.h"

#include <memory>
#include <set>
#include <tuple>
#include <vector>

namespace ns3
{

/** How one collective went: what ran and when it started and ended (all ranks). */
struct CollectiveResult
{
    std::string algorithm; //!< as the schedule names it, e.g. "auto:ring"
    CollectiveOperation op{ALL_REDUCE};
    uint64_t bytes{0};
    uint32_t ranks{0};
    Time start;
    Time end; //!< when the last rank finished, or when a rank failed
    bool failed{false}; //!< a rank's queue pair exceeded its retry count: the collective stopped
    Time predicted;     //!< NCCL's cost model's time for auto's pick (zero: none)
    Time Duration() const { return end - start; }
};

/**
 * \ingroup ai-fabric
 * \brief The ranks of a collective job on a fabric (a communicator): one CollectiveApplication
 * and Accelerator per rank, and the RDMA connections its schedules need, made on first use.
 *
 * Run reports a collective when its last rank has finished: at once, or with a BarrierLatency
 * (and in any run split over MPI ranks) when the last of the ranks' notices that they finished
 * arrives over the network's control path (FabricControlPath), which carries each rank's start
 * and finish so that every process reports the same result.
 */
class CollectiveGroup : public Object
{
  public:
    using ResultCallback = Callback<void, const CollectiveResult&>;

    static TypeId GetTypeId();

    /** GPU ranks (the group's NVLS engines, if any, are ranks after them). */
    uint32_t GetNRanks() const { return static_cast<uint32_t>(m_hosts.size()); }
    /** NVLS engine ranks: one per server of the group whose NVSwitch has an engine. */
    uint32_t GetNEngines() const { return static_cast<uint32_t>(m_engines.size()); }
    uint32_t GetHost(uint32_t rank) const { return m_hosts[rank]; }
    /** Rank \p rank's application (null if another MPI rank simulates its host). */
    Ptr<CollectiveApplication> GetApplication(uint32_t rank) const { return m_apps[rank]; }
    /**
     * A request for \p op of \p bytes over this group, with its placement (each rank's server
     * and GPU index) and the tuner's view of the servers: rank 0's NIC and NVLink rates.
     */
    CollectiveRequest MakeRequest(CollectiveOperation op, uint64_t bytes) const;
    /**
     * Build \p request with \p algorithm (throws std::invalid_argument if it cannot run it)
     * and connect the rank pairs it needs.  Each rank runs it when given it
     * (GetApplication(rank)->Execute), so ranks may join at different times, as in NCCL.  In a
     * distributed run the schedule holds the steps of this process's ranks only
     * (CollectiveRequest::simulatedRanks).
     */
    std::shared_ptr<const CollectiveSchedule> Prepare(Ptr<CollectiveAlgorithm> algorithm,
                                                      const CollectiveRequest& request);
    /**
     * Prepare \p request and run it on every rank now; \p done is called when the last rank
     * has finished (BarrierLatency later), or (with failed set, ending when the rank failed)
     * when a rank of the group fails (with notices in use, when the failure's notice arrives).
     * Throws std::invalid_argument if BarrierLatency is below the control path's least.  The
     * control path calls the group back: keep it (a Ptr) until the simulation ends.
     */
    std::shared_ptr<const CollectiveSchedule> Run(Ptr<CollectiveAlgorithm> algorithm,
                                                  const CollectiveRequest& request,
                                                  ResultCallback done = ResultCallback());
    /**
     * Prepare \p request and queue it on every rank behind the work it was given before: each
     * rank begins it when it has finished its earlier collectives, as launches on one CUDA
     * stream do (nccl-tests' timing loop).  The result runs from the first rank's start to the
     * last rank's finish.  In a distributed run, Queue covers this process's ranks (Run waits
     * for every rank's notice).
     */
    std::shared_ptr<const CollectiveSchedule> Queue(Ptr<CollectiveAlgorithm> algorithm,
                                                    const CollectiveRequest& request,
                                                    ResultCallback done = ResultCallback());
    /** Queue pairs connected so far (two per connection). */
    uint32_t GetNQueuePairs() const { return m_queuePairs; }

  protected:
    void DoDispose() override;

  private:
    friend class CollectiveHelper;
    struct Running
    {
        CollectiveResult result;
        uint32_t ranksLeft;
        ResultCallback done;
        bool reported{false};
        uint64_t id{0};      //!< with notices: the group's barrier runs, numbered alike everywhere
        bool noticed{false}; //!< its ranks' finishes come as control-path notices
        Time latency;        //!< their latency (BarrierLatency at launch)
    };
    std::shared_ptr<const CollectiveSchedule> Launch(Ptr<CollectiveAlgorithm> algorithm,
                                                     const CollectiveRequest& request,
                                                     ResultCallback done,
                                                     bool fromRankStarts);
    void Connect(const CollectiveSchedule& schedule);
    void RankDone(std::shared_ptr<Running> running, uint32_t rank);
    /** Rank \p rank finished \p running: it started at \p start. */
    void Finished(const std::shared_ptr<Running>& running, Time start);
    /** A rank's notice that it finished: the run's id, the rank's start and finish (ps). */
    void DoneNotice(uint32_t rank, const std::vector<int64_t>& notice);
    /** Whether Run's collectives wait for notices: a BarrierLatency, or a distributed run. */
    bool UsesNotices() const;
    /** Register the control-path handlers (at Install, in every process alike). */
    void AddHandlers();
    /**
     * A rank stopped on a failed queue pair: every running collective fails, at once, or
     * with notices in use when the failure's notice arrives (FailedNotice); later launches
     * fail at once.
     */
    void RankFailed(uint32_t rank);
    /** Rank \p rank's notice that it failed (at the time the notice holds, ps). */
    void FailedNotice(uint32_t rank, const std::vector<int64_t>& notice);
    /** Fail every running collective, ending at \p when, and every later launch. */
    void FailRuns(uint32_t rank, Time when);

    Ptr<FabricNetwork> m_network;
    RdmaHelper m_rdma;
    /** The endpoint of rank \p rank: its GPU's host, or its engine. */
    uint32_t EndpointOf(uint32_t rank) const
    {
        return rank < m_hosts.size() ? m_hosts[rank] : m_engines[rank - m_hosts.size()];
    }

    std::vector<uint32_t> m_hosts; //!< by rank
    std::vector<uint32_t> m_engines;       //!< endpoint ids of the engine ranks
    std::vector<uint32_t> m_engineServers; //!< their servers
    std::vector<Ptr<CollectiveApplication>> m_apps;
    std::vector<std::shared_ptr<Running>> m_runs; //!< Run()s and Queue()s not reported yet
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> m_connected; //!< (rank, rank, channel)
    uint32_t m_queuePairs{0};
    Time m_barrierLatency;
    uint64_t m_barrierLaunches{0}; //!< Run()s launched with notices so far
    bool m_failed{false};          //!< a rank stopped on a failed queue pair
    uint32_t m_doneHandler{0};   //!< the control path's handler of DoneNotice
    uint32_t m_failedHandler{0}; //!< and of FailedNotice
};

/**
 * \ingroup ai-fabric
 * \brief Puts an Accelerator (if the host has none) and a CollectiveApplication on each rank's
 * host and returns the group.  Install RDMA on the network first (RdmaHelper::Install).
 */
class CollectiveHelper
{
  public:
    CollectiveHelper();
    /** An Accelerator attribute, e.g. "ReductionRate". */
    void SetAcceleratorAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Rank i runs on host \p hosts[i]; connections use \p rdma's queue-pair attributes.
     * Throws std::invalid_argument for an unknown or repeated host or fewer than 2 ranks.
     */
    Ptr<CollectiveGroup> Install(Ptr<FabricNetwork> network, const RdmaHelper& rdma,
                                 const std::vector<uint32_t>& hosts) const;
    /**
     * The Accelerator of \p host, made with this helper's attributes and aggregated to the
     * node if it has none yet.
     */
    Ptr<Accelerator> InstallAccelerator(Ptr<FabricNetwork> network, uint32_t host) const;

  private:
    /** The accelerator of NVLS engine \p engine: reducing and copying at its link's rate. */
    Ptr<Accelerator> InstallEngineAccelerator(Ptr<FabricNetwork> network, uint32_t engine) const;
    ObjectFactory m_acceleratorFactory;
};

} // namespace ns3

#endif
