#include "scenario.h"

#include "section-schema.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <functional>
#include <map>
#include <optional>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

[[noreturn]] void
Fail(const std::string& key, const json& value, const std::string& allowed)
{
    throw ScenarioError(key + " = " + value.dump() + ": " + allowed);
}

/** Reject keys of \p obj not in \p allowed. */
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
            uint64_t min = 0, uint64_t max = UINT64_MAX)
{
    if (!obj.contains(key))
    {
        return def;
    }
    const json& v = obj.at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    {
        Fail(Path(where, key), v, "must be a non-negative integer");
    }
    const uint64_t u = v.get<uint64_t>();
    if (u < min || u > max)
    {
        Fail(Path(where, key), v,
             "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    return u;
}

/** A link: its id (the link column of links.csv) or its name by its ends ("s0g0-l0"). */
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

/** What a byte count key takes, for --print-keys. */
const char* const kBytesAllowed = "bytes in [1, 2^40]: an integer or with a unit, e.g. \"64KiB\"";

/**
 * A byte count: a non-negative integer, or a text with a unit ("64KiB", "1GiB", "4MB": B, KB,
 * MB, GB, TB by 1000, KiB, MiB, GiB, TiB by 1024) that comes to whole bytes; within [min, max].
 */
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

/** Parse \p text with the ns-3 value type \p V and \p checker, or fail naming \p key. */
template <typename V>
V
ParseValue(const std::string& key, const json& raw, const std::string& text,
           Ptr<const AttributeChecker> checker)
{
    V value;
    if (!ParseAttributeText(text, *checker, value))
    {
        Fail(key, raw, "allowed: " + AllowedText(*checker));
    }
    return value;
}

/** A duration in seconds (a double), for MTBFs beyond ns-3's clock; must be >= 0, or > 0. */
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

/** The prices section: BomPrices's attributes. */
SectionSchema
PricesSchema(BomPrices& prices)
{
    SectionSchema schema("prices");
    schema.Bind(BomPrices::GetTypeId(), [&prices](const std::string& n, const AttributeValue& v) {
        prices.SetAttribute(n, v);
    });
    return schema;
}

/** The monitor section: FabricMonitor's attributes; the section's presence turns it on. */
SectionSchema
MonitorSchema(ObjectFactory& monitor)
{
    SectionSchema schema("monitor");
    schema.Bind(FabricMonitor::GetTypeId(),
                [&monitor](const std::string& n, const AttributeValue& v) { monitor.Set(n, v); });
    return schema;
}

/** The topology kinds: TopologyHelper's family, by name (fat_tree, leaf_spine, ...). */
std::map<std::string, TypeId>
TopologyKinds()
{
    return FamilyMembers(TopologyHelper::GetTypeId(), "TopologyHelper");
}

/** The keys of a topology of kind \p tid: the helper's attributes and its kind's. */
SectionSchema
TopologySchema(TypeId tid, const SectionSchema::Setter& set)
{
    std::string kinds;
    for (const auto& [name, kind] : TopologyKinds())
    {
        kinds += (kinds.empty() ? "\"" : ", \"") + name + "\"";
    }
    SectionSchema schema("topology");
    schema.Key("kind", kinds, "required", "The topology helper (ns3::<Kind>TopologyHelper).")
        .Bind(TopologyHelper::GetTypeId(), set)
        .Bind(tid, set)
        .Moved("host_to_leaf_m", "topology.host_to_leaf_metres")
        .Moved("leaf_to_spine_m", "topology.leaf_to_spine_metres")
        .Moved("spine_to_core_m", "topology.spine_to_core_metres");
    return schema;
}

FabricTopology
BuildTopology(const json& t)
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
        std::string names;
        for (const auto& [name, tid] : kinds)
        {
            names += (names.empty() ? "\"" : ", \"") + name + "\"";
        }
        Fail("topology.kind", t.contains("kind") ? t.at("kind") : json(nullptr),
             "allowed: " + names);
    }
    const TypeId tid = kinds.at(kind);
    std::unique_ptr<TopologyHelper> helper(dynamic_cast<TopologyHelper*>(tid.GetConstructor()()));
    TopologySchema(tid, [&helper](const std::string& n, const AttributeValue& v) {
        helper->SetAttribute(n, v);
    }).Apply(t);
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

/** Kmin must not exceed Kmax, taking the attribute default for the one not given. */
void
CheckEcnRamp(const json& port)
{
    auto bytes = [&port](const std::string& key, const std::string& attribute) {
        TypeId::AttributeInformation info;
        FabricNetDevice::GetTypeId().LookupAttributeByName(attribute, &info);
        QueueSizeValue v;
        if (port.contains(key))
        {
            ParseAttributeText(JsonAttributeText(port.at(key)), *info.checker, v); // checked already
        }
        else
        {
            v.Set(DynamicCast<const QueueSizeValue>(info.initialValue)->Get());
        }
        return v.Get().GetValue();
    };
    if (bytes("ecn_kmin_per_25g", "EcnKminPer25G") > bytes("ecn_kmax_per_25g", "EcnKmaxPer25G"))
    {
        Fail("port.ecn_kmin_per_25g", port.contains("ecn_kmin_per_25g") ? port.at("ecn_kmin_per_25g")
                                                                         : json(nullptr),
             "must not exceed port.ecn_kmax_per_25g");
    }
}

/**
 * The sections whose keys are the model's attributes, bound to \p s's helpers, with the few
 * keys the runner reads itself.
 */
std::vector<SectionSchema>
AttributeSections(Scenario& s)
{
    auto& net = s.network;
    auto& rdma = s.rdmaHelper;
    auto& collective = s.collectiveHelper;
    std::vector<SectionSchema> sections;
    sections.emplace_back("switch");
    sections.back()
        .Bind(FabricSwitch::GetTypeId(),
              [&net](const std::string& n, const AttributeValue& v) { net.SetSwitchAttribute(n, v); },
              {"EcmpSeed"}) // per switch, from the ECMP keys below
        .Bind(SharedBufferMmu::GetTypeId(),
              [&net](const std::string& n, const AttributeValue& v) { net.SetMmuAttribute(n, v); })
        .Key("common_ecmp_seed", "true or false", "false",
             "Every switch hashes flows alike (to study ECMP polarization).")
        .Key("ecmp_seed_base", "an integer in [0, 4294967295]", "from the seed",
             "Pins switch n's ECMP hash seed to base + n; without it the base is "
             "0x9e3779b9 x seed + 0x85ebca6b x (run - 1), so every seed hashes flows anew.")
        .Moved("pfc", "switch.pfc_enabled");
    sections.emplace_back("port");
    sections.back()
        .Bind(FabricNetDevice::GetTypeId(),
              [&net](const std::string& n, const AttributeValue& v) { net.SetDeviceAttribute(n, v); })
        .BindAs("nvlink_payload_mtu", FabricNetDevice::GetTypeId(), "PayloadMtu",
                [&net](const std::string& n, const AttributeValue& v) {
                    net.SetNvLinkDeviceAttribute(n, v);
                })
        .Moved("ecn", "port.ecn_enabled");
    sections.emplace_back("routing");
    sections.back().Bind(FabricRouting::GetTypeId(),
                         [&net](const std::string& n, const AttributeValue& v) {
                             net.SetRoutingAttribute(n, v);
                         });
    sections.emplace_back("accelerator");
    sections.back().Bind(
        Accelerator::GetTypeId(),
        [&collective](const std::string& n, const AttributeValue& v) {
            collective.SetAcceleratorAttribute(n, v);
        },
        {"NicAffinity"}); // from the topology
    sections.emplace_back("rdma");
    sections.back()
        .Bind(RdmaQueuePair::GetTypeId(),
              [&rdma](const std::string& n, const AttributeValue& v) { rdma.SetQueuePairAttribute(n, v); },
              {"UdpSourcePort"}) // each queue pair's own entropy
        .BindFamily("congestion_control", RdmaNic::GetTypeId(), "CongestionControl",
                    RdmaCongestionControl::GetTypeId(), "CongestionControl",
                    [&rdma](const std::string& n, const AttributeValue& v) {
                        rdma.SetNicAttribute(n, v);
                    });
    return sections;
}

void
ConfigureNetwork(const json& doc, Scenario& s)
{
    const json empty = json::object();
    const json& sw = doc.contains("switch") ? doc.at("switch") : empty;
    auto& net = s.network;
    net.SetCommonEcmpSeed(GetBool(sw, "switch", "common_ecmp_seed", false));
    if (sw.contains("ecmp_seed_base"))
    {
        net.SetEcmpSeedBase(uint32_t(GetUnsigned(sw, "switch", "ecmp_seed_base", 0, 0, UINT32_MAX)));
    }

    const json& port = doc.contains("port") ? doc.at("port") : empty;
    CheckEcnRamp(port);
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

/** Mark the queue-pair keys that moved from \p schema's section to the "rdma" section. */
SectionSchema&
MovedRdmaKeys(SectionSchema& schema)
{
    for (const char* key : {"congestion_control", "ack_interval", "retransmission_timeout"})
    {
        schema.Moved(key, std::string("rdma.") + key + " (one home for every queue pair)");
    }
    return schema;
}

/** The traffic section's keys: MessageSource's attributes and the pattern's. */
SectionSchema
TrafficSchema(const SectionSchema::Setter& set)
{
    SectionSchema schema("traffic");
    schema
        .Key("pattern", "shift, permutation, incast, all_to_all, flows", "required",
             "Who sends to whom: host i to i + shift; a random permutation (from the seed); "
             "senders to one receiver; every host to every other; a list of flows.")
        .Key("transport", "messages, rdma", "messages",
             "messages: a MessageSource per flow (paced at data_rate, no transport); rdma: one "
             "reliable queue pair per flow, configured by the rdma section.")
        .Key("bytes", kBytesAllowed, "1048576", "Bytes per flow.")
        .Key("start", "a time with a unit", "0s", "When every flow starts.")
        .Key("shift", "an integer in [1, hosts - 1]", "hosts / 2", "The shift pattern's offset.")
        .Key("senders", "an integer in [1, hosts - 1]", "hosts - 1", "The incast's senders.")
        .Key("receiver", "a host id", "0", "The incast's receiver.")
        .Key("flows", "a list of {src, dst, bytes, start}", "none", "The flows pattern's flows.")
        .Bind(MessageSource::GetTypeId(), set,
              {"Destination", "MessageBytes", "FlowId", "UdpSourcePort"}) // per flow
        .Moved("rate", "traffic.data_rate");
    return MovedRdmaKeys(schema);
}

/** traffic.transport and what goes with it. */
void
BuildTransport(const json& t, Scenario& s)
{
    const std::string w = "traffic";
    const std::string transport = GetString(t, w, "transport", "messages");
    if (transport != "messages" && transport != "rdma")
    {
        Fail("traffic.transport", t.at("transport"), "allowed: \"messages\", \"rdma\"");
    }
    s.rdma = transport == "rdma";
    if (s.rdma && t.contains("priority"))
    {
        Fail("traffic.priority", t.at("priority"),
             "with \"transport\": \"rdma\" the queue pairs' class is rdma.priority");
    }
    for (const char* key : {"data_rate", "payload_size"})
    {
        if (s.rdma && t.contains(key))
        {
            Fail(Path(w, key), t.at(key), "a message source's; not with \"transport\": \"rdma\"");
        }
    }
}

void
BuildTraffic(const json& doc, Scenario& s)
{
    const std::string w = "traffic";
    if (!doc.contains("traffic"))
    {
        if (!doc.contains("collective") && !doc.contains("training") &&
            !doc.contains("availability"))
        {
            Fail(w, json(nullptr), "required (an object with a \"pattern\") unless the "
                                   "scenario has a \"collective\", \"training\" or "
                                   "\"availability\"");
        }
        return;
    }
    const json& t = doc.at("traffic");
    TrafficSchema([&s](const std::string& n, const AttributeValue& v) {
        s.sources.SetAttribute(n, v);
    }).Apply(t);
    BuildTransport(t, s);
    const uint32_t hosts = s.topology.GetNHosts();
    const uint64_t bytes = GetBytes(t, w, "bytes", 1 << 20, 1, uint64_t(1) << 40);
    const Time start = GetTime(t, w, "start", Time(0));
    const std::string pattern = GetString(t, w, "pattern", "");
    if (pattern == "shift")
    {
        const auto shift = uint32_t(GetUnsigned(t, w, "shift", hosts / 2, 1, hosts - 1));
        for (uint32_t i = 0; i < hosts; ++i)
        {
            s.flows.push_back({i, (i + shift) % hosts, bytes, start});
        }
    }
    else if (pattern == "permutation")
    {
        // A random derangement from the scenario's seed (Sattolo's algorithm: one cycle).
        std::vector<uint32_t> dst(hosts);
        std::iota(dst.begin(), dst.end(), 0);
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(kTrafficStream);
        for (uint32_t i = hosts - 1; i > 0; --i)
        {
            std::swap(dst[i], dst[u->GetInteger(0, i - 1)]);
        }
        for (uint32_t i = 0; i < hosts; ++i)
        {
            s.flows.push_back({i, dst[i], bytes, start});
        }
    }
    else if (pattern == "incast")
    {
        const uint32_t receiver = GetHost(t, w, "receiver", hosts);
        const auto senders = uint32_t(GetUnsigned(t, w, "senders", hosts - 1, 1, hosts - 1));
        for (uint32_t i = 0, n = 0; n < senders; ++i)
        {
            if (i != receiver)
            {
                s.flows.push_back({i, receiver, bytes, start});
                ++n;
            }
        }
    }
    else if (pattern == "all_to_all")
    {
        for (uint32_t i = 0; i < hosts; ++i)
        {
            for (uint32_t j = 0; j < hosts; ++j)
            {
                if (i != j)
                {
                    s.flows.push_back({i, j, bytes, start});
                }
            }
        }
    }
    else if (pattern == "flows")
    {
        if (!t.contains("flows") || !t.at("flows").is_array() || t.at("flows").empty())
        {
            Fail("traffic.flows", t.contains("flows") ? t.at("flows") : json(nullptr),
                 "required for pattern \"flows\": a non-empty array of {src, dst, bytes, start}");
        }
        for (std::size_t i = 0; i < t.at("flows").size(); ++i)
        {
            const json& f = t.at("flows")[i];
            const std::string fw = "traffic.flows[" + std::to_string(i) + "]";
            CheckKeys(f, fw, {"src", "dst", "bytes", "start"});
            FlowSpec spec{GetHost(f, fw, "src", hosts), GetHost(f, fw, "dst", hosts),
                          GetBytes(f, fw, "bytes", bytes, 1, uint64_t(1) << 40),
                          GetTime(f, fw, "start", start)};
            if (spec.src == spec.dst)
            {
                Fail(fw + ".dst", f.at("dst"), "must differ from src");
            }
            s.flows.push_back(spec);
        }
    }
    else
    {
        Fail("traffic.pattern", t.contains("pattern") ? t.at("pattern") : json(nullptr),
             "allowed: \"shift\", \"permutation\", \"incast\", \"all_to_all\", \"flows\"");
    }
}

/** One collective size, \p key of \p c, which must be a whole multiple of \p quantum. */
uint64_t
SingleCollectiveSize(const json& c, const std::string& w, const char* key, uint64_t quantum)
{
    const uint64_t bytes = GetBytes(c, w, key, 0, 1, uint64_t(1) << 40);
    if (bytes % quantum != 0)
    {
        Fail(Path(w, key), c.at(key),
             "must be a multiple of " + std::to_string(quantum) +
                 " B (4 B float elements, and one piece per rank where the operation needs it)");
    }
    return bytes;
}

/** The sizes of collective section \p c: "bytes", or "min_bytes" .. "max_bytes" by "factor". */
std::vector<uint64_t>
CollectiveSizes(const json& c, const std::string& w, uint64_t quantum, std::string& note)
{
    const uint64_t limit = uint64_t(1) << 40;
    if (c.contains("bytes"))
    {
        for (const char* key : {"min_bytes", "max_bytes", "factor"})
        {
            if (c.contains(key))
            {
                Fail(Path(w, key), c.at(key), "not with \"bytes\" (one size or a sweep)");
            }
        }
        return {SingleCollectiveSize(c, w, "bytes", quantum)};
    }
    const uint64_t lo = GetBytes(c, w, "min_bytes", 8, 1, limit);
    const uint64_t hi = GetBytes(c, w, "max_bytes", lo, lo, limit);
    if (lo == hi)
    {
        return {SingleCollectiveSize(c, w, "min_bytes", quantum)}; // one size: no rounding
    }
    const uint64_t factor = GetUnsigned(c, w, "factor", 2, 2, 1024);
    std::vector<uint64_t> sizes;
    for (uint64_t n = lo; n <= hi; n *= factor)
    {
        // nccl-tests rounds each size down to whole elements (per rank where needed).
        const uint64_t rounded = n / quantum * quantum;
        if (rounded != n)
        {
            note = "sizes rounded down to a multiple of " + std::to_string(quantum) + " B";
        }
        if (rounded > 0 && (sizes.empty() || sizes.back() != rounded))
        {
            sizes.push_back(rounded);
        }
    }
    if (sizes.empty())
    {
        Fail(Path(w, "max_bytes"), c.at("max_bytes"),
             "the sweep has no size of at least " + std::to_string(quantum) + " B");
    }
    return sizes;
}

/** The collective section's keys: the sweep's and the algorithm's attributes (\p algorithm). */
SectionSchema
CollectiveSchema(TypeId algorithm, const SectionSchema::Setter& set)
{
    std::string algorithms;
    for (const auto& name : CollectiveAlgorithm::GetNames())
    {
        algorithms += (algorithms.empty() ? "" : ", ") + name;
    }
    SectionSchema schema("collective");
    schema.Key("op", CollectiveOperationNames(), "allreduce", "The collective operation.")
        .Key("algorithm", algorithms, "auto", "How the collective is scheduled.")
        .Key("bytes", kBytesAllowed, "none",
             "One size (per rank's buffer, as nccl-tests counts it).")
        .Key("min_bytes", kBytesAllowed, "8", "The sweep's first size.")
        .Key("max_bytes", kBytesAllowed, "min_bytes", "The sweep's last size.")
        .Key("factor", "an integer in [2, 1024]", "2", "Each size of the sweep over the last.")
        .Key("ranks", "an integer in [2, hosts]", "every host", "Ranks on hosts 0..ranks-1.")
        .Key("root", "an integer in [0, ranks - 1]", "0", "The root of broadcast and reduce.")
        .Key("iterations", "an integer in [1, 1000]", "1", "Timed runs of each size (nccl-tests -n).")
        .Key("warmup_iterations", "an integer in [0, 1000]", "0",
             "Untimed runs of each size before the timed ones (nccl-tests -w, whose default is "
             "1): queue pairs connect and congestion control settles in them.")
        .Key("launch", "barrier, stream", "barrier",
             "barrier: each run starts when every rank finished the last; stream: queued back "
             "to back on every rank.")
        .Key("timeline_max_steps", "an integer", std::to_string(CollectiveSpec().timelineMaxSteps),
             "Larger runs skip timeline.json.")
        .Bind(algorithm, set)
        .Moved("priority", "rdma.priority");
    return MovedRdmaKeys(schema);
}

/** The "collective" and "accelerator" sections. */
void
BuildCollective(const json& doc, Scenario& s)
{
    const std::string w = "collective";
    if (!doc.contains(w))
    {
        return;
    }
    const json& c = doc.at(w);
    if (!c.is_object())
    {
        Fail(w, c, "must be an object");
    }
    // Plain messages (MessageSource) address queue-pair numbers the sweep's queue pairs use,
    // and would land on them; RDMA messages have queue pairs of their own.
    if (doc.contains("traffic") && doc.at("traffic").is_object() &&
        doc.at("traffic").value("transport", json("messages")) != json("rdma"))
    {
        Fail("traffic.transport", doc.at("traffic").value("transport", json("messages")),
             "with a \"collective\" sweep, background traffic must be \"rdma\" (plain "
             "messages would land on the sweep's queue pairs)");
    }
    s.hasCollective = true;
    CollectiveSpec& spec = s.collective;
    const std::string op = GetString(c, w, "op", "allreduce");
    if (!ParseCollectiveOperation(op, spec.op))
    {
        Fail(Path(w, "op"), c.at("op"), "allowed: " + CollectiveOperationNames());
    }
    spec.algorithm = GetString(c, w, "algorithm", "auto");
    Ptr<CollectiveAlgorithm> algorithm;
    try
    {
        algorithm = CollectiveAlgorithm::Create(spec.algorithm);
    }
    catch (const std::invalid_argument& e)
    {
        Fail(Path(w, "algorithm"), c.at("algorithm"), e.what());
    }
    if (!algorithm->Supports(spec.op))
    {
        std::string able;
        for (const auto& name : CollectiveAlgorithm::GetNames())
        {
            able += CollectiveAlgorithm::Create(name)->Supports(spec.op)
                        ? (able.empty() ? "" : ", ") + name
                        : "";
        }
        Fail(Path(w, "algorithm"), c.at("algorithm"),
             "does not implement " + op + "; algorithms that do: " + able);
    }
    const TypeId tid = algorithm->GetInstanceTypeId();
    spec.algorithmFactory.SetTypeId(tid);
    auto& factory = spec.algorithmFactory;
    CollectiveSchema(tid, [&factory](const std::string& n, const AttributeValue& v) {
        factory.Set(n, v);
    }).Apply(c);
    const uint32_t hosts = s.topology.GetNHosts();
    if (hosts < 2)
    {
        Fail("topology", doc.at("topology"), "a collective needs at least 2 hosts");
    }
    spec.ranks = uint32_t(GetUnsigned(c, w, "ranks", hosts, 2, hosts));
    spec.root = uint32_t(GetUnsigned(c, w, "root", 0, 0, spec.ranks - 1));
    spec.iterations = uint32_t(GetUnsigned(c, w, "iterations", 1, 1, 1000));
    spec.warmup = uint32_t(GetUnsigned(c, w, "warmup_iterations", 0, 0, 1000));
    const std::string launch = GetString(c, w, "launch", "barrier");
    if (launch != "barrier" && launch != "stream")
    {
        Fail(Path(w, "launch"), c.at("launch"), "allowed: barrier, stream");
    }
    spec.stream = launch == "stream";
    spec.timelineMaxSteps = GetUnsigned(c, w, "timeline_max_steps", spec.timelineMaxSteps);
    const bool perRank = spec.op == REDUCE_SCATTER || spec.op == ALL_GATHER || spec.op == ALL_TO_ALL;
    spec.sizes = CollectiveSizes(c, w, perRank ? 4 * uint64_t(spec.ranks) : 4, spec.sizeNote);
    const bool powerOfTwo = (spec.ranks & (spec.ranks - 1)) == 0;
    if (!powerOfTwo && (spec.algorithm == "recursive-doubling" || spec.algorithm == "halving-doubling"))
    {
        Fail(Path(w, "ranks"), json(spec.ranks),
             "algorithm \"" + spec.algorithm + "\" needs a power-of-two number of ranks");
    }
}

/** The keys of a training job object: TrainingJob's attributes and how it is placed. */
SectionSchema
JobSchema(const SectionSchema::Setter& set)
{
    SectionSchema schema("training.jobs");
    schema.Bind(TrainingJob::GetTypeId(), set)
        .Key("placement", "\"packed\", \"scattered\"", "packed",
             "packed: free GPUs in order, so a tensor-parallel group shares a server; "
             "scattered: a seeded random choice.")
        .Key("placement_map", "a file of \"rank gpu\" lines (GPUs by name, e.g. s3g5, or host id)",
             "none", "The job's placement, rank by rank; not with placement.")
        .Key("server_slowdown", "an object of server index -> factor >= 1", "{}",
             "Compute slowdown of every GPU of the given servers, e.g. {\"3\": 1.5}.")
        .Key("algorithms", "an object of tensor, expert, data, pipeline -> algorithm name",
             "auto", "The collective algorithm of each parallel axis.")
        .Moved("overlap", "overlap_gradient_reduction");
    return schema;
}

/** The "training" section: each job of "jobs". */
void
BuildTraining(const json& doc, Scenario& s)
{
    const std::string w = "training";
    if (!doc.contains(w))
    {
        return;
    }
    const json& t = doc.at(w);
    SectionSchema schema("training");
    schema
        .Key("jobs", "a list of job objects (training.jobs)", "required", "The jobs to run.")
        .Key("timeline_max_spans", "an integer",
             std::to_string(TrainingSpec().timelineMaxSpans), "Larger runs skip timeline.json.");
    MovedRdmaKeys(schema).Apply(t);
    if (doc.contains("collective"))
    {
        Fail(w, t, "not with a \"collective\" sweep in the same scenario (use \"traffic\" for "
                   "background load)");
    }
    s.training.timelineMaxSpans = GetUnsigned(t, w, "timeline_max_spans", s.training.timelineMaxSpans);
    if (!t.contains("jobs") || !t.at("jobs").is_array() || t.at("jobs").empty())
    {
        Fail(Path(w, "jobs"), t.contains("jobs") ? t.at("jobs") : json(nullptr),
             "required: an array of at least one job object");
    }
    s.hasTraining = true;
    std::set<std::string> names;
    const json& jobs = t.at("jobs");
    for (std::size_t i = 0; i < jobs.size(); ++i)
    {
        const json& j = jobs[i];
        const std::string wj = w + ".jobs[" + std::to_string(i) + "]";
        TrainingJobHelper helper;
        ObjectFactory job(TrainingJob::GetTypeId().GetName());
        JobSchema([&](const std::string& n, const AttributeValue& v) {
            helper.SetJobAttribute(n, v);
            job.Set(n, v);
        }).Apply(j, wj);
        const std::string name = GetString(j, wj, "name", "job" + std::to_string(i));
        // Names go into CSV rows and the timeline as they are: plain words only.
        if (!std::regex_match(name, std::regex("[A-Za-z0-9_.-]{1,64}")))
        {
            Fail(Path(wj, "name"), j.at("name"),
                 "1 to 64 letters, digits, '_', '-' or '.' (no spaces, quotes or commas)");
        }
        if (!names.insert(name).second)
        {
            Fail(Path(wj, "name"), json(name), "another job has this name; names must differ");
        }
        helper.SetJobAttribute("Name", StringValue(name));
        job.Set("Name", StringValue(name));
        if (!j.contains("ranks"))
        {
            Fail(Path(wj, "ranks"), json(nullptr), "required: the job's number of GPUs");
        }
        try
        {
            job.Create<TrainingJob>()->Check();
        }
        catch (const std::invalid_argument& e)
        {
            Fail(wj, j, e.what());
        }
        if (j.contains("placement") && j.contains("placement_map"))
        {
            Fail(Path(wj, "placement_map"), j.at("placement_map"), "give placement or placement_map, not both");
        }
        if (j.contains("placement_map"))
        {
            const std::string path = GetString(j, wj, "placement_map", "");
            try
            {
                helper.SetPlacement(JobPlacement::FromMapFile(path));
            }
            catch (const std::invalid_argument& e)
            {
                Fail(Path(wj, "placement_map"), j.at("placement_map"), e.what());
            }
            s.training.placements.push_back("map " + path);
        }
        else
        {
            const std::string placement = GetString(j, wj, "placement", "packed");
            try
            {
                helper.SetPlacement(JobPlacement::FromName(placement));
            }
            catch (const std::invalid_argument& e)
            {
                Fail(Path(wj, "placement"), j.at("placement"), e.what());
            }
            s.training.placements.push_back(placement);
        }
        if (j.contains("server_slowdown"))
        {
            const std::string ws = Path(wj, "server_slowdown");
            const json& o = j.at("server_slowdown");
            if (!o.is_object())
            {
                Fail(ws, o, "must be an object of server index -> slowdown factor");
            }
            uint32_t servers = 0;
            for (uint32_t h = 0; h < s.topology.GetNHosts(); ++h)
            {
                servers = std::max(servers, s.topology.GetNode(s.topology.HostNode(h)).server + 1);
            }
            for (const auto& [server, factor] : o.items())
            {
                const bool digits = !server.empty() && server.size() < 10 &&
                                    server.find_first_not_of("0123456789") == std::string::npos;
                if (!digits || std::stoul(server) >= servers)
                {
                    Fail(Path(ws, server), factor,
                         "keys must be server indices 0-" + std::to_string(servers - 1));
                }
                const double f = GetNumber(o, ws, server, 1, false);
                helper.SetServerSlowdown(static_cast<uint32_t>(std::stoul(server)), f);
            }
        }
        if (j.contains("algorithms"))
        {
            const std::string wa = Path(wj, "algorithms");
            const json& a = j.at("algorithms");
            CheckKeys(a, wa, {"tensor", "expert", "data", "pipeline"});
            const std::pair<const char*, ParallelAxis> axes[] = {
                {"tensor", ParallelAxis::TENSOR},
                {"expert", ParallelAxis::EXPERT},
                {"data", ParallelAxis::DATA},
                {"pipeline", ParallelAxis::PIPELINE}};
            for (const auto& [key, axis] : axes)
            {
                if (!a.contains(key))
                {
                    continue;
                }
                try
                {
                    helper.SetAlgorithm(axis, CollectiveAlgorithm::Create(GetString(a, wa, key, "")));
                }
                catch (const std::invalid_argument& e)
                {
                    Fail(Path(wa, key), a.at(key), e.what());
                }
            }
        }
        s.training.jobs.push_back(helper);
    }
}

void
BuildLinkEvents(const json& doc, Scenario& s)
{
    if (!doc.contains("link_events"))
    {
        return;
    }
    const json& events = doc.at("link_events");
    if (!events.is_array())
    {
        Fail("link_events", events, "must be an array of {link, at, state}");
    }
    for (std::size_t i = 0; i < events.size(); ++i)
    {
        const json& e = events[i];
        const std::string w = "link_events[" + std::to_string(i) + "]";
        CheckKeys(e, w, {"link", "at", "state"});
        const uint32_t link = GetLink(e, w, "link", s.topology);
        const std::string state = GetString(e, w, "state", "down");
        if (state != "down" && state != "up")
        {
            Fail(w + ".state", e.at("state"), "allowed: \"down\", \"up\"");
        }
        s.linkEvents.push_back({link, GetTime(e, w, "at", Time(0)), state == "up"});
    }
}

/** A time that must be > 0. */
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
        .Key("horizon", "a time with a unit, <= 100d", "30d", "Wall time each run covers.")
        .Key("iteration_times",
             "an object of healthy, link_down, reduced_rate, bit_errors -> time", "measured",
             "The job's iteration time in each fabric state; measured at packet level on the "
             "one training job when left out.")
        .Key("links", "an object of link_down, reduced_rate, bit_errors -> link id or name (\"s0g0-l0\")", "chosen",
             "The link each measured state fails.")
        .Key("sweep_intervals", "a non-empty array of times", "none",
             "Fixed checkpoint intervals to compare (availability.csv).")
        .Key("runs", "an integer in [1, 10000]", "1", "Independent runs (seeds) averaged.");
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
    v.horizon = GetPositiveTime(a, w, "horizon", Days(30));
    if (v.horizon > Days(100)) // leave room for events past the horizon
    {
        Fail(Path(w, "horizon"), a.at("horizon"),
             "must be <= 100d (ns-3's picosecond clock ends at 106 days; use more runs instead)");
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
    v.runs = uint32_t(GetUnsigned(a, w, "runs", 1, 1, 10000));
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

void
PrintScenarioKeys(std::ostream& os, const std::string& section)
{
    Scenario s;
    const SectionSchema::Setter none = [](const std::string&, const AttributeValue&) {};
    std::vector<SectionSchema> sections;
    std::string kinds;
    for (const auto& [name, tid] : TopologyKinds())
    {
        kinds += (kinds.empty() ? "" : ", ") + name;
    }
    sections.push_back(
        SectionSchema("topology")
            .Key("kind",
                 kinds,
                 "required",
                 "The TopologyHelper subclass that builds the fabric (fat_tree is "
                 "ns3::FatTreeTopologyHelper); the keys of every kind follow, then each kind's "
                 "own, marked with its helper's TypeId.")
            .Bind(TopologyHelper::GetTypeId(), none));
    for (const auto& [name, tid] : TopologyKinds())
    {
        sections.push_back(SectionSchema("topology").Bind(tid, none)); // per kind
    }
    for (SectionSchema& schema : AttributeSections(s))
    {
        sections.push_back(std::move(schema));
    }
    sections.push_back(TrafficSchema(none));
    sections.push_back(CollectiveSchema(AutoCollectiveAlgorithm::GetTypeId(), none));
    for (const auto& name : CollectiveAlgorithm::GetNames())
    {
        const TypeId tid = CollectiveAlgorithm::Create(name)->GetInstanceTypeId();
        if (tid != AutoCollectiveAlgorithm::GetTypeId())
        {
            sections.push_back(SectionSchema("collective").Bind(tid, none)); // per algorithm
        }
    }
    sections.push_back(JobSchema(none));
    ModeAttributes attributes;
    sections.push_back(ComponentsSchema(&attributes));
    sections.push_back(InjectSchema(&attributes));
    AvailabilitySpec availability;
    sections.push_back(AvailabilitySchema(availability));
    sections.push_back(PricesSchema(s.prices));
    sections.push_back(MonitorSchema(s.monitor));
    std::string names;
    bool found = false;
    for (const SectionSchema& schema : sections)
    {
        if (names.find(schema.GetName()) == std::string::npos)
        {
            names += (names.empty() ? "" : ", ") + schema.GetName();
        }
        found = found || schema.GetName() == section;
    }
    if (!section.empty() && !found)
    {
        throw ScenarioError("--print-keys=" + section + ": no generated keys; sections: " +
                            names +
                            " (the others are described in contrib/ai-fabric/doc/ai-fabric.rst, "
                            "\"Writing a scenario\")");
    }
    os << "| key | allowed | default | help |\n|---|---|---|---|\n";
    for (const SectionSchema& schema : sections)
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
    CheckKeys(doc, "scenario", {"name", "description", "seed", "topology", "switch", "port",
                                "routing", "rdma", "traffic", "collective", "training",
                                "accelerator", "link_events", "failures", "availability",
                                "stop_time", "prices", "monitor"});
    Scenario s;
    s.document = doc;
    s.name = GetString(doc, "scenario", "name", "unnamed");
    s.seed = uint32_t(GetUnsigned(doc, "scenario", "seed", 1, 1, UINT32_MAX));
    RngSeedManager::SetSeed(s.seed);
    if (!doc.contains("topology"))
    {
        Fail("topology", json(nullptr), "required: an object with a \"kind\"");
    }
    s.topology = BuildTopology(doc.at("topology"));
    for (const SectionSchema& section : AttributeSections(s))
    {
        if (doc.contains(section.GetName()))
        {
            section.Apply(doc.at(section.GetName()));
        }
    }
    ConfigureNetwork(doc, s);
    BuildTraffic(doc, s);
    BuildCollective(doc, s);
    BuildTraining(doc, s);
    if (doc.contains("rdma") && !s.rdma && !s.hasCollective && !s.hasTraining)
    {
        Fail("rdma", doc.at("rdma"),
             "this scenario has no queue pairs: they come with traffic.transport \"rdma\", a "
             "\"collective\" or a \"training\" section");
    }
    BuildLinkEvents(doc, s);
    BuildFailures(doc, s);
    s.stopTime = GetTime(doc, "scenario", "stop_time", Time(0));
    BuildAvailability(doc, s);
    if (s.failures.random && !s.hasAvailability && s.stopTime.IsZero())
    {
        Fail("stop_time", json(nullptr),
             "required with failures.components at packet level: failure processes never end "
             "(or add an \"availability\" section for a long-horizon run)");
    }
    if (doc.contains("prices"))
    {
        PricesSchema(s.prices).Apply(doc.at("prices"));
    }
    if (doc.contains("monitor"))
    {
        MonitorSchema(s.monitor).Apply(doc.at("monitor"));
        s.hasMonitor = true;
    }
    return s;
}

} // namespace aifabric
