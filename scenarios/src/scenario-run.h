// Runs a Scenario and writes its results folder.
#ifndef AI_FABRIC_SCENARIO_RUN_H
#define AI_FABRIC_SCENARIO_RUN_H

#include "failure-log.h"
#include "results-folder.h"
#include "run-estimate.h"
#include "scenario-distributed.h"
#include "scenario.h"

#include "ns3/fabric-pcap-helper.h"

#include <ostream>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace aifabric
{

/** Figures of a finished run. */
struct RunFigures
{
    double wallSeconds{0};
    double simulatedSeconds{0};
    uint64_t events{0};
    uint64_t framesForwarded{0}; //!< data frames switches put on an egress queue
    uint64_t framesDelivered{0};
    uint64_t payloadDelivered{0};
    uint64_t framesDropped{0};
    uint64_t framesTrimmed{0}; //!< data frames switches cut to their headers (Trimming)
    uint32_t flowsComplete{0};
    uint32_t flows{0};
    double maxFctUs{0};
    uint64_t switchBufferPeak{0}; //!< largest occupancy any switch's buffer reached, bytes
    bool rdma{false};             //!< hosts carry RDMA NICs (flows or collectives)
    uint32_t queuePairs{0};
    ns3::RdmaQpCounters rdmaTotals; //!< every queue pair's counters, summed
};

/**
 * Instantiates a scenario in ns-3, runs it (reporting progress on stderr for runs longer than
 * a few seconds when \p progress), and writes the results folder.
 */
class ScenarioRun
{
  public:
    /** Run \p scenario. */
    explicit ScenarioRun(Scenario& scenario);
    /** Removes a rank's private PCAP folder (see EnablePcap). */
    ~ScenarioRun();
    ScenarioRun(const ScenarioRun&) = delete;
    ScenarioRun& operator=(const ScenarioRun&) = delete;
    /**
     * Simulate only this rank's part of the fabric (call before Install); Run then merges every
     * rank's figures and rows at rank 0, which alone writes the results folder.
     */
    void SetDistribution(const Distribution& d, std::vector<uint32_t> rankOfNode);
    /** Build the fabric and install the traffic; bad input throws std::invalid_argument. */
    void Install();
    /** Run the installed scenario to its end. */
    RunFigures Run(bool progress, const RunEstimate* estimate = nullptr);
    /** Why the run stopped early on bad input (a sweep size the algorithm refuses), or "". */
    const std::string& GetFailure() const { return m_failure; }
    /**
     * Write summary.json, links.csv, flows.csv, bom.csv (beside the PCAPs if enabled) into
     * \p folder and commit it: the results folder is whole or absent (ResultsWriteError).
     */
    void WriteResults(ResultsFolder& folder, const std::string& version) const;
    /**
     * Write the scenario's PCAPs (its pcap section) into \p folder (call before Install).  Split
     * over MPI ranks, rank 0 gives its staging folder and every other rank an empty path: it
     * captures its ports into a private temporary folder, and rank 0 gathers the files.
     */
    void EnablePcap(const std::filesystem::path& folder);
    /** The collective section's runs (each size x iteration), in order. */
    const std::vector<ns3::CollectiveResult>& CollectiveResults() const { return m_collectives; }
    /**
     * The nccl-tests table of the collective runs: per size the mean time over iterations,
     * algbw = bytes / time and busbw = algbw x the operation's factor (GB/s = 1e9 B/s).
     */
    void WriteCollectiveTable(std::ostream& os) const;
    ns3::Ptr<ns3::FabricNetwork> GetNetwork() const { return m_network; }
    /** The training jobs, in the order of the scenario's "jobs". */
    const std::vector<ns3::Ptr<ns3::TrainingJob>>& Jobs() const { return m_jobs; }
    /** Per job: iterations run, mean iteration time and utilization, as a table. */
    void WriteJobTable(std::ostream& os) const;

  private:
    /** Figures summed (or maxed) over ranks, collective runs and CSV rows merged, at rank 0. */
    void MergeRanks();
    /** The pcap section's captures; a rank that cannot capture stops every rank. */
    void InstallPcaps();
    /** Every rank's PCAPs to rank 0 (m_rankPcaps); a problem on any rank stops every rank. */
    void GatherPcaps();
    /** A finished step and the collective run it belongs to, for the timeline. */
    struct TimelineStep
    {
        uint32_t run;
        ns3::CollectiveStepRecord step;
    };
    void InstallCollective();
    void RunNextCollective();
    void CollectiveDone(const ns3::CollectiveResult& result);
    void RecordStep(const ns3::CollectiveStepRecord& step);
    void RankRunDone(uint32_t rank, ns3::Time start, ns3::Time finish);
    /** collective.launch "stream": queue every run on every rank now. */
    void QueueCollectives();
    void QueuedCollectiveDone(std::size_t run, const ns3::CollectiveResult& result);
    void WriteCollectives(std::ostream& os) const;
    /** Chrome trace JSON: one process per rank, spans laid out on non-overlapping lanes. */
    void WriteTimeline(std::ostream& os) const;
    nlohmann::json CollectiveSummary() const;
    void InstallJobs();
    void RecordSpan(uint32_t job, const ns3::JobSpan& span);
    void WriteIterations(std::ostream& os) const;
    void WriteRankIterations(std::ostream& os) const;
    /** Chrome trace JSON: one process per job rank, compute and one thread per communicator. */
    void WriteJobTimeline(std::ostream& os) const;
    nlohmann::json TrainingSummary() const;
    /**
     * One queue pair per flow (at fidelity "flow", a message source's too: a flow-level one
     * without ACKs), each message posted at its start time.
     */
    void InstallQueuePairFlows();
    /**
     * Record that \p consumer's random variables use the \p count streams from m_nextStream
     * (what its AssignStreams returned), and move m_nextStream past them.
     */
    void TakeStreams(const std::string& consumer, int64_t count);
    /** The failures section at packet level: processes on the channels, logged. */
    void InstallFailures();

    Scenario& m_scenario;
    ns3::Ptr<ns3::FabricNetwork> m_network;
    ns3::FabricStatsHelper m_stats;
    ns3::Ptr<ns3::FabricMonitor> m_monitor; //!< with a monitor section
    RunFigures m_figures;
    std::chrono::steady_clock::time_point m_wallStart;
    std::string m_failure;
    bool m_pcap{false};
    std::filesystem::path m_pcapFolder;
    bool m_pcapPrivate{false}; //!< m_pcapFolder is this rank's own, removed by ~ScenarioRun
    ns3::FabricPcapHelper m_pcapHelper;
    std::vector<std::pair<std::string, std::string>> m_rankPcaps; //!< others': name, bytes

    ns3::Ptr<ns3::CollectiveGroup> m_group;
    ns3::Ptr<ns3::CollectiveAlgorithm> m_algorithm;
    std::size_t m_nextRun{0};
    std::vector<ns3::CollectiveResult> m_collectives;
    std::vector<TimelineStep> m_timeline; //!< followed only while timeline.json may be written
    bool m_timelineFull{false};           //!< more steps than the cap: m_timeline released
    std::vector<uint32_t> m_rankRuns;     //!< per collective rank: runs it has finished
    uint64_t m_steps{0}; //!< steps executed in all (the ranks' counts, after the run)

    struct TimelineSpan
    {
        uint32_t job;
        ns3::JobSpan span;
    };
    std::vector<ns3::Ptr<ns3::TrainingJob>> m_jobs;
    std::vector<TimelineSpan> m_spans;
    uint64_t m_nSpans{0}; //!< spans traced in all

    FailureLog m_failureLog;
    int64_t m_nextStream{0};   //!< the first random stream no consumer has taken yet
    nlohmann::json m_streams;  //!< the plan: consumer, first stream, count

    Distribution m_distribution;
    ns3::Time m_lastDelivery;   //!< over all ranks
    std::string m_mergedLinks;  //!< links.csv rows of all ranks (distributed run, rank 0)
    std::vector<uint64_t> m_peakRssKb; //!< per MPI rank (one in a single-process run)
    std::vector<uint64_t> m_eventsPerRank; //!< distributed run, rank 0
    uint32_t m_cutLinks{0};                //!< links between ranks
    ns3::Time m_lookahead;                 //!< the shortest cut link's delay
};

} // namespace aifabric

#endif
