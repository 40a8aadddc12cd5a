#include "leaf-spine-topology-helper.h"

#include <stdexcept>
#include <string>

namespace ns3
{

LeafSpineTopologyHelper::LeafSpineTopologyHelper(uint32_t leaves,
                                                 uint32_t hostsPerLeaf,
                                                 uint32_t oversubscription)
    : m_leaves(leaves),
      m_hostsPerLeaf(hostsPerLeaf),
      m_ratio(oversubscription)
{
    if (leaves > 0 && hostsPerLeaf > 0)
    {
        SetCluster(ClusterHelper(leaves * hostsPerLeaf, 1));
    }
}

FabricTopology
LeafSpineTopologyHelper::Build() const
{
    if (m_leaves == 0 || m_hostsPerLeaf == 0)
    {
        throw std::invalid_argument("leaves and hosts_per_leaf must be > 0");
    }
    if (m_ratio == 0 || m_hostsPerLeaf % m_ratio != 0)
    {
        throw std::invalid_argument("oversubscription = " + std::to_string(m_ratio) +
                                    ": must be >= 1 and divide hosts_per_leaf (" +
                                    std::to_string(m_hostsPerLeaf) + ")");
    }
    RequireHostPorts(m_leaves * m_hostsPerLeaf,
                     std::to_string(m_leaves) + " leaves x " + std::to_string(m_hostsPerLeaf));
    FabricTopology topo;
    const auto gpus = m_cluster.Build(topo);
    std::vector<uint32_t> leaf;
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        leaf.push_back(topo.AddNode(FabricTopology::Role::Leaf, "l" + std::to_string(l), l));
    }
    const uint32_t spines = m_hostsPerLeaf / m_ratio;
    std::vector<uint32_t> spine;
    for (uint32_t s = 0; s < spines; ++s)
    {
        spine.push_back(topo.AddNode(FabricTopology::Role::Spine, "sp" + std::to_string(s)));
    }
    AttachHostsInOrder(topo, gpus, leaf, m_hostsPerLeaf);
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
