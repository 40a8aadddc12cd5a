// The "failures" section: lists of random failure modes and of injected failures.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

ComponentFailureProcess::Mode
GetFailureMode(const json& obj, const std::string& where)
{
    const std::string mode = GetString(obj, where, "mode", "hard");
    static const std::map<std::string, ComponentFailureProcess::Mode> modes{
        {"hard", ComponentFailureProcess::HARD},
        {"flap", ComponentFailureProcess::FLAP},
        {"bit_errors", ComponentFailureProcess::BIT_ERRORS},
        {"lane_loss", ComponentFailureProcess::LANE_LOSS}};
    if (!modes.count(mode))
    {
        Fail(Path(where, "mode"), obj.at("mode"),
             "allowed: \"hard\", \"flap\", \"bit_errors\", \"lane_loss\"");
    }
    return modes.at(mode);
}

std::string
GetComponentKind(const json& obj, const std::string& where, const std::string& def)
{
    const std::string kind = GetString(obj, where, "kind", def);
    const auto& kinds = FailureHelper::Kinds();
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    {
        Fail(Path(where, "kind"), obj.contains("kind") ? obj.at("kind") : json(kind),
             "allowed: \"link\", \"transceiver\", \"nic\", \"switch\", \"server\", \"gpu\"");
    }
    return kind;
}

/** The attributes a failure mode object sets, as ComponentFailureProcess's (name, text). */
using ModeAttributes = std::vector<std::pair<std::string, std::string>>;

/**
 * The keys of a failure mode object named \p name: ComponentFailureProcess's attributes
 * (collected into \p attributes) and the runner's own \p keys (key, allowed, default, help).
 */
SectionSchema
FailureModeSchema(const std::string& name,
                  const std::vector<std::array<std::string, 4>>& keys,
                  ModeAttributes* attributes)
{
    SectionSchema schema(name);
    for (const auto& [key, allowed, def, help] : keys)
    {
        schema.Key(key, allowed, def, help);
    }
    const TypeId tid = ComponentFailureProcess::GetTypeId();
    schema
        .Bind(
            tid,
            [attributes, tid](const std::string& n, const AttributeValue& v) {
                TypeId::AttributeInformation info;
                tid.LookupAttributeByName(n, &info);
                attributes->emplace_back(n, v.SerializeToString(info.checker));
            },
            {"Mode", "TimeToFailure", "TimeToRepair", "MaxFailures"}) // the keys above
        .Moved("ber", name + ".bit_error_rate")
        .Moved("flap_down", name + ".flap_down_time")
        .Moved("flap_up", name + ".flap_up_time");
    return schema;
}

const std::array<std::string, 4> kKindKey{
    "kind", "link, transceiver, nic, switch, server, gpu", "link",
    "The component kind; each component of it fails on its own."};
const std::array<std::string, 4> kModeKey{"mode", "hard, flap, bit_errors, lane_loss", "hard",
                                          "What a failure does to the component's links."};

/** The keys of a random failure mode (failures.components[]). */
SectionSchema
ComponentsSchema(ModeAttributes* attributes)
{
    return FailureModeSchema(
        "failures.components",
        {kKindKey,
         kModeKey,
         {"mtbf", "a time with a unit, e.g. \"1e6h\" (beyond ns-3's clock allowed)", "required",
          "Mean time between failures of each component."},
         {"mttr", "a time with a unit, or \"0s\"", "ComponentFailureProcess::TimeToRepair",
          "Mean time to repair: exponential repairs of this mean."},
         {"weibull_shape", "a number > 0", "exponential",
          "Weibull times to failure of this shape (the MTBF their mean)."}},
        attributes);
}

/** The keys of an injected failure (failures.inject[]). */
SectionSchema
InjectSchema(ModeAttributes* attributes)
{
    return FailureModeSchema(
        "failures.inject",
        {{"component", "a component's name in failures.csv, e.g. \"p0e0-p0a0\" (a link by its ends; \"link 17\" by id), \"s3g0\"",
          "required", "The component that fails once."},
         kKindKey,
         kModeKey,
         {"at", "a time with a unit", "0s", "When it fails."},
         {"duration", "a time with a unit", "for ever", "How long it stays failed."}},
        attributes);
}

void
BuildFailures(const json& doc, Scenario& s)
{
    if (!doc.contains("failures"))
    {
        return;
    }
    const json& f = doc.at("failures");
    CheckKeys(f, "failures", {"components", "inject"});
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
        const std::string kind = GetComponentKind(c, w, "");
        const auto mode = GetFailureMode(c, w);
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
        const std::string kind = GetComponentKind(c, w, "link");
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
        try
        {
            helper.AddInjection(kind, name, GetFailureMode(c, w), GetTime(c, w, "at", Time(0)),
                                duration, attributes);
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
        ModeAttributes attributes;
        return std::vector<SectionSchema>{ComponentsSchema(&attributes), InjectSchema(&attributes)};
    };
    return section;
}

} // namespace aifabric
