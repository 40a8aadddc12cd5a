#include "fat-tree-topology-helper.h"

#include "ns3/attribute-construction-list.h"

#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FatTreeTopologyHelper);

TypeId
FatTreeTopologyHelper::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FatTreeTopologyHelper")
                            .SetParent<TopologyHelper>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FatTreeTopologyHelper>()
                            .AddAttribute("K",
                                          "Ports per switch (even): k pods, k^3/4 host ports.",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&FatTreeTopologyHelper::m_k),
                                          MakeUintegerChecker<uint32_t>(2, 64));
    return tid;
}

TypeId
FatTreeTopologyHelper::GetInstanceTypeId() const
{
    return GetTypeId();
}

FatTreeTopologyHelper::FatTreeTopologyHelper()
{
    ConstructSelf(AttributeConstructionList());
}

FatTreeTopologyHelper::FatTreeTopologyHelper(uint32_t k)
    : FatTreeTopologyHelper()
{
    m_k = k;
}

uint32_t
FatTreeTopologyHelper::DefaultServers(uint32_t gpusPerServer) const
{
    return m_k * m_k * m_k / 4 / gpusPerServer;
}

FabricTopology
FatTreeTopologyHelper::DoBuild() const
{
    const uint32_t k = m_k;
    if (k < 2 || k % 2 != 0)
    {
        throw std::invalid_argument("k = " + std::to_string(k) +
                                    ": a fat-tree needs an even k >= 2");
    }
    const uint32_t half = k / 2;
    const ClusterHelper cluster = GetCluster();
    RequireHostPorts(cluster, k * k * k / 4, "a k=" + std::to_string(k) + " fat-tree");
    FabricTopology topo;
    const auto gpus = cluster.Build(topo);
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
                topo.AddLink(edge[p * half + e], agg[p * half + a], rate, m_leafToSpineMetres,
                             FabricTopology::CableFor(m_leafToSpineMetres));
            }
        }
        // Aggregation switch a of every pod connects to core switches a*k/2 .. a*k/2 + k/2-1.
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                topo.AddLink(agg[p * half + a], core[a * half + c], rate, m_spineToCoreMetres,
                             FabricTopology::CableFor(m_spineToCoreMetres));
            }
        }
    }
    return topo;
}

} // namespace ns3
