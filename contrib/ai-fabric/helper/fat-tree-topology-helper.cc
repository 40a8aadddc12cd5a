#include "fat-tree-topology-helper.h"

#include <stdexcept>
#include <string>

namespace ns3
{

FatTreeTopologyHelper::FatTreeTopologyHelper(uint32_t k)
    : m_k(k)
{
    if (k >= 2 && k % 2 == 0)
    {
        SetCluster(ClusterHelper(k * k * k / 4, 1));
    }
}

FabricTopology
FatTreeTopologyHelper::Build() const
{
    const uint32_t k = m_k;
    if (k < 2 || k % 2 != 0)
    {
        throw std::invalid_argument("k = " + std::to_string(k) +
                                    ": a fat-tree needs an even k >= 2");
    }
    const uint32_t half = k / 2;
    RequireHostPorts(k * k * k / 4, "a k=" + std::to_string(k) + " fat-tree");
    FabricTopology topo;
    const auto gpus = m_cluster.Build(topo);
    std::vector<uint32_t> edge;
    std::vector<uint32_t> agg;
    std::vector<uint32_t> core;
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t i = 0; i < half; ++i)
        {
            edge.push_back(topo.AddNode(FabricTopology::Role::Leaf,
                                        "p" + std::to_string(p) + "e" + std::to_string(i), p));
        }
        for (uint32_t i = 0; i < half; ++i)
        {
            agg.push_back(topo.AddNode(FabricTopology::Role::Spine,
                                       "p" + std::to_string(p) + "a" + std::to_string(i), p));
        }
    }
    for (uint32_t i = 0; i < half * half; ++i)
    {
        core.push_back(topo.AddNode(FabricTopology::Role::Core, "c" + std::to_string(i)));
    }
    AttachHostsInOrder(topo, gpus, edge, half);
    const DataRate rate = FabricRate();
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                topo.AddLink(edge[p * half + e], agg[p * half + a], rate, m_cables.leafToSpine,
                             FabricTopology::CableFor(m_cables.leafToSpine));
            }
        }
        // Aggregation switch a of every pod connects to core switches a*k/2 .. a*k/2 + k/2-1.
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                topo.AddLink(agg[p * half + a], core[a * half + c], rate, m_cables.spineToCore,
                             FabricTopology::CableFor(m_cables.spineToCore));
            }
        }
    }
    return topo;
}

} // namespace ns3
