#include "job-placement.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

JobPlacement
JobPlacement::Packed()
{
    return JobPlacement(PACKED);
}

JobPlacement
JobPlacement::Scattered()
{
    return JobPlacement(SCATTERED);
}

JobPlacement
JobPlacement::FromName(const std::string& name)
{
    if (name == "packed")
    {
        return Packed();
    }
    if (name == "scattered")
    {
        return Scattered();
    }
    throw std::invalid_argument("placement '" + name +
                                "' is unknown; use packed, scattered or a map file");
}

JobPlacement
JobPlacement::FromMapText(const std::string& text, const std::string& origin)
{
    JobPlacement p(MAP);
    p.m_origin = origin;
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
        p.m_map.push_back({number, static_cast<uint32_t>(std::stoul(rank)), gpu});
    }
    return p;
}

JobPlacement
JobPlacement::FromMapFile(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
    {
        throw std::invalid_argument("placement map '" + path + "' cannot be read");
    }
    std::stringstream text;
    text << f.rdbuf();
    return FromMapText(text.str(), "placement map '" + path + "'");
}

namespace
{
void
RequireFree(uint32_t ranks, const std::vector<uint32_t>& free)
{
    if (free.size() < ranks)
    {
        throw std::invalid_argument("the job needs " + std::to_string(ranks) + " GPUs but only " +
                                    std::to_string(free.size()) + " are free");
    }
}
} // namespace

std::vector<uint32_t>
JobPlacement::Place(const FabricTopology& topology, uint32_t ranks,
                    const std::vector<bool>& taken, Ptr<UniformRandomVariable> random) const
{
    if (m_policy == MAP)
    {
        return PlaceMap(topology, ranks, taken);
    }
    std::vector<uint32_t> free;
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        if (h >= taken.size() || !taken[h])
        {
            free.push_back(h);
        }
    }
    RequireFree(ranks, free);
    if (m_policy == SCATTERED)
    {
        // The first `ranks` of a Fisher-Yates shuffle.
        for (uint32_t i = 0; i < ranks; ++i)
        {
            const uint32_t j = i + random->GetInteger(0, static_cast<uint32_t>(free.size()) - 1 - i);
            std::swap(free[i], free[j]);
        }
    }
    free.resize(ranks);
    return free;
}

std::vector<uint32_t>
JobPlacement::PlaceMap(const FabricTopology& topology, uint32_t ranks,
                       const std::vector<bool>& taken) const
{
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
        const std::string at = m_origin + " line " + std::to_string(e.line) + ": ";
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
            throw std::invalid_argument(m_origin + ": rank " + std::to_string(r) +
                                        " has no GPU; the map must place ranks 0-" +
                                        std::to_string(ranks - 1));
        }
    }
    return hosts;
}

} // namespace ns3
