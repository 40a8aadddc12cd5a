#include "scenario-keys.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

[[noreturn]] void
Fail(const std::string& key, const json& value, const std::string& allowed)
{
    throw ScenarioError(key + " = " + value.dump() + ": " + allowed);
}

void
CheckKeys(const json& obj, const std::string& where, const std::set<std::string>& allowed)
{
    if (!obj.is_object())
    {
        Fail(where, obj, "must be an object");
    }
    for (const auto& [key, value] : obj.items())
    {
        if (!allowed.count(key))
        {
            std::string list;
            for (const auto& a : allowed)
            {
                list += (list.empty() ? "" : ", ") + a;
            }
            Fail(where + "." + key, value, "unknown key; allowed in " + where + ": " + list);
        }
    }
}

std::string
Path(const std::string& where, const std::string& key)
{
    return where + "." + key;
}

uint64_t
GetUnsigned(const json& obj, const std::string& where, const std::string& key, uint64_t def,
            uint64_t min, uint64_t max)
{
    if (!obj.contains(key))
    {
        return def;
    }
    const json& v = obj.at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    {
        Fail(Path(where, key), v,
             v.is_string() ? "must be a non-negative integer, as a JSON number (no quotes)"
                           : "must be a non-negative integer");
    }
    const uint64_t u = v.get<uint64_t>();
    if (u < min || u > max)
    {
        Fail(Path(where, key), v,
             "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    return u;
}

const char* const kBytesAllowed = "bytes in [1, 2^40]: an integer or with a unit, e.g. \"64KiB\"";

uint64_t
GetBytes(const json& obj, const std::string& where, const std::string& key, uint64_t def,
         uint64_t min, uint64_t max)
{
    if (!obj.contains(key) || !obj.at(key).is_string())
    {
        return GetUnsigned(obj, where, key, def, min, max);
    }
    static const std::map<std::string, long double> unit{
        {"B", 1},          {"KB", 1e3},         {"MB", 1e6},         {"GB", 1e9},
        {"TB", 1e12},      {"KiB", 1024.0L},    {"MiB", 1048576.0L}, {"GiB", 1073741824.0L},
        {"TiB", 1099511627776.0L}};
    const json& v = obj.at(key);
    std::smatch m;
    const std::string text = v.get<std::string>();
    const bool parsed = std::regex_match(
        text, m, std::regex("([0-9]{1,15}(\\.[0-9]{1,15})?)(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)"));
    const long double bytes = parsed ? std::stold(m[1].str()) * unit.at(m[3].str()) : -1;
    if (!parsed || bytes != std::floor(bytes) || bytes < min || bytes > max)
    {
        Fail(Path(where, key), v,
             "a whole number of bytes in [" + std::to_string(min) + ", " + std::to_string(max) +
                 "], as an integer or with a unit: B, KB, MB, GB, TB (powers of 1000), KiB, "
                 "MiB, GiB, TiB (of 1024), e.g. \"64KiB\"");
    }
    return static_cast<uint64_t>(bytes);
}

double
GetNumber(const json& obj, const std::string& where, const std::string& key, double def,
          bool zeroAllowed)
{
    if (!obj.contains(key))
    {
        return def;
    }
    const json& v = obj.at(key);
    if (!v.is_number() || v.get<double>() < 0 || (!zeroAllowed && v.get<double>() == 0))
    {
        Fail(Path(where, key), v, zeroAllowed ? "must be a number >= 0" : "must be a number > 0");
    }
    return v.get<double>();
}

bool
GetBool(const json& obj, const std::string& where, const std::string& key, bool def)
{
    if (!obj.contains(key))
    {
        return def;
    }
    if (!obj.at(key).is_boolean())
    {
        Fail(Path(where, key), obj.at(key), "must be true or false");
    }
    return obj.at(key).get<bool>();
}

std::string
GetString(const json& obj, const std::string& where, const std::string& key,
          const std::string& def)
{
    if (!obj.contains(key))
    {
        return def;
    }
    if (!obj.at(key).is_string())
    {
        Fail(Path(where, key), obj.at(key), "must be a string");
    }
    return obj.at(key).get<std::string>();
}

double
GetSeconds(const json& obj, const std::string& where, const std::string& key, double def,
           bool zeroAllowed)
{
    if (!obj.contains(key))
    {
        return def;
    }
    double seconds = 0;
    if (!TimeTextSeconds(GetString(obj, where, key, ""), seconds))
    {
        Fail(Path(where, key), obj.at(key), "not a valid time (e.g. \"4h\", \"1e6h\", \"30d\")");
    }
    if (seconds < 0 || (!zeroAllowed && seconds == 0))
    {
        Fail(Path(where, key), obj.at(key), zeroAllowed ? "must be >= 0" : "must be > 0");
    }
    return seconds;
}

Time
GetTime(const json& obj, const std::string& where, const std::string& key, Time def)
{
    if (!obj.contains(key))
    {
        return def;
    }
    const std::string text = GetString(obj, where, key, "");
    // ns-3's clock counts picoseconds in 64 bits: longer times wrap around silently.
    double seconds = 0;
    if (TimeTextSeconds(text, seconds) && std::abs(seconds) >= Time::Max().GetSeconds())
    {
        Fail(Path(where, key), obj.at(key),
             "beyond ns-3's clock (106 days at picosecond resolution)");
    }
    const Time t =
        ParseValue<TimeValue>(Path(where, key), obj.at(key), text, MakeTimeChecker()).Get();
    if (t.IsStrictlyNegative())
    {
        Fail(Path(where, key), obj.at(key), "must be >= 0");
    }
    return t;
}

Time
GetPositiveTime(const json& obj, const std::string& where, const std::string& key, Time def)
{
    const Time t = GetTime(obj, where, key, def);
    if (!t.IsStrictlyPositive())
    {
        Fail(Path(where, key), obj.contains(key) ? obj.at(key) : json(nullptr), "must be > 0");
    }
    return t;
}

uint32_t
GetHost(const json& obj, const std::string& where, const std::string& key, uint32_t hosts)
{
    if (!obj.contains(key))
    {
        Fail(Path(where, key), json(nullptr), "required");
    }
    return uint32_t(GetUnsigned(obj, where, key, 0, 0, hosts - 1));
}

uint32_t
GetLink(const json& obj, const std::string& where, const std::string& key,
        const FabricTopology& topology)
{
    const auto links = static_cast<uint32_t>(topology.Links().size());
    if (!obj.contains(key) || !obj.at(key).is_string())
    {
        if (!obj.contains(key))
        {
            Fail(Path(where, key), json(nullptr),
                 "required: a link id or name, e.g. 0 or \"" + topology.LinkName(0) + "\"");
        }
        return uint32_t(GetUnsigned(obj, where, key, 0, 0, links - 1));
    }
    const std::string name = obj.at(key).get<std::string>();
    const std::optional<uint32_t> link = topology.FindLink(name);
    if (!link)
    {
        Fail(Path(where, key), obj.at(key),
             "no link joins those two nodes (names as in links.csv's name column, e.g. \"" +
                 topology.LinkName(0) + "\", or the link id)");
    }
    return *link;
}

uint64_t
Get(const json& obj, const std::string& where, const IntegerKey& k)
{
    return GetUnsigned(obj, where, k.key, k.def, k.min, k.max);
}

std::string
Get(const json& obj, const std::string& where, const WordKey& k)
{
    const std::string word = GetString(obj, where, k.key, k.def);
    if (std::find(k.words.begin(), k.words.end(), word) == k.words.end())
    {
        std::string words;
        for (const auto& w : k.words)
        {
            words += (words.empty() ? "\"" : ", \"") + w + "\"";
        }
        if (!obj.contains(k.key))
        {
            Fail(Path(where, k.key), json(nullptr), "required; allowed: " + words);
        }
        Fail(Path(where, k.key), obj.at(k.key), "allowed: " + words);
    }
    return word;
}

Time
Get(const json& obj, const std::string& where, const TimeKey& k)
{
    return GetTime(obj, where, k.key, Time(k.def));
}

SectionSchema&
MovedRdmaKeys(SectionSchema& schema)
{
    for (const char* key : {"congestion_control", "ack_interval", "retransmission_timeout"})
    {
        schema.Moved(key, std::string("rdma.") + key + " (one home for every queue pair)");
    }
    return schema;
}

} // namespace aifabric
