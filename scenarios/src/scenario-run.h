// Runs a Scenario and writes its results folder.
#ifndef AI_FABRIC_SCENARIO_RUN_H
#define AI_FABRIC_SCENARIO_RUN_H

#include "scenario.h"

#include <ostream>
#include <chrono>
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
    /** Run \p scenario; results go to \p outDir (built in outDir + ".partial"). */
    ScenarioRun(Scenario& scenario, const std::string& outDir);
    /** Build the fabric and install the traffic; bad input throws std::invalid_argument. */
    void Install();
    /** Run the installed scenario to its end. */
    RunFigures Run(bool progress);
    /** Why the run stopped early on bad input (a sweep size the algorithm refuses), or "". */
    const std::string& GetFailure() const { return m_failure; }
    /**
     * Write summary.json, links.csv, flows.csv, bom.csv (beside the PCAPs if enabled) into the
     * ".partial" folder, then rename it into place: the results folder is whole or absent.
     */
    void WriteResults(const std::string& version) const;
    /** Write a PCAP per host port into the results folder (call before Run). */
    void EnablePcap() { m_pcap = true; }
    /** The collective section's runs (each size x iteration), in order. */
    const std::vector<ns3::CollectiveResult>& CollectiveResults() const { return m_collectives; }
    /**
     * The nccl-tests table of the collective runs: per size the mean time over iterations,
     * algbw = bytes / time and busbw = algbw x the operation's factor (GB/s = 1e9 B/s).
     */
    void WriteCollectiveTable(std::ostream& os) const;

  private:
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
    void WriteCollectives(std::ostream& os) const;
    /** Chrome trace JSON: one process per rank, spans laid out on non-overlapping lanes. */
    void WriteTimeline(std::ostream& os) const;
    nlohmann::json CollectiveSummary() const;
    /** One queue pair per flow, each message posted at its start time. */
    void InstallRdmaFlows();

    Scenario& m_scenario;
    ns3::Ptr<ns3::FabricNetwork> m_network;
    ns3::FabricStatsHelper m_stats;
    RunFigures m_figures;
    std::chrono::steady_clock::time_point m_wallStart;
    std::string m_failure;
    std::string m_out;
    std::string m_partial;
    bool m_pcap{false};

    ns3::Ptr<ns3::CollectiveGroup> m_group;
    ns3::Ptr<ns3::CollectiveAlgorithm> m_algorithm;
    std::size_t m_nextRun{0};
    std::vector<ns3::CollectiveResult> m_collectives;
    std::vector<TimelineStep> m_timeline;
    uint64_t m_steps{0}; //!< steps executed in all
};

} // namespace aifabric

#endif
