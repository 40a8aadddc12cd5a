// The "traffic" section: flows of a pattern, as messages or on RDMA queue pairs.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>


using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

const WordKey kPattern{
    "pattern",
    {"shift",
     "permutation",
     "random",
     "incast",
     "all_to_all",
     "connection_matrix",
     "flows",
     "poisson"},
    "",
    "Who sends to whom (TrafficPatternHelper): host i to i + shift; a random derangement (from "
    "the seed); each host to a random other; senders to one receiver; every host to every "
    "other; an htsim connection-matrix file; a list of flows; open-loop flows at a load, "
    "Poisson arrivals with sizes from a distribution (flow_sizes, load, duration)."};
const WordKey kTransport{"transport", {"messages", "rdma"}, "messages",
                         "messages: a MessageSource per flow (paced at data_rate, no "
                         "transport); rdma: one reliable queue pair per flow, configured by the "
                         "rdma section."};
const TimeKey kStart{"start", "0s", "When every flow starts."};

/** The traffic section's keys: MessageSource's attributes and the pattern's. */
SectionSchema
TrafficSchema(const SectionSchema::Setter& set)
{
    SectionSchema schema("traffic");
    schema
        .Key(kPattern)
        .Key(kTransport)
        .Key("bytes", kBytesAllowed, std::to_string(TrafficPatternHelper::kDefaultFlowBytes),
             "Bytes per flow.")
        .Key(kStart) // but connection_matrix's: its lines give theirs
        .Key("shift", "an integer in [1, hosts - 1]", "hosts / 2", "The shift pattern's offset.")
        .Key("senders", "an integer in [1, hosts - 1]", "hosts - 1", "The incast's senders.")
        .Key("receiver", "a host id", "required", "The incast's receiver.")
        .Key("file", "a file path", "none",
             "The connection_matrix pattern's file, htsim's format: optional \"Nodes N\" and "
             "\"Connections C\" lines, then one \"src->dst [id I] start T [size S]\" line per "
             "flow, T in microseconds, S in bytes (0 or none: traffic.bytes); '#' comments; "
             "a relative path is read from the working folder.")
        .Key("flows", "a list of {src, dst, bytes, start}", "none", "The flows pattern's flows.")
        .Key("flow_sizes", "\"web_search\", \"fb_hadoop\" or a file path", "web_search",
             "The poisson pattern's flow-size CDF: DCTCP's web search or Facebook's Hadoop "
             "(HPCC's workloads), or a file of \"bytes percent\" lines (HPCC's format, "
             "linear between points); a relative path is read from the working folder.")
        .Key("load", "a number in (0, 1]", "0.3",
             "The poisson pattern's load: each host starts load x its NIC rate (the sum of its "
             "scale-out links) / (8 x the mean flow size) flows a second; those to hosts of its "
             "own server cross NVLink instead.")
        .Key("duration", "a time with a unit, > 0", "required",
             "The poisson pattern's span: flows start from traffic.start until this later.")
        .Bind(MessageSource::GetTypeId(), set,
              {"Destination", "MessageBytes", "FlowId", "UdpSourcePort"}) // per flow
        .Moved("rate", "traffic.data_rate");
    return MovedRdmaKeys(schema);
}

/** The keys of one flow of the flows pattern (traffic.flows[]). */
SectionSchema
FlowSchema()
{
    SectionSchema schema("traffic.flows");
    schema.Key("src", "a host id", "required", "The sending host.")
        .Key("dst", "a host id other than src", "required", "The receiving host.")
        .Key("bytes", kBytesAllowed, "traffic.bytes", "The flow's bytes.")
        .Key("start", "a time with a unit", "traffic.start", "When it starts.");
    return schema;
}

/** The most flows pattern "poisson" may start (each gets a pair of queue pairs). */
constexpr uint64_t kMaxPoissonFlows = 10000000;

/** The sum of host 0's scale-out (not NVLink) link rates: its NICs'. */
DataRate
HostNicRate(const FabricTopology& topology)
{
    uint64_t bps = 0;
    for (uint32_t link : topology.GetNode(topology.HostNode(0)).links)
    {
        const FabricTopology::Link& l = topology.GetLink(link);
        bps += l.medium == FabricTopology::Medium::NvLink ? 0 : l.rate.GetBitRate();
    }
    return DataRate(bps);
}

/** The flows of pattern "poisson" (traffic.flow_sizes, load, duration). */
std::vector<TrafficFlow>
PoissonFlows(const json& t, const Scenario& s, TrafficPatternHelper& patterns)
{
    const std::string w = "traffic";
    if (!t.contains("duration"))
    {
        Fail(Path(w, "duration"), json(nullptr),
             "required for pattern \"poisson\": the time over which flows start");
    }
    const std::string name = GetString(t, w, "flow_sizes", "web_search");
    const auto presets = FlowSizeDistribution::PresetNames();
    std::optional<FlowSizeDistribution> sizes;
    try
    {
        sizes = std::find(presets.begin(), presets.end(), name) != presets.end()
                    ? FlowSizeDistribution::Preset(name)
                    : FlowSizeDistribution::ReadFile(name);
    }
    catch (const std::invalid_argument& e)
    {
        std::string allowed;
        for (const std::string& preset : presets)
        {
            allowed += (allowed.empty() ? "\"" : ", \"") + preset + "\"";
        }
        Fail(Path(w, "flow_sizes"), t.at("flow_sizes"),
             std::string(e.what()) + " (or a preset: " + allowed + ")");
    }
    const double load = GetNumber(t, w, "load", 0.3, false);
    if (load > 1)
    {
        Fail(Path(w, "load"), t.at("load"), "must be in (0, 1]: a fraction of the NIC rate");
    }
    const DataRate rate = HostNicRate(s.topology);
    if (rate.GetBitRate() == 0)
    {
        Fail("traffic.pattern", json("poisson"), "host 0 has no scale-out link to load");
    }
    const Time duration = GetPositiveTime(t, w, "duration", Time());
    // One queue pair a flow: refuse what would not fit in memory, before drawing it.
    const double expected = s.topology.GetNHosts() * duration.GetSeconds() * load *
                            rate.GetBitRate() / (8 * sizes->Mean());
    if (expected > double(kMaxPoissonFlows))
    {
        Fail(Path(w, "duration"), t.at("duration"),
             "would start about " + std::to_string(static_cast<uint64_t>(expected)) +
                 " flows; at most " + std::to_string(kMaxPoissonFlows) +
                 " (shorten it or lower traffic.load)");
    }
    return patterns.Poisson(*sizes, load, rate, duration);
}

