#include "fabric-partition.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{
constexpr uint32_t kShared = std::numeric_limits<uint32_t>::max();

/** Rank order of a tier: hosts and NVSwitches below leaves below spines below cores. */
int
Tier(FabricTopology::Role role)
{
    switch (role)
    {
    case FabricTopology::Role::Host:
    case FabricTopology::Role::NvSwitch:
    case FabricTopology::Role::NvlsEngine:
        return 0;
    case FabricTopology::Role::Leaf:
        return 1;
    case FabricTopology::Role::Spine:
        return 2;
    case FabricTopology::Role::Core:
        return 3;
    }
    return 0;
}

uint32_t
Neighbour(const FabricTopology& topo, uint32_t node, uint32_t link)
{
    const auto& l = topo.GetLink(link);
    return l.a == node ? l.b : l.a;
}
} // namespace

std::vector<uint32_t>
FabricPartition::ByGroup(const FabricTopology& topo, uint32_t ranks)
{
    const uint32_t n = topo.GetNNodes();
    if (ranks == 0 || ranks > n)
    {
        throw std::invalid_argument(std::to_string(ranks) + " MPI ranks for a fabric of " +
                                    std::to_string(n) + " nodes: allowed 1 to " +
                                    std::to_string(n));
    }
    std::vector<uint32_t> group(n, kShared);
    // Leaves, then each server's lowest leaf group.
    std::map<uint32_t, uint32_t> serverGroup;
    for (uint32_t id = 0; id < n; ++id)
    {
        const auto& node = topo.GetNode(id);
        if (node.role == FabricTopology::Role::Leaf)
        {
            group[id] = node.group;
        }
    }
    for (uint32_t id = 0; id < n; ++id)
    {
        const auto& node = topo.GetNode(id);
        if (node.role != FabricTopology::Role::Host)
        {
            continue;
        }
        auto it = serverGroup.emplace(node.server, kShared).first;
        for (uint32_t link : node.links)
        {
            const uint32_t m = Neighbour(topo, id, link);
            if (topo.GetNode(m).role == FabricTopology::Role::Leaf)
            {
                it->second = std::min(it->second, group[m]);
            }
        }
    }
    for (uint32_t id = 0; id < n; ++id)
    {
        const auto& node = topo.GetNode(id);
        if (node.role == FabricTopology::Role::Host || node.role == FabricTopology::Role::NvSwitch ||
            node.role == FabricTopology::Role::NvlsEngine)
        {
            // An NVSwitch's and its engine's group is their server.
            auto it = serverGroup.find(node.role == FabricTopology::Role::NvSwitch ? node.group
                                                                                   : node.server);
            group[id] = it == serverGroup.end() || it->second == kShared ? 0 : it->second;
        }
    }
    // Upper tiers, bottom up: a switch whose downstream switches share one group joins it.
    for (int tier = 2; tier <= 3; ++tier)
    {
        for (uint32_t id = 0; id < n; ++id)
        {
            const auto& node = topo.GetNode(id);
            if (Tier(node.role) != tier)
            {
                continue;
            }
            std::set<uint32_t> below;
            for (uint32_t link : node.links)
            {
                const uint32_t m = Neighbour(topo, id, link);
                if (Tier(topo.GetNode(m).role) < tier)
                {
                    below.insert(group[m]);
                }
            }
            group[id] = below.size() == 1 ? *below.begin() : kShared;
        }
    }
    std::set<uint32_t> groups;
    for (uint32_t g : group)
    {
        if (g != kShared)
        {
            groups.insert(g);
        }
    }
    if (groups.size() < ranks)
    {
        throw std::invalid_argument(std::to_string(ranks) + " MPI ranks for a fabric of " +
                                    std::to_string(groups.size()) +
                                    " groups (pods, rail groups or leaves): allowed 1 to " +
                                    std::to_string(groups.size()));
    }
    std::map<uint32_t, uint32_t> rankOfGroup;
    uint32_t index = 0;
    for (uint32_t g : groups)
    {
        rankOfGroup[g] = static_cast<uint32_t>(uint64_t(index++) * ranks / groups.size());
    }
    std::vector<uint32_t> rank(n);
    uint32_t shared = 0;
    for (uint32_t id = 0; id < n; ++id)
    {
        rank[id] = group[id] == kShared ? shared++ % ranks : rankOfGroup[group[id]];
    }
    return rank;
}

std::vector<uint32_t>
FabricPartition::FromMap(const FabricTopology& topo,
                         uint32_t ranks,
                         const std::map<std::string, uint32_t>& rankOfNode)
{
    const uint32_t n = topo.GetNNodes();
    if (ranks == 0 || ranks > n)
    {
        throw std::invalid_argument(std::to_string(ranks) + " MPI ranks for a fabric of " +
                                    std::to_string(n) + " nodes: allowed 1 to " +
                                    std::to_string(n));
    }
    std::map<std::string, uint32_t> idOf;
    for (uint32_t id = 0; id < n; ++id)
    {
        idOf[topo.GetNode(id).name] = id;
    }
    std::vector<uint32_t> rank(n, kShared);
    for (const auto& [name, r] : rankOfNode)
    {
        auto it = idOf.find(name);
        if (it == idOf.end())
        {
            throw std::invalid_argument("partition map: node \"" + name +
                                        "\" is not in the fabric (names as in links.csv)");
        }
        if (r >= ranks)
        {
            throw std::invalid_argument("partition map: node \"" + name + "\" on rank " +
                                        std::to_string(r) + ": allowed 0 to " +
                                        std::to_string(ranks - 1));
        }
        rank[it->second] = r;
    }
    for (uint32_t id = 0; id < n; ++id)
    {
        // An NVLS engine the map leaves out goes with its NVSwitch, its only neighbour.
        if (rank[id] == kShared && topo.GetNode(id).role == FabricTopology::Role::NvlsEngine)
        {
            rank[id] = rank[Neighbour(topo, id, topo.GetNode(id).links.front())];
        }
    }
    std::vector<bool> used(ranks, false);
    for (uint32_t id = 0; id < n; ++id)
    {
        if (rank[id] == kShared)
        {
            throw std::invalid_argument("partition map: node \"" + topo.GetNode(id).name +
                                        "\" has no rank; the map must place every node");
        }
        used[rank[id]] = true;
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (!used[r])
        {
            throw std::invalid_argument("partition map: rank " + std::to_string(r) +
                                        " has no node; every rank needs at least one");
        }
    }
    return rank;
}

uint32_t
FabricPartition::CountCutLinks(const FabricTopology& topo, const std::vector<uint32_t>& rankOfNode)
{
    uint32_t cut = 0;
    for (const auto& l : topo.Links())
    {
        cut += rankOfNode[l.a] != rankOfNode[l.b] ? 1 : 0;
    }
    return cut;
}

} // namespace ns3
