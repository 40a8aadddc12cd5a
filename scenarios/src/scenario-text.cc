// Scenario text: JSON read with duplicate keys refused, the --topology shorthand, and
// --ns3::Type::Attribute defaults.

#include "scenario.h"

#include "attribute-text.h"

#include "ns3/config.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

void
SetAttributeDefault(const std::string& name, const std::string& text)
{
    const auto split = name.rfind("::");
    TypeId tid;
    TypeId::AttributeInformation info;
    if (split == std::string::npos ||
        !TypeId::LookupByNameFailSafe(name.substr(0, split), &tid) ||
        !tid.LookupAttributeByName(name.substr(split + 2), &info))
    {
        throw ScenarioError("--" + name + ": no such attribute (expected --ns3::Type::Attribute)");
    }
    if (tid.GetGroupName() != "AiFabric")
    {
        throw ScenarioError("--" + name + ": only the attributes of ai-fabric's own types can be "
                            "set (" + tid.GetName() + " is ns-3's)");
    }
    Ptr<AttributeValue> value = info.checker->Create();
    if (!ParseAttributeText(text, *info.checker, *value))
    {
        throw ScenarioError("--" + name + " = \"" + text + "\": allowed: " +
                            AllowedText(*info.checker) + " (" + info.help + ")");
    }
    Config::SetDefault(name, *value);
}

json
ParseScenarioText(const std::string& text, const std::string& origin)
{
    // Refused while parsing: a key given twice in one object (JSON leaves it open which one
    // counts) and nesting deeper than any scenario needs (it would only exhaust the stack).
    constexpr int kMaxDepth = 32;
    std::vector<std::set<std::string>> keys;
    std::vector<std::string> path;
    auto check = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth > kMaxDepth)
        {
            throw ScenarioError(origin + ": nested deeper than " + std::to_string(kMaxDepth) +
                                " levels");
        }
        switch (event)
        {
        case json::parse_event_t::object_start:
            keys.emplace_back();
            break;
        case json::parse_event_t::object_end:
            keys.pop_back();
            break;
        case json::parse_event_t::key: {
            const std::string key = parsed.get<std::string>();
            path.resize(depth - 1); // an array's level stays empty: "jobs[].name"
            path.push_back(key);
            if (!keys.back().insert(key).second)
            {
                std::string where;
                for (const auto& k : path)
                {
                    where += k.empty() ? "[]" : (where.empty() ? "" : ".") + k;
                }
                throw ScenarioError(origin + ": key " + where +
                                    " is given twice; give each key once");
            }
            break;
        }
        default:
            break;
        }
        return true;
    };
    try
    {
        return json::parse(text, check);
    }
    catch (const json::exception& e)
    {
        throw ScenarioError(origin + ": not valid JSON (" + e.what() + ")");
    }
}

json
ReadScenarioFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw ScenarioError("--scenario = \"" + path + "\": cannot read the file");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ParseScenarioText(ss.str(), path);
}

json
ParseTopologyText(const std::string& text, const std::string& origin)
{
    const auto colon = text.find(':');
    json t = {{"kind", text.substr(0, colon)}};
    if (colon == std::string::npos)
    {
        return t;
    }
    std::stringstream items(text.substr(colon + 1));
    std::string item;
    while (std::getline(items, item, ','))
    {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            throw ScenarioError(origin + " = \"" + text + "\": \"" + item +
                                "\" is not key=value (e.g. fat_tree:k=4,nic_rate=400Gbps)");
        }
        const std::string key = item.substr(0, eq);
        const std::string value = item.substr(eq + 1);
        if (value == "true" || value == "false")
        {
            t[key] = value == "true";
        }
        else if (std::regex_match(value, std::regex("[0-9]{1,18}")))
        {
            t[key] = std::stoull(value);
        }
        else if (std::regex_match(value, std::regex("[0-9]*\\.[0-9]+")))
        {
            t[key] = std::stod(value);
        }
        else
        {
            t[key] = value;
        }
    }
    return t;
}

} // namespace aifabric
