#include "cluster-helper.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/range-checkers.h"
#include "ns3/uinteger.h"

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
      m_nvLinkRate(kH100NvLinkRate)
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

NS_OBJECT_ENSURE_REGISTERED(TopologyHelper);

TypeId
TopologyHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TopologyHelper")
            .SetParent<ObjectBase>()
            .SetGroupName("AiFabric")
            .AddAttribute("Servers",
                          "Servers of the cluster; 0: the topology's default (a fat-tree or "
                          "leaf-spine fills its host ports, a rail-optimized fabric has 8).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TopologyHelper::m_servers),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("GpusPerServer",
                          "GPUs (each with its own NIC) per server; 0: the topology's default "
                          "(1; 8 for a rail-optimized fabric, an HGX server).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TopologyHelper::m_gpusPerServer),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("NicRate",
                          "Scale-out NIC rate per GPU.  Default 400 Gb/s: a ConnectX-7 per "
                          "H100, as in an HGX H100 server.",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&TopologyHelper::m_nicRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("NvlinkRate",
                          "NVLink data rate per GPU, one direction.  Default 2966.4 Gb/s = "
                          "370.8 GB/s: an H100's 18 NVLink 4 links at 20.6 GB/s each, the "
                          "data rate NCCL 2.30 assumes per Hopper link (src/graph/topo.h, "
                          "SM90_NVLINK_BW) of the 25 GB/s each signals (450 GB/s in all, NVIDIA "
                          "H100 datasheet).  B200: 18 x 40.1 GB/s (SM100_NVLINK_BW).",
                          DataRateValue(ClusterHelper::kH100NvLinkRate),
                          MakeDataRateAccessor(&TopologyHelper::m_nvLinkRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("FabricRate",
                          "Rate of switch-to-switch links; 0bps: the NIC rate.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&TopologyHelper::m_fabricRate),
                          MakeDataRateChecker())
            .AddAttribute("HostToLeafMetres",
                          "Cable length from a NIC to its leaf.  Default 3 m: copper (DAC) "
                          "inside a rack.",
                          DoubleValue(3),
                          MakeDoubleAccessor(&TopologyHelper::m_hostToLeafMetres),
                          MakeDoubleChecker<double>(0.01, 100000))
            .AddAttribute("LeafToSpineMetres",
                          "Cable length from a leaf to a spine.  Default 30 m: optics across "
                          "rows.",
                          DoubleValue(30),
                          MakeDoubleAccessor(&TopologyHelper::m_leafToSpineMetres),
                          MakeDoubleChecker<double>(0.01, 100000))
            .AddAttribute("SpineToCoreMetres",
                          "Cable length from a spine to a core switch.  Default 100 m: optics "
                          "across halls.",
                          DoubleValue(100),
                          MakeDoubleAccessor(&TopologyHelper::m_spineToCoreMetres),
                          MakeDoubleChecker<double>(0.01, 100000))
            .AddAttribute("Nvls",
                          "Whether each server's NVSwitch reduces and multicasts (NVLink "
                          "SHARP, Hopper and later): an NVLS engine on the switch that the "
                          "nvls and nvls_tree algorithms address.  Servers of one GPU have no "
                          "NVSwitch.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TopologyHelper::m_nvls),
                          MakeBooleanChecker())
            .AddAttribute("Planes",
                          "Independent copies of the switch fabric (a multi-plane fabric): "
                          "each GPU's NIC splits into this many ports of NicRate / Planes, one "
                          "into each plane, and each plane is the topology at 1/Planes of its "
                          "link rates (FabricRate too), as an 800G NIC of 8 x 100G planes is.  "
                          "A queue pair keeps to one plane unless its Entropy sprays "
                          "(rdma.entropy).  Default 1: one fabric.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TopologyHelper::m_planes),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

FabricTopology
TopologyHelper::Build() const
{
    FabricTopology topology = DoBuild();
    if (m_planes > 1)
    {
        topology = SplitIntoPlanes(topology, m_planes);
    }
    if (m_nvls)
    {
        topology.AddNvlsEngines();
    }
    return topology;
}

FabricTopology
TopologyHelper::SplitIntoPlanes(const FabricTopology& one, uint32_t planes)
{
    using Role = FabricTopology::Role;
    const auto scaleOut = [](Role r) {
        return r == Role::Leaf || r == Role::Spine || r == Role::Core;
    };
    FabricTopology split;
    split.SetHostsAreTransit(one.HostsAreTransit());
    // ids[node][plane]: the node's copy in each plane (the one node for hosts and NVSwitches).
    std::vector<std::vector<uint32_t>> ids(one.GetNNodes());
    for (uint32_t n = 0; n < one.GetNNodes(); ++n)
    {
        const FabricTopology::Node& node = one.GetNode(n);
        if (node.role == Role::NvlsEngine)
        {
            throw std::logic_error("SplitIntoPlanes: NVLS engines come after the planes");
        }
        if (node.role == Role::Host)
        {
            ids[n].assign(planes, split.AddHost(node.name, node.server, node.localIndex));
        }
        else if (!scaleOut(node.role))
        {
            ids[n].assign(planes, split.AddNode(node.role, node.name, node.group));
        }
        else
        {
            for (uint32_t p = 0; p < planes; ++p)
            {
                ids[n].push_back(
                    split.AddNode(node.role, node.name + "_p" + std::to_string(p), node.group));
            }
        }
    }
    for (const FabricTopology::Link& l : one.Links())
    {
        if (!scaleOut(one.GetNode(l.a).role) && !scaleOut(one.GetNode(l.b).role))
        {
            split.AddLink(ids[l.a][0], ids[l.b][0], l.rate, l.lengthMetres, l.medium);
            continue;
        }
        const DataRate rate(l.rate.GetBitRate() / planes);
        for (uint32_t p = 0; p < planes; ++p)
        {
            split.AddLink(ids[l.a][p], ids[l.b][p], rate, l.lengthMetres, l.medium);
        }
    }
    return split;
}

TypeId
TopologyHelper::GetInstanceTypeId() const
{
    return GetTypeId();
}

ClusterHelper
TopologyHelper::GetCluster() const
{
    const uint32_t gpus = m_gpusPerServer ? m_gpusPerServer : DefaultGpusPerServer();
    const uint32_t servers = m_servers ? m_servers : DefaultServers(gpus);
    if (servers == 0)
    {
        throw std::invalid_argument("gpus_per_server = " + std::to_string(gpus) +
                                    ": more than the fabric's host ports");
    }
    ClusterHelper cluster(servers, gpus);
    cluster.SetNicRate(m_nicRate);
    cluster.SetNvLinkRate(m_nvLinkRate);
    return cluster;
}

void
TopologyHelper::SetCluster(const ClusterHelper& cluster)
{
    m_servers = cluster.GetNServers();
    m_gpusPerServer = cluster.GetGpusPerServer();
    m_nicRate = cluster.GetNicRate();
    m_nvLinkRate = cluster.GetNvLinkRate();
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
    RequirePositive(hostToLeaf, "host_to_leaf_metres");
    RequirePositive(leafToSpine, "leaf_to_spine_metres");
    RequirePositive(spineToCore, "spine_to_core_metres");
    m_hostToLeafMetres = hostToLeaf;
    m_leafToSpineMetres = leafToSpine;
    m_spineToCoreMetres = spineToCore;
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
            topo.AddLink(g, leaves[port / hostsPerLeaf], m_nicRate, m_hostToLeafMetres,
                         FabricTopology::CableFor(m_hostToLeafMetres));
            ++port;
        }
    }
}

void
TopologyHelper::RequireHostPorts(const ClusterHelper& cluster,
                                 uint32_t hostPorts,
                                 const std::string& fabric)
{
    if (cluster.GetNGpus() > hostPorts)
    {
        throw std::invalid_argument("cluster of " + std::to_string(cluster.GetNGpus()) +
                                    " GPUs does not fit " + fabric + " (" +
                                    std::to_string(hostPorts) + " host ports)");
    }
}

DataRate
TopologyHelper::FabricRate() const
{
    return m_fabricRate.GetBitRate() ? m_fabricRate : m_nicRate;
}

} // namespace ns3
