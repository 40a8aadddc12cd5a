#include "map-placement.h"

#include "ns3/string.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MapPlacement);

TypeId
MapPlacement::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MapPlacement")
            .SetParent<JobPlacement>()
            .SetGroupName("AiFabric")
            .AddConstructor<MapPlacement>()
            .AddAttribute("File",
                          "The map file: \"<rank> <gpu>\" lines (GPU by name such as s3g5, or "
                          "host id), '#' starts a comment.  Read when set.",
                          StringValue(""),
                          MakeStringAccessor(&MapPlacement::SetFile, &MapPlacement::GetFile),
                          MakeStringChecker());
    return tid;
}

Ptr<MapPlacement>
MapPlacement::FromText(const std::string& text, const std::string& origin)
{
    Ptr<MapPlacement> p = CreateObject<MapPlacement>();
    p->Parse(text, origin);
    return p;
}

void
MapPlacement::SetFile(std::string path)
{
    m_file = path;
    if (path.empty())
    {
        m_map.clear(); // the default: no map yet
        return;
    }
    std::ifstream f(path);
    if (!f)
    {
        throw std::invalid_argument("placement map '" + path + "' cannot be read");
    }
    std::stringstream text;
    text << f.rdbuf();
    Parse(text.str(), "placement map '" + path + "'");
}

void
MapPlacement::Parse(const std::string& text, const std::string& origin)
{
    m_origin = origin;
    m_map.clear();
    std::istringstream in(text);
    std::string line;
    for (uint32_t number = 1; std::getline(in, line); ++number)
    {
        line = line.substr(0, line.find('#'));
        for (char& c : line)
        {
            c = c == ',' || c == '\t' || c == '\r' ? ' ' : c;
        }
        std::istringstream fields(line);
        std::string rank;
        std::string gpu;
        std::string extra;
        if (!(fields >> rank))
        {
            continue; // blank or comment
        }
        const bool digits = rank.find_first_not_of("0123456789") == std::string::npos;
        if (!(fields >> gpu) || (fields >> extra) || !digits || rank.size() > 9)
        {
            throw std::invalid_argument(origin + " line " + std::to_string(number) +
                                        ": expected \"<rank> <gpu>\" (a rank number and a "
                                        "GPU name such as s0g1 or a host id), got \"" +
                                        line + "\"");
        }
        m_map.push_back({number, static_cast<uint32_t>(std::stoul(rank)), gpu});
    }
}

std::vector<uint32_t>
MapPlacement::Place(const FabricTopology& topology, uint32_t ranks,
                    const std::vector<bool>& taken, Ptr<UniformRandomVariable>) const
{
    const std::string origin = m_origin.empty() ? "placement map (none given)" : m_origin;
    std::map<std::string, uint32_t> hostByName;
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        hostByName[topology.GetNode(topology.HostNode(h)).name] = h;
        hostByName[std::to_string(h)] = h;
    }
    std::vector<uint32_t> hosts(ranks, UINT32_MAX);
    std::vector<bool> used(topology.GetNHosts(), false);
    for (const Entry& e : m_map)
    {
        const std::string at = origin + " line " + std::to_string(e.line) + ": ";
        if (e.rank >= ranks)
        {
            throw std::invalid_argument(at + "rank " + std::to_string(e.rank) +
                                        " is out of range; the job has ranks 0-" +
                                        std::to_string(ranks - 1));
        }
        if (hosts[e.rank] != UINT32_MAX)
        {
            throw std::invalid_argument(at + "rank " + std::to_string(e.rank) + " is mapped twice");
        }
        auto it = hostByName.find(e.gpu);
        if (it == hostByName.end())
        {
            throw std::invalid_argument(at + "GPU '" + e.gpu + "' is not in the topology (" +
                                        std::to_string(topology.GetNHosts()) +
                                        " GPUs, named like " +
                                        topology.GetNode(topology.HostNode(0)).name + ")");
        }
        if (used[it->second] || (it->second < taken.size() && taken[it->second]))
        {
            throw std::invalid_argument(at + "GPU '" + e.gpu + "' already runs a rank");
        }
        used[it->second] = true;
        hosts[e.rank] = it->second;
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (hosts[r] == UINT32_MAX)
        {
            throw std::invalid_argument(origin + ": rank " + std::to_string(r) +
                                        " has no GPU; the map must place ranks 0-" +
                                        std::to_string(ranks - 1));
        }
    }
    return hosts;
}

} // namespace ns3
