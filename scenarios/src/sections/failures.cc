// The "failures" section: lists of random failure modes and of injected failures.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** What a failure does, by name; the mode key's words. */
const std::map<std::string, ComponentFailureProcess::Mode>&
Modes()
{
    static const std::map<std::string, ComponentFailureProcess::Mode> modes{
        {"hard", ComponentFailureProcess::HARD},
        {"flap", ComponentFailureProcess::FLAP},
        {"bit_errors", ComponentFailureProcess::BIT_ERRORS},
        {"lane_loss", ComponentFailureProcess::LANE_LOSS}};
    return modes;
}

WordKey
ModeKey()
{
    std::vector<std::string> words;
    for (const auto& [name, mode] : Modes())
    {
        words.push_back(name);
    }
    return {"mode", words, "hard", "What a failure does to the component's links."};
}

/** The component kind key, default \p def ("": required). */
WordKey
KindKey(const std::string& def)
{
    return {"kind", FailureHelper::Kinds(), def,
            "The component kind; each component of it fails on its own."};
}

const TimeKey kAt{"at", "0s", "When it fails."};

/** Remember the first failure of mode bit_errors (fidelities "flow" and "collective" refuse it)
 * and of mode lane_loss (HPCC refuses it). */
void
NoteBitErrors(FailureSpec& spec, const std::string& where, ComponentFailureProcess::Mode mode)
{
    if (mode == ComponentFailureProcess::BIT_ERRORS && spec.bitErrorsKey.empty())
    {
        spec.bitErrorsKey = Path(where, "mode");
    }
    if (mode == ComponentFailureProcess::LANE_LOSS && spec.laneLossKey.empty())
    {
        spec.laneLossKey = Path(where, "mode");
    }
}

/** The attributes a failure mode object sets, as ComponentFailureProcess's (name, text). */
using ModeAttributes = std::vector<std::pair<std::string, std::string>>;

/**
 * Bind ComponentFailureProcess's attributes, but for those the runner reads itself (kind, mode,
 * mtbf, mttr, at, duration), to \p schema, collected into \p attributes.
 */
SectionSchema
BindFailureMode(SectionSchema& schema, ModeAttributes* attributes)
{
    const TypeId tid = ComponentFailureProcess::GetTypeId();
    schema
        .Bind(
            tid,
            [attributes, tid](const std::string& n, const AttributeValue& v) {
                TypeId::AttributeInformation info;
                tid.LookupAttributeByName(n, &info);
                attributes->emplace_back(n, v.SerializeToString(info.checker));
            },
            {"Mode", "TimeToFailure", "TimeToRepair", "MaxFailures"}) // the runner's keys
        .Moved("ber", schema.GetName() + ".bit_error_rate")
        .Moved("flap_down", schema.GetName() + ".flap_down_time")
        .Moved("flap_up", schema.GetName() + ".flap_up_time");
    return schema;
}

/** The failures section's own keys. */
SectionSchema
FailuresSchema()
{
    SectionSchema schema("failures");
    schema
        .Key("components", "a list of failure modes (failures.components)", "none",
             "Components that fail at random times, kind by kind.")
        .Key("inject", "a list of failures (failures.inject)", "none",
             "Components that fail once, at a given time.");
    return schema;
}

/** The keys of a random failure mode (failures.components[]). */
SectionSchema
ComponentsSchema(ModeAttributes* attributes)
{
    SectionSchema schema("failures.components");
    schema.Key(KindKey(""))
        .Key(ModeKey())
        .Key("mtbf", "a time with a unit, e.g. \"1e6h\" (beyond ns-3's clock allowed)",
             "required", "Mean time between failures of each component.")
        .Key("mttr", "a time with a unit, or \"0s\"", "ComponentFailureProcess::TimeToRepair",
             "Mean time to repair: exponential repairs of this mean.")
        .Key("weibull_shape", "a number > 0", "exponential",
             "Weibull times to failure of this shape (the MTBF their mean).");
    return BindFailureMode(schema, attributes);
}

