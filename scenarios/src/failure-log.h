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
     * Follow \p installed; effects are judged for jobs on \p jobHosts ("job restart",
     * "rerouted", "degraded", "none"), or, with \p haveJobs false, for the fabric alone
     * ("hosts cut off" where a job would restart).
     */
    void Follow(const std::vector<ns3::FailureHelper::Installed>& installed,
                const std::set<uint32_t>& jobHosts, bool haveJobs);
    /** time_s,component,kind,mode,duration_s,effect (duration "inf": not repaired in the run). */
    void WriteCsv(std::ostream& os) const;
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
    };
    void Record(std::size_t process, const ns3::ComponentFailureProcess::Failure& f);

    std::vector<std::string> m_effects; //!< by followed process
    std::vector<std::string> m_kinds;   //!< by followed process
    std::vector<Row> m_rows;
};

} // namespace aifabric

#endif
