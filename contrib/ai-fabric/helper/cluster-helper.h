#ifndef AI_FABRIC_CLUSTER_HELPER_H
#define AI_FABRIC_CLUSTER_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Describes the servers of a cluster: S servers x G accelerators, each with one NIC.
 *
 * Each accelerator is a host of the fabric (its own ns-3 Node once installed).  With G > 1 the
 * GPUs of a server share an NVSwitch-like switch over NVLink-class links; the NIC links are
 * added by a topology helper.  Defaults follow an HGX H100 server (shared/REFERENCES.md):
 * NVLink 4 at 450 GB/s per GPU each way, one 400G NIC per GPU.
 */
class ClusterHelper
{
  public:
    ClusterHelper(uint32_t servers = 1, uint32_t gpusPerServer = 1);

    /** Scale-out NIC rate per GPU (100, 200, 400 or 800 Gb/s). */
    void SetNicRate(DataRate rate);
    /** Intra-server bandwidth per GPU, one direction (A100 300 GB/s, H100 450, B200 900). */
    void SetNvLinkRate(DataRate rate);
    DataRate GetNicRate() const { return m_nicRate; }
    DataRate GetNvLinkRate() const { return m_nvLinkRate; }
    uint32_t GetNServers() const { return m_servers; }
    uint32_t GetGpusPerServer() const { return m_gpusPerServer; }
    uint32_t GetNGpus() const { return m_servers * m_gpusPerServer; }

    /**
     * Add every server's GPUs (hosts, named s<server>g<gpu>) and, for G > 1, its NVSwitch and
     * NVLink links to \p topology.  Returns the GPU node ids, [server][gpu].
     */
    std::vector<std::vector<uint32_t>> Build(FabricTopology& topology) const;

  private:
    uint32_t m_servers;
    uint32_t m_gpusPerServer;
    DataRate m_nicRate;
    DataRate m_nvLinkRate;
};

/**
 * \ingroup ai-fabric
 * \brief What every scale-out topology helper shares: the cluster, the fabric's link rate and
 * the cable lengths per tier (link delay is 5 ns per metre).
 */
class TopologyHelper
{
  public:
    virtual ~TopologyHelper() = default;
    void SetCluster(const ClusterHelper& cluster);
    const ClusterHelper& GetCluster() const { return m_cluster; }
    /** Rate of switch-to-switch links; default: the NIC rate. */
    void SetFabricRate(DataRate rate);
    /** Cable lengths in metres, per tier. */
    struct CableLengths
    {
        double hostToLeaf{3};    //!< copper DAC inside a rack
        double leafToSpine{30};  //!< optics across rows
        double spineToCore{100}; //!< optics across halls
    };
    /** Set the cable lengths (defaults: CableLengths's). */
    void SetCableLengths(double hostToLeaf, double leafToSpine, double spineToCore);
    CableLengths GetCableLengths() const { return m_cables; }
    /** Build the graph; throws std::invalid_argument naming the parameter for bad input. */
    virtual FabricTopology Build() const = 0;

  protected:
    DataRate FabricRate() const;
    /** Throw unless the cluster's GPUs fit \p hostPorts host ports of \p fabric. */
    void RequireHostPorts(uint32_t hostPorts, const std::string& fabric) const;
    /**
     * Cable every GPU of \p gpus, server by server, to \p leaves in order, \p hostsPerLeaf to
     * a leaf (copper, host-to-leaf length, NIC rate).
     */
    void AttachHostsInOrder(FabricTopology& topology,
                            const std::vector<std::vector<uint32_t>>& gpus,
                            const std::vector<uint32_t>& leaves,
                            uint32_t hostsPerLeaf) const;
    ClusterHelper m_cluster;
    DataRate m_fabricRate{0};
    CableLengths m_cables;
};

} // namespace ns3

#endif
