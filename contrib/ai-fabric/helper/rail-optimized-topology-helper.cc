#include "rail-optimized-topology-helper.h"

#include <stdexcept>
#include <string>

namespace ns3
{

RailOptimizedTopologyHelper::RailOptimizedTopologyHelper(uint32_t servers,
                                                         uint32_t gpusPerServer,
                                                         uint32_t serversPerGroup)
    : m_serversPerGroup(serversPerGroup)
{
    SetCluster(ClusterHelper(servers, gpusPerServer));
}

FabricTopology
RailOptimizedTopologyHelper::Build() const
{
    const uint32_t servers = m_cluster.GetNServers();
    const uint32_t rails = m_cluster.GetGpusPerServer();
    const uint32_t perGroup = m_serversPerGroup ? m_serversPerGroup : servers;
    if (servers % perGroup != 0)
    {
        throw std::invalid_argument("servers_per_group = " + std::to_string(perGroup) +
                                    ": must divide servers (" + std::to_string(servers) + ")");
    }
    if (m_railOnly && perGroup != servers)
    {
        throw std::invalid_argument("servers_per_group = " + std::to_string(perGroup) +
                                    ": a rail-only fabric has one group of all " +
                                    std::to_string(servers) + " servers");
    }
    if (!m_railOnly && (m_ratio == 0 || perGroup % m_ratio != 0))
    {
        throw std::invalid_argument("oversubscription = " + std::to_string(m_ratio) +
                                    ": must be >= 1 and divide servers_per_group (" +
                                    std::to_string(perGroup) + ")");
    }
    FabricTopology topo;
    topo.SetHostsAreTransit(m_railOnly);
    const auto gpus = m_cluster.Build(topo);
    const uint32_t groups = servers / perGroup;
    std::vector<uint32_t> leaf; // [group * rails + rail]
    for (uint32_t g = 0; g < groups; ++g)
    {
        for (uint32_t r = 0; r < rails; ++r)
        {
            leaf.push_back(topo.AddNode(FabricTopology::Role::Leaf,
                                        "g" + std::to_string(g) + "r" + std::to_string(r), g));
        }
    }
    for (uint32_t s = 0; s < servers; ++s)
    {
        for (uint32_t r = 0; r < rails; ++r)
        {
            topo.AddLink(gpus[s][r], leaf[(s / perGroup) * rails + r], m_cluster.GetNicRate(),
                         m_cables.hostToLeaf, FabricTopology::CableFor(m_cables.hostToLeaf));
        }
    }
    if (m_railOnly)
    {
        return topo;
    }
    const uint32_t spines = perGroup / m_ratio;
    std::vector<uint32_t> spine;
    for (uint32_t s = 0; s < spines; ++s)
    {
        spine.push_back(topo.AddNode(FabricTopology::Role::Spine, "sp" + std::to_string(s)));
    }
    for (uint32_t l : leaf)
    {
        for (uint32_t s : spine)
        {
            topo.AddLink(l,
                         s,
                         FabricRate(),
                         m_cables.leafToSpine,
                         FabricTopology::CableFor(m_cables.leafToSpine));
        }
    }
    return topo;
}

} // namespace ns3
