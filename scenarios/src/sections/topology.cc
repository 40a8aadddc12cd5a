// The "topology" section: a TopologyHelper of the family, by kind, and its attributes.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include "ns3/string.h"

#include <memory>
#include <regex>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** The topology kinds: TopologyHelper's family, by name (fat_tree, leaf_spine, ...). */
std::map<std::string, TypeId>
TopologyKinds()
{
    return FamilyMembers(TopologyHelper::GetTypeId(), "TopologyHelper");
}

/** The kinds' names, quoted, comma separated. */
std::string
KindNames()
{
    std::string names;
    for (const auto& [name, tid] : TopologyKinds())
    {
        names += (names.empty() ? "\"" : ", \"") + name + "\"";
    }
    return names;
}

/** The keys every topology has: its kind and TopologyHelper's attributes. */
SectionSchema
CommonTopologySchema(const SectionSchema::Setter& set)
{
    SectionSchema schema("topology");
    schema
        .Key("kind", KindNames(), "required",
             "The TopologyHelper subclass that builds the fabric (fat_tree is "
             "ns3::FatTreeTopologyHelper); the keys of every kind follow, then each kind's "
             "own, marked with its helper's TypeId.")
        .Bind(TopologyHelper::GetTypeId(), set)
        .Moved("host_to_leaf_m", "topology.host_to_leaf_metres")
        .Moved("leaf_to_spine_m", "topology.leaf_to_spine_metres")
        .Moved("spine_to_core_m", "topology.spine_to_core_metres");
    return schema;
}

FabricTopology
BuildTopology(const json& t, const ServerPreset* server)
{
    const std::string w = "topology";
    if (!t.is_object())
    {
        Fail(w, t, "must be an object with a \"kind\"");
    }
    const auto kinds = TopologyKinds();
    const std::string kind = GetString(t, w, "kind", "");
    if (!kinds.count(kind))
    {
        Fail("topology.kind", t.contains("kind") ? t.at("kind") : json(nullptr),
             "allowed: " + KindNames());
    }
    const TypeId tid = kinds.at(kind);
    std::unique_ptr<TopologyHelper> helper(dynamic_cast<TopologyHelper*>(tid.GetConstructor()()));
    const SectionSchema::Setter set = [&helper](const std::string& n, const AttributeValue& v) {
        helper->SetAttribute(n, v);
    };
    for (const auto& [name, value] : server ? server->TopologyAttributes() : ServerPreset::Values())
    {
        helper->SetAttribute(name, StringValue(value));
    }
    CommonTopologySchema(set).Bind(tid, set).Apply(t);
    try
    {
        return helper->Build();
    }
    catch (const std::invalid_argument& e)
    {
        // A helper's message starts with the key it is about ("k = 5: ..."), when it is one.
        const std::string what = e.what();
        const bool key = std::regex_search(what, std::regex("^[a-z_]+ = "));
        throw ScenarioError((key ? "topology." : "topology: ") + what);
    }
}

} // namespace

ScenarioSection
TopologySection()
{
    ScenarioSection section;
    section.keys = {"topology"};
    section.build = [](const json& doc, Scenario& s) {
        if (!doc.contains("topology"))
        {
            Fail("topology", json(nullptr), "required: an object with a \"kind\"");
        }
        s.topology = BuildTopology(doc.at("topology"), s.server);
    };
    section.schemas = [](Scenario&) {
        const SectionSchema::Setter none = [](const std::string&, const AttributeValue&) {};
        std::vector<SectionSchema> schemas{CommonTopologySchema(none)};
        for (const auto& [name, tid] : TopologyKinds())
        {
            schemas.push_back(SectionSchema("topology").Bind(tid, none)); // per kind
        }
        return schemas;
    };
    return section;
}

} // namespace aifabric
