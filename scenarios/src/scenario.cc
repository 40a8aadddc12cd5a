// A scenario document read section by section (sections/), in order, into a Scenario.

#include "scenario.h"

#include "scenario-keys.h"
#include "scenario-sections.h"

#include <algorithm>
#include <set>

using nlohmann::json;

namespace aifabric
{

const std::vector<ScenarioSection>&
Sections()
{
    // Each reads what the ones before it have read (the topology first).
    static const std::vector<ScenarioSection> sections{
        ScenarioKeysSection(), TopologySection(), NetworkSection(),     TrafficSection(),
        CollectiveSection(),   TrainingSection(), LinkEventsSection(),  FailuresSection(),
        AvailabilitySection(), OutputSection(),   PcapSection(),        RulesSection()};
    return sections;
}

void
PrintScenarioKeys(std::ostream& os, const std::string& section)
{
    Scenario s;
    std::vector<SectionSchema> schemas;
    for (const ScenarioSection& part : Sections())
    {
        for (SectionSchema& schema : part.schemas(s))
        {
            schemas.push_back(std::move(schema));
        }
    }
    std::vector<std::string> names;
    for (const SectionSchema& schema : schemas)
    {
        if (std::find(names.begin(), names.end(), schema.GetName()) == names.end())
        {
            names.push_back(schema.GetName());
        }
    }
    if (!section.empty() && std::find(names.begin(), names.end(), section) == names.end())
    {
        std::string list;
        for (const auto& name : names)
        {
            list += (list.empty() ? "" : ", ") + name;
        }
        throw ScenarioError("--print-keys=" + section + ": no such section; sections: " + list);
    }
    os << "| key | allowed | default | help |\n|---|---|---|---|\n";
    for (const SectionSchema& schema : schemas)
    {
        if (section.empty() || schema.GetName() == section)
        {
            schema.PrintKeys(os);
        }
    }
}

Scenario
BuildScenario(const json& doc)
{
    std::set<std::string> keys;
    for (const ScenarioSection& part : Sections())
    {
        keys.insert(part.keys.begin(), part.keys.end());
    }
    CheckKeys(doc, "scenario", keys);
    Scenario s;
    s.document = doc;
    for (const ScenarioSection& part : Sections())
    {
        part.build(doc, s);
    }
    return s;
}

} // namespace aifabric
