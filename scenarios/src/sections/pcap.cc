// The "pcap" section: a PCAP file per port of the nodes chosen (FabricPcapHelper).

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include <set>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

const IntegerKey kSnapLength{"snap_length", FabricPcapHelper::kDefaultSnapLength, 1, 262144,
                             "Bytes kept of each frame (libpcap's snaplen); 128 keeps every "
                             "header."};

/** Whose ports are captured unless the section says. */
constexpr const char* kDefaultNodes = "hosts";

SectionSchema
PcapSchema()
{
    SectionSchema schema("pcap");
    schema
        .Key("nodes", "\"hosts\", \"switches\", \"all\", or a list of node names (\"s0g0\", "
                      "\"l0\": links.csv's node column)",
             kDefaultNodes,
             "Whose ports are captured: each port's frames, both ways, into "
             "pcap-<node>-<peer>.pcap.")
        .Key(kSnapLength);
    return schema;
}

void
BuildPcap(const json& doc, Scenario& s)
{
    if (!doc.contains("pcap"))
    {
        return;
    }
    const std::string w = "pcap";
    const json& p = doc.at(w);
    PcapSchema().Apply(p);
    s.hasPcap = true;
    s.pcap.snapLength = uint32_t(Get(p, w, kSnapLength));
    const FabricTopology& topo = s.topology;
    const json nodes = p.value("nodes", json(kDefaultNodes));
    if (nodes.is_string())
    {
        const std::string kind = nodes.get<std::string>();
        if (kind != "hosts" && kind != "switches" && kind != "all")
        {
            Fail(Path(w, "nodes"), nodes,
                 "allowed: \"hosts\", \"switches\", \"all\", or a list of node names");
        }
        for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
        {
            const FabricTopology::Role role = topo.GetNode(n).role;
            const bool host = role == FabricTopology::Role::Host;
            if (role == FabricTopology::Role::NvlsEngine ? kind == "all"
                                                          : kind == "all" || (kind == "hosts") == host)
            {
                s.pcap.nodes.push_back(n);
            }
        }
        return;
    }
    if (!nodes.is_array() || nodes.empty())
    {
        Fail(Path(w, "nodes"), nodes,
             "allowed: \"hosts\", \"switches\", \"all\", or a non-empty list of node names");
    }
    std::set<uint32_t> chosen;
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        const std::string wi = Path(w, "nodes[" + std::to_string(i) + "]");
        uint32_t found = topo.GetNNodes();
        for (uint32_t n = 0; nodes[i].is_string() && n < topo.GetNNodes(); ++n)
        {
            found = topo.GetNode(n).name == nodes[i].get<std::string>() ? n : found;
        }
        if (found == topo.GetNNodes())
        {
            Fail(wi, nodes[i],
                 "no node of that name in this topology (names as in links.csv's node column, "
                 "e.g. \"" + topo.GetNode(topo.HostNode(0)).name + "\" or \"" +
                     topo.GetNode(topo.GetLink(topo.GetNode(topo.HostNode(0)).links.at(0)).b).name +
                     "\")");
        }
        if (!chosen.insert(found).second)
        {
            Fail(wi, nodes[i], "given twice");
        }
        s.pcap.nodes.push_back(found);
    }
}

} // namespace

ScenarioSection
PcapSection()
{
    ScenarioSection section;
    section.keys = {"pcap"};
    section.build = &BuildPcap;
    section.schemas = [](Scenario&) { return std::vector<SectionSchema>{PcapSchema()}; };
    return section;
}

} // namespace aifabric
