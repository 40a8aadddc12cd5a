// The failures of a run, as failures.csv and the summary's "failures" block.
#ifndef AI_FABRIC_FAILURE_LOG_H
#define AI_FABRIC_FAILURE_LOG_H

#include "ns3/ai-fabric-module.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace aifabric
{

/** Follows failure processes and keeps one row per outage (each down of a flap is one). */
class FailureLog
{
  public:
    /**
     * Follow \p installed.  The effect the availability model assumes is judged for jobs on
     * \p jobHosts ("job restart", "rerouted", "degraded", "none"), or, with \p haveJobs
     * false, for the fabric alone ("hosts cut off" where a job would restart).  With
     * \p network (a packet-level run) each outage also records what happened in the run: the
     * frames its links lost (link down or corrupted) while it lasted, and which of \p jobs it
     * interrupted.
     */
    void Follow(const std::vector<ns3::FailureHelper::Installed>& installed,
                const std::set<uint32_t>& jobHosts,
                bool haveJobs,
                ns3::Ptr<ns3::FabricNetwork> network = nullptr,
                std::vector<ns3::Ptr<ns3::TrainingJob>> jobs = {});
    /**
     * time_s,component,kind,mode,duration_s,assumed_effect,frames_lost,jobs_interrupted
     * (duration "inf": not repaired in the run; the last two only at packet level).
     */
    void WriteCsv(std::ostream& os) const;
    /** Each row's frames lost so far on this process's ports (a packet-level run). */
    std::vector<uint64_t> LostPerRow() const;
    /** Write \p lost (every MPI rank's LostPerRow summed) as each row's frames_lost. */
    void SetLostPerRow(std::vector<uint64_t> lost) { m_mergedLost = std::move(lost); }
    /** Outages by kind and mode and by effect, and the components followed per kind. */
    nlohmann::json Summary() const;

  private:
    struct Row
    {
        ns3::Time start;
        ns3::Time duration;
        std::string component;
        std::string kind;
        std::string mode;
        std::size_t process;
        uint64_t lostBefore{0}; //!< its links' lost frames as it began
        uint64_t lostAfter{0};  //!< ... as it ended (or the run did)
        bool ended{false};
    };
    void Record(std::size_t process, const ns3::ComponentFailureProcess::Failure& f);
    void EndRow(std::size_t row);
    /** Frames lost so far (link down, corrupted) on the links of followed process \p p. */
    uint64_t LostFrames(std::size_t p) const;
    /** Jobs the outage of \p row interrupted, ';'-separated. */
    std::string Interrupted(const Row& row) const;

    std::vector<std::string> m_effects; //!< by followed process
    std::vector<std::string> m_kinds;   //!< by followed process
    std::vector<std::vector<uint32_t>> m_links; //!< by followed process
    std::vector<Row> m_rows;
    ns3::Ptr<ns3::FabricNetwork> m_network; //!< packet level: what happened is recorded
    std::vector<ns3::Ptr<ns3::TrainingJob>> m_jobs;
    std::vector<uint64_t> m_mergedLost; //!< SetLostPerRow's; empty: this process's own
};

} // namespace aifabric

#endif
