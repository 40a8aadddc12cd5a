#include "rail-optimized-topology-helper.h"

#include "ns3/attribute-construction-list.h"

#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RailOptimizedTopologyHelper);

TypeId
RailOptimizedTopologyHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RailOptimizedTopologyHelper")
            .SetParent<TopologyHelper>()
            .SetGroupName("AiFabric")
            .AddConstructor<RailOptimizedTopologyHelper>()
            .AddAttribute("ServersPerGroup",
                          "Servers per group (each group has its own rail leaves); 0: one "
                          "group of all servers.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RailOptimizedTopologyHelper::m_serversPerGroup),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("Oversubscription",
                          "Servers of a group per uplink of a rail leaf (1: non-blocking); "
                          "divides ServersPerGroup.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RailOptimizedTopologyHelper::m_ratio),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("RailOnly",
                          "No spines: one group, traffic between rails crosses NVLink first "
                          "(Wang et al., \"Rail-only\", 2023).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RailOptimizedTopologyHelper::m_railOnly),
                          MakeBooleanChecker());
    return tid;
}

TypeId
RailOptimizedTopologyHelper::GetInstanceTypeId() const
{
    return GetTypeId();
}

RailOptimizedTopologyHelper::RailOptimizedTopologyHelper()
{
    ConstructSelf(AttributeConstructionList());
}

RailOptimizedTopologyHelper::RailOptimizedTopologyHelper(uint32_t servers,
                                                         uint32_t gpusPerServer,
                                                         uint32_t serversPerGroup)
    : RailOptimizedTopologyHelper()
{
    SetCluster(ClusterHelper(servers, gpusPerServer));
    m_serversPerGroup = serversPerGroup;
}

FabricTopology
RailOptimizedTopologyHelper::DoBuild() const
{
    const ClusterHelper cluster = GetCluster();
    const uint32_t servers = cluster.GetNServers();
    const uint32_t rails = cluster.GetGpusPerServer();
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
    const auto gpus = cluster.Build(topo);
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
            topo.AddLink(gpus[s][r], leaf[(s / perGroup) * rails + r], cluster.GetNicRate(),
                         m_hostToLeafMetres, FabricTopology::CableFor(m_hostToLeafMetres));
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
                         m_leafToSpineMetres,
                         FabricTopology::CableFor(m_leafToSpineMetres));
        }
    }
    return topo;
}

} // namespace ns3
