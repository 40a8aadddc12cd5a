#include "failure-log.h"

#include <iomanip>
#include <map>

using namespace ns3;
using json = nlohmann::json;

namespace aifabric
{

void
FailureLog::Follow(const std::vector<FailureHelper::Installed>& installed,
                   const std::set<uint32_t>& jobHosts, bool haveJobs)
{
    for (const auto& i : installed)
    {
        const std::size_t index = m_effects.size();
        std::string effect = FailureHelper::EffectOn(i, jobHosts);
        if (effect.empty())
        {
            effect = "none";
        }
        else if (!haveJobs && effect == "job restart")
        {
            effect = "hosts cut off";
        }
        m_effects.push_back(effect);
        m_kinds.push_back(i.component->kind);
        // A flap is logged down by down; other modes once per failure.
        const char* trace =
            i.process->GetMode() == ComponentFailureProcess::FLAP ? "FlapDown" : "Failed";
        i.process->TraceConnectWithoutContext(trace,
                                              MakeCallback(&FailureLog::Record, this).Bind(index));
    }
}

void
FailureLog::Record(std::size_t process, const ComponentFailureProcess::Failure& f)
{
    m_rows.push_back({f.start, f.duration, f.component, f.kind,
                      ComponentFailureProcess::ModeName(f.mode), process});
}

void
FailureLog::WriteCsv(std::ostream& os) const
{
    os << "time_s,component,kind,mode,duration_s,effect\n" << std::setprecision(12);
    for (const Row& r : m_rows)
    {
        os << r.start.GetSeconds() << ',' << r.component << ',' << r.kind << ',' << r.mode << ',';
        if (r.duration == Time::Max())
        {
            os << "inf";
        }
        else
        {
            os << r.duration.GetSeconds();
        }
        os << ',' << m_effects[r.process] << '\n';
    }
}

json
FailureLog::Summary() const
{
    std::map<std::string, uint64_t> byKindMode;
    std::map<std::string, uint64_t> byEffect;
    std::map<std::string, uint64_t> followed;
    for (const Row& r : m_rows)
    {
        ++byKindMode[r.kind + " " + r.mode];
        ++byEffect[m_effects[r.process]];
    }
    for (const auto& k : m_kinds)
    {
        ++followed[k];
    }
    return {{"outages", m_rows.size()},
            {"by_kind_and_mode", byKindMode},
            {"by_effect", byEffect},
            {"failure_processes_by_kind", followed},
            {"table", "failures.csv"}};
}

} // namespace aifabric
