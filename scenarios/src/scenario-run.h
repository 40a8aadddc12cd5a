// Runs a Scenario and writes its results folder.
#ifndef AI_FABRIC_SCENARIO_RUN_H
#define AI_FABRIC_SCENARIO_RUN_H

#include "scenario.h"

#include <string>

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
    RunFigures Run(bool progress);
    /**
     * Write summary.json, links.csv, flows.csv, bom.csv (beside the PCAPs if enabled) into the
     * ".partial" folder, then rename it into place: the results folder is whole or absent.
     */
    void WriteResults(const std::string& version) const;
    /** Write a PCAP per host port into the results folder (call before Run). */
    void EnablePcap() { m_pcap = true; }

  private:
    /** One queue pair per flow, each message posted at its start time. */
    void InstallRdmaFlows();

    Scenario& m_scenario;
    ns3::Ptr<ns3::FabricNetwork> m_network;
    ns3::FabricStatsHelper m_stats;
    RunFigures m_figures;
    std::string m_out;
    std::string m_partial;
    bool m_pcap{false};
};

} // namespace aifabric

#endif