/** The keys of an injected failure (failures.inject[]). */
SectionSchema
InjectSchema(ModeAttributes* attributes)
{
    SectionSchema schema("failures.inject");
    schema
        .Key("component",
             "a component's name in failures.csv, e.g. \"p0e0-p0a0\" (a link by its ends; "
             "\"link 17\" by id), \"s3g0\"",
             "required", "The component that fails once.")
        .Key(KindKey("link"))
        .Key(ModeKey())
        .Key(kAt)
        .Key("duration", "a time with a unit", "for ever", "How long it stays failed.");
    return BindFailureMode(schema, attributes);
}

void
BuildFailures(const json& doc, Scenario& s)
{
    if (!doc.contains("failures"))
    {
        return;
    }
    const json& f = doc.at("failures");
    FailuresSchema().Apply(f);
    s.hasFailures = true;
    FailureHelper& helper = s.failures.helper;
    const json components = f.value("components", json::array());
    if (!components.is_array())
    {
        Fail("failures.components", components, "must be an array of failure modes");
    }
    for (std::size_t i = 0; i < components.size(); ++i)
    {
        const json& c = components[i];
        const std::string w = "failures.components[" + std::to_string(i) + "]";
        ModeAttributes attributes;
        ComponentsSchema(&attributes).Apply(c, w);
        if (!c.contains("kind") || !c.contains("mtbf"))
        {
            Fail(w, c, "needs \"kind\" and \"mtbf\" (e.g. {\"kind\": \"transceiver\", \"mtbf\": \"1e6h\"})");
        }
        const std::string kind = Get(c, w, KindKey(""));
        const auto mode = Modes().at(Get(c, w, ModeKey()));
        NoteBitErrors(s.failures, w, mode);
        const double mtbf = GetSeconds(c, w, "mtbf", 0, false);
        // Without mttr, ComponentFailureProcess's TimeToRepair default holds.
        const std::optional<double> mttr =
            c.contains("mttr") ? std::optional<double>(GetSeconds(c, w, "mttr", 0, true))
                               : std::nullopt;
        const double shape = GetNumber(c, w, "weibull_shape", 0, false);
        try
        {
            helper.AddFailureMode(kind, mode, mtbf, mttr, shape, attributes);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(w, c, e.what());
        }
        s.failures.random = true;
    }
    const json inject = f.value("inject", json::array());
    if (!inject.is_array())
    {
        Fail("failures.inject", inject, "must be an array of {component, kind, mode, at, duration}");
    }
    for (std::size_t i = 0; i < inject.size(); ++i)
    {
        const json& c = inject[i];
        const std::string w = "failures.inject[" + std::to_string(i) + "]";
        ModeAttributes attributes;
        InjectSchema(&attributes).Apply(c, w);
        const std::string kind = Get(c, w, KindKey("link"));
        const std::string name =
            FailureHelper::CanonicalName(s.topology, GetString(c, w, "component", ""));
        const auto all = FailureHelper::Components(s.topology, kind);
        if (std::none_of(all.begin(), all.end(), [&](const auto& x) { return x.name == name; }))
        {
            Fail(Path(w, "component"), c.contains("component") ? c.at("component") : json(nullptr),
                 "no " + kind + " of that name in this topology" +
                     (all.empty() ? std::string(" (it has none)")
                                  : " (names as in failures.csv, e.g. \"" + all.front().name + "\")"));
        }
        // Without a duration the failure lasts beyond any run.
        const Time duration = GetTime(c, w, "duration", Time::Max());
        const auto mode = Modes().at(Get(c, w, ModeKey()));
        NoteBitErrors(s.failures, w, mode);
        try
        {
            helper.AddInjection(kind, name, mode, Get(c, w, kAt), duration, attributes);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(w, c, e.what());
        }
    }
}

} // namespace

ScenarioSection
FailuresSection()
{
    ScenarioSection section;
    section.keys = {"failures"};
    section.build = &BuildFailures;
    section.schemas = [](Scenario&) {
        static ModeAttributes attributes; // the printed schemas' setters write here (never called)
        return std::vector<SectionSchema>{FailuresSchema(), ComponentsSchema(&attributes),
                                          InjectSchema(&attributes)};
    };
    return section;
}

} // namespace aifabric
