#include "leaf-spine-topology-helper.h"

#include "ns3/attribute-construction-list.h"

#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeafSpineTopologyHelper);

TypeId
LeafSpineTopologyHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeafSpineTopologyHelper")
            .SetParent<TopologyHelper>()
            .SetGroupName("AiFabric")
            .AddConstructor<LeafSpineTopologyHelper>()
            .AddAttribute("Leaves",
                          "Leaf switches.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&LeafSpineTopologyHelper::m_leaves),
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("HostsPerLeaf",
                          "Host ports per leaf.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&LeafSpineTopologyHelper::m_hostsPerLeaf),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("Oversubscription",
                          "Host ports per uplink of a leaf (1: non-blocking); divides "
                          "HostsPerLeaf, and each leaf has one uplink to each of "
                          "HostsPerLeaf / Oversubscription spines.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LeafSpineTopologyHelper::m_ratio),
                          MakeUintegerChecker<uint32_t>(1, 1024));
    return tid;
}

TypeId
LeafSpineTopologyHelper::GetInstanceTypeId() const
{
    return GetTypeId();
}

LeafSpineTopologyHelper::LeafSpineTopologyHelper()
{
    ConstructSelf(AttributeConstructionList());
}

LeafSpineTopologyHelper::LeafSpineTopologyHelper(uint32_t leaves,
                                                 uint32_t hostsPerLeaf,
                                                 uint32_t oversubscription)
    : LeafSpineTopologyHelper()
{
    m_leaves = leaves;
    m_hostsPerLeaf = hostsPerLeaf;
    m_ratio = oversubscription;
}

uint32_t
LeafSpineTopologyHelper::DefaultServers(uint32_t gpusPerServer) const
{
    return m_leaves * m_hostsPerLeaf / gpusPerServer;
}

FabricTopology
LeafSpineTopologyHelper::DoBuild() const
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
    const ClusterHelper cluster = GetCluster();
    RequireHostPorts(cluster,
                     m_leaves * m_hostsPerLeaf,
                     std::to_string(m_leaves) + " leaves x " + std::to_string(m_hostsPerLeaf));
    FabricTopology topo;
    const auto gpus = cluster.Build(topo);
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
                         m_leafToSpineMetres,
                         FabricTopology::CableFor(m_leafToSpineMetres));
        }
    }
    return topo;
}

} // namespace ns3
