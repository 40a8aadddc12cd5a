// The "availability" section: the training job's long-horizon run under its failures.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** The longest horizon: room for events past it before ns-3's clock ends (106 days). */
const std::string kMaxHorizon = "100d";
const TimeKey kHorizon{"horizon", "30d", "Wall time each run covers (at most " + kMaxHorizon + ")."};
const IntegerKey kRuns{"runs", 1, 1, 10000, "Independent runs (seeds) averaged."};

/** The availability section's keys: JobAvailabilityModel's, the measured faults' and the run's. */
SectionSchema
AvailabilitySchema(AvailabilitySpec& v)
{
    SectionSchema schema("availability");
    schema.Bind(JobAvailabilityModel::GetTypeId(),
                [&v](const std::string& n, const AttributeValue& value) { v.model.Set(n, value); });
    // The measured states' fault is the failure mode's: its attributes, ranges and defaults.
    for (const char* attribute : {"BitErrorRate", "RateFraction"})
    {
        schema.BindAs(SectionSchema::SnakeCase(attribute), ComponentFailureProcess::GetTypeId(),
                      attribute, [&v](const std::string& n, const AttributeValue& value) {
                          v.failureMode.Set(n, value);
                      });
    }
    schema.Moved("ber", "availability.bit_error_rate")
        .Key(kHorizon)
        .Key("iteration_times",
             "an object of healthy, link_down, reduced_rate, bit_errors -> time", "measured",
             "The job's iteration time in each fabric state; measured at the scenario's fidelity on the "
             "one training job when left out.")
        .Key("links", "an object of link_down, reduced_rate, bit_errors -> link id or name (\"s0g0-l0\")", "chosen",
             "The link each measured state fails.")
        .Key("sweep_intervals", "a non-empty array of times", "none",
             "Fixed checkpoint intervals to compare (availability.csv).")
        .Key(kRuns);
    return schema;
}

void
BuildAvailability(const json& doc, Scenario& s)
{
    if (!doc.contains("availability"))
    {
        return;
    }
    const json& a = doc.at("availability");
    const std::string w = "availability";
    s.hasAvailability = true;
    AvailabilitySpec& v = s.availability;
    v.model.SetTypeId("ns3::JobAvailabilityModel");
    AvailabilitySchema(v).Apply(a);
    v.horizon = GetPositiveTime(a, w, kHorizon.key, Time(kHorizon.def));
    if (v.horizon > Time(kMaxHorizon))
    {
        Fail(Path(w, "horizon"), a.at("horizon"),
             "must be <= " + kMaxHorizon +
                 " (ns-3's picosecond clock ends at 106 days; use more runs instead)");
    }
    const char* states[] = {"healthy", "link_down", "reduced_rate", "bit_errors"};
    if (a.contains("iteration_times"))
    {
        const json& t = a.at("iteration_times");
        CheckKeys(t, Path(w, "iteration_times"), {states[0], states[1], states[2], states[3]});
        for (int i = 0; i < JobAvailabilityModel::kStates; ++i)
        {
            v.iterationTimes[i] = t.contains(states[i])
                                      ? GetPositiveTime(t, Path(w, "iteration_times"), states[i], Time(1))
                                      : Time(0);
        }
    }
    if (a.contains("links"))
    {
        const json& l = a.at("links");
        CheckKeys(l, Path(w, "links"), {states[1], states[2], states[3]});
        for (int i = 1; i < JobAvailabilityModel::kStates; ++i)
        {
            if (l.contains(states[i]))
            {
                v.links[i] = GetLink(l, Path(w, "links"), states[i], s.topology);
                v.linkGiven[i] = true;
            }
        }
    }
    if (a.contains("sweep_intervals"))
    {
        const json& sweep = a.at("sweep_intervals");
        if (!sweep.is_array() || sweep.empty())
        {
            Fail(Path(w, "sweep_intervals"), sweep, "must be a non-empty array of times");
        }
        for (std::size_t i = 0; i < sweep.size(); ++i)
        {
            v.sweep.push_back(GetPositiveTime(json{{"t", sweep[i]}},
                                              Path(w, "sweep_intervals[" + std::to_string(i) + "]"),
                                              "t", Time(1)));
        }
    }
    v.runs = uint32_t(Get(a, w, kRuns));
    if (!s.failures.random)
    {
        Fail(w, a, "needs failures.components: the failure processes to run over the horizon");
    }
    if (v.iterationTimes[JobAvailabilityModel::HEALTHY].IsZero() &&
        (!s.hasTraining || s.training.jobs.size() != 1))
    {
        Fail(w, a, "give iteration_times.healthy, or one training job to measure it on");
    }
}

} // namespace

ScenarioSection
AvailabilitySection()
{
    ScenarioSection section;
    section.keys = {"availability"};
    section.build = &BuildAvailability;
    section.schemas = [](Scenario& s) {
        return std::vector<SectionSchema>{AvailabilitySchema(s.availability)};
    };
    return section;
}

} // namespace aifabric