/** traffic.transport and what goes with it. */
void
BuildTransport(const json& t, Scenario& s)
{
    const std::string w = "traffic";
    s.rdma = Get(t, w, kTransport) == "rdma";
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
    if (hosts < 2)
    {
        Fail("topology", doc.at("topology"), "traffic needs at least 2 hosts");
    }
    TrafficPatternHelper patterns(hosts);
    const uint64_t bytes =
        GetBytes(t, w, "bytes", TrafficPatternHelper::kDefaultFlowBytes, 1, kMaxBytes);
    const Time start = Get(t, w, kStart);
    patterns.SetFlowBytes(bytes);
    patterns.SetStart(start);
    patterns.AssignStreams(kTrafficStream);
    const std::string pattern = Get(t, w, kPattern);
    // A key of another pattern is a mistake, not a no-op.
    static const std::map<std::string, std::set<std::string>> own{
        {"shift", {"shift"}},
        {"incast", {"senders", "receiver"}},
        {"connection_matrix", {"file"}},
        {"flows", {"flows"}},
        {"poisson", {"flow_sizes", "load", "duration"}}};
    for (const char* key :
         {"shift", "senders", "receiver", "file", "flows", "flow_sizes", "load", "duration"})
    {
        if (t.contains(key) && !(own.count(pattern) && own.at(pattern).count(key)))
        {
            Fail(Path(w, key), t.at(key), "not a key of pattern \"" + pattern + "\"");
        }
    }
    if (pattern == "poisson" && t.contains("bytes"))
    {
        Fail(Path(w, "bytes"), t.at("bytes"),
             "not with pattern \"poisson\": flow sizes come from traffic.flow_sizes");
    }
    if (pattern == "connection_matrix" && t.contains("start"))
    {
        Fail(Path(w, "start"), t.at("start"),
             "not with pattern \"connection_matrix\": each line of the file gives its start");
    }
    if (pattern == "shift")
    {
        s.flows = patterns.Shift(uint32_t(GetUnsigned(t, w, "shift", hosts / 2, 1, hosts - 1)));
    }
    else if (pattern == "permutation")
    {
        s.flows = patterns.Permutation();
    }
    else if (pattern == "random")
    {
        s.flows = patterns.Random();
    }
    else if (pattern == "incast")
    {
        const uint32_t receiver = GetHost(t, w, "receiver", hosts);
        s.flows = patterns.Incast(receiver,
                                  uint32_t(GetUnsigned(t, w, "senders", hosts - 1, 1, hosts - 1)));
    }
    else if (pattern == "all_to_all")
    {
        s.flows = patterns.AllToAll();
    }
    else if (pattern == "poisson")
    {
        s.flows = PoissonFlows(t, s, patterns);
    }
    else if (pattern == "connection_matrix")
    {
        if (!t.contains("file"))
        {
            Fail(Path(w, "file"), json(nullptr),
                 "required for pattern \"connection_matrix\": an htsim connection-matrix file");
        }
        try
        {
            s.flows = patterns.FromConnectionMatrixFile(GetString(t, w, "file", ""));
        }
        catch (const std::invalid_argument& e)
        {
            Fail(Path(w, "file"), t.at("file"), e.what());
        }
    }
    else
    {
        NS_ABORT_MSG_IF(pattern != "flows", "traffic: pattern " << pattern << " has no branch");
        if (!t.contains("flows") || !t.at("flows").is_array() || t.at("flows").empty())
        {
            Fail("traffic.flows", t.contains("flows") ? t.at("flows") : json(nullptr),
                 "required for pattern \"flows\": a non-empty array of {src, dst, bytes, start}");
        }
        for (std::size_t i = 0; i < t.at("flows").size(); ++i)
        {
            const json& f = t.at("flows")[i];
            const std::string fw = "traffic.flows[" + std::to_string(i) + "]";
            FlowSchema().Apply(f, fw);
            TrafficFlow flow{GetHost(f, fw, "src", hosts), GetHost(f, fw, "dst", hosts),
                             GetBytes(f, fw, "bytes", bytes, 1, kMaxBytes),
                             GetTime(f, fw, "start", start)};
            if (flow.src == flow.dst)
            {
                Fail(fw + ".dst", f.at("dst"), "must differ from src");
            }
            s.flows.push_back(flow);
        }
    }
}

} // namespace

ScenarioSection
TrafficSection()
{
    ScenarioSection section;
    section.keys = {"traffic"};
    section.build = &BuildTraffic;
    section.schemas = [](Scenario& s) {
        return std::vector<SectionSchema>{
            TrafficSchema([](const std::string&, const AttributeValue&) {}),
            FlowSchema()};
    };
    return section;
}

} // namespace aifabric
