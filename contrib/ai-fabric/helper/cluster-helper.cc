#include "cluster-helper.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{
/** NVLink hop: a short trace inside the server (0.2 m, 1 ns). */
constexpr double kNvLinkMetres = 0.2;

void
RequirePositive(double v, const char* what)
{
    if (!(v > 0))
    {
        std::ostringstream os;
        os << what << " = " << v << ": must be > 0";
        throw std::invalid_argument(os.str());
    }
}
} // namespace

ClusterHelper::ClusterHelper(uint32_t servers, uint32_t gpusPerServer)
    : m_servers(servers),
      m_gpusPerServer(gpusPerServer),
      m_nicRate("400Gbps"),
      m_nvLinkRate("3600Gbps") // 450 GB/s
{
    RequirePositive(servers, "servers");
    RequirePositive(gpusPerServer, "gpus_per_server");
}

void
ClusterHelper::SetNicRate(DataRate rate)
{
    RequirePositive(double(rate.GetBitRate()), "nic_rate (bit/s)");
    m_nicRate = rate;
}

void
ClusterHelper::SetNvLinkRate(DataRate rate)
{
    RequirePositive(double(rate.GetBitRate()), "nvlink_rate (bit/s)");
    m_nvLinkRate = rate;
}

std::vector<std::vector<uint32_t>>
ClusterHelper::Build(FabricTopology& topo) const
{
    std::vector<std::vector<uint32_t>> gpus(m_servers);
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        for (uint32_t g = 0; g < m_gpusPerServer; ++g)
        {
            gpus[s].push_back(
                topo.AddHost("s" + std::to_string(s) + "g" + std::to_string(g), s, g));
        }
        if (m_gpusPerServer > 1)
        {
            const uint32_t nvs =
                topo.AddNode(FabricTopology::Role::NvSwitch, "s" + std::to_string(s) + "nvs", s);
            for (uint32_t g : gpus[s])
            {
                topo.AddLink(g, nvs, m_nvLinkRate, kNvLinkMetres, FabricTopology::Medium::NvLink);
            }
        }
    }
    return gpus;
}

void
TopologyHelper::SetCluster(const ClusterHelper& cluster)
{
    m_cluster = cluster;
}

void
TopologyHelper::SetFabricRate(DataRate rate)
{
    RequirePositive(double(rate.GetBitRate()), "fabric_rate (bit/s)");
    m_fabricRate = rate;
}

void
TopologyHelper::SetCableLengths(double hostToLeaf, double leafToSpine, double spineToCore)
{
    RequirePositive(hostToLeaf, "host_to_leaf_m");
    RequirePositive(leafToSpine, "leaf_to_spine_m");
    RequirePositive(spineToCore, "spine_to_core_m");
    m_cables.hostToLeaf = hostToLeaf;
    m_cables.leafToSpine = leafToSpine;
    m_cables.spineToCore = spineToCore;
}

void
TopologyHelper::AttachHostsInOrder(FabricTopology& topo,
                                   const std::vector<std::vector<uint32_t>>& gpus,
                                   const std::vector<uint32_t>& leaves,
                                   uint32_t hostsPerLeaf) const
{
    uint32_t port = 0;
    for (const auto& server : gpus)
    {
        for (uint32_t g : server)
        {
            topo.AddLink(g, leaves[port / hostsPerLeaf], m_cluster.GetNicRate(), m_cables.hostToLeaf,
                         FabricTopology::CableFor(m_cables.hostToLeaf));
            ++port;
        }
    }
}

void
TopologyHelper::RequireHostPorts(uint32_t hostPorts, const std::string& fabric) const
{
    if (m_cluster.GetNGpus() > hostPorts)
    {
        throw std::invalid_argument("cluster of " + std::to_string(m_cluster.GetNGpus()) +
                                    " GPUs does not fit " + fabric + " (" +
                                    std::to_string(hostPorts) + " host ports)");
    }
}

DataRate
TopologyHelper::FabricRate() const
{
    return m_fabricRate.GetBitRate() ? m_fabricRate : m_cluster.GetNicRate();
}

} // namespace ns3
