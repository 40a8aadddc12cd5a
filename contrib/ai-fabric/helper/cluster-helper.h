#ifndef AI_FABRIC_CLUSTER_HELPER_H
#define AI_FABRIC_CLUSTER_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/object-base.h"

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
 * NVLink 4 at 370.8 GB/s of data per GPU each way (18 links at the 20.6 GB/s NCCL assumes of
 * each link's 25 GB/s), one 400G NIC per GPU.
 */
class ClusterHelper
{
  public:
    /** An H100's NVLink data rate, one direction: 18 links x 20.6 GB/s. */
    static inline const DataRate kH100NvLinkRate{uint64_t(18) * 20600 * 1000 * 1000 * 8};

    ClusterHelper(uint32_t servers = 1, uint32_t gpusPerServer = 1);

    /** Scale-out NIC rate per GPU (100, 200, 400 or 800 Gb/s). */
    void SetNicRate(DataRate rate);
    /** NVLink data rate per GPU, one direction. */
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
 * \brief What every scale-out topology helper shares: the cluster (servers x GPUs, NIC and
 * NVLink rates), the fabric's link rate and the cable lengths per tier (link delay is 5 ns per
 * metre), as attributes.
 *
 * A topology is a family member: a subclass with a TypeId named ns3::<Kind>TopologyHelper and
 * a default constructor is a scenario's topology "kind" (its name in snake_case, e.g.
 * fat_tree), its attributes the scenario's keys.  Helpers are attribute holders (ObjectBase):
 * they live on the stack like other ns-3 helpers and take SetAttribute.
 */
class TopologyHelper : public ObjectBase
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    ~TopologyHelper() override = default;

    /** The cluster the topology builds: Servers x GpusPerServer, defaults filled in. */
    ClusterHelper GetCluster() const;
    /** Servers, GPUs per server, NIC and NVLink rates from \p cluster. */
    void SetCluster(const ClusterHelper& cluster);
    /** Rate of switch-to-switch links; default: the NIC rate. */
    void SetFabricRate(DataRate rate);
    /** Cable lengths in metres, per tier. */
    struct CableLengths
    {
        double hostToLeaf{0};
        double leafToSpine{0};
        double spineToCore{0};
    };
    /** Set the cable lengths (defaults: the *Metres attributes'). */
    void SetCableLengths(double hostToLeaf, double leafToSpine, double spineToCore);
    CableLengths GetCableLengths() const
    {
        return {m_hostToLeafMetres, m_leafToSpineMetres, m_spineToCoreMetres};
    }

    /**
     * Build the graph: with Planes P above 1, P copies of the family's switches and their
     * cables, each GPU's NIC a port of 1/P its rate into each copy; then the NVSwitches' NVLS
     * engines when Nvls is set.  Throws std::invalid_argument naming the parameter for bad
     * input.
     */
    FabricTopology Build() const;
    /**
     * \p one's graph as \p planes independent planes: its hosts, NVSwitches and NVLink cables
     * once; each switch (named \<name\>_p\<plane\>) and each scale-out cable once per plane, at
     * 1/\p planes of its rate (rounded down to a bit per second).  A host's ports are its
     * cables in \p one's order, a scale-out cable's copies side by side, plane 0 first.
     */
    static FabricTopology SplitIntoPlanes(const FabricTopology& one, uint32_t planes);

  protected:
    /** The family's graph: hosts, NVSwitches, switches and cables. */
    virtual FabricTopology DoBuild() const = 0;
    /** Servers when the Servers attribute is 0, for \p gpusPerServer GPUs each. */
    virtual uint32_t DefaultServers(uint32_t gpusPerServer) const = 0;
    /** GPUs per server when the GpusPerServer attribute is 0. */
    virtual uint32_t DefaultGpusPerServer() const { return 1; }
    DataRate FabricRate() const;
    /** Throw unless \p cluster's GPUs fit \p hostPorts host ports of \p fabric. */
    static void RequireHostPorts(const ClusterHelper& cluster,
                                 uint32_t hostPorts,
                                 const std::string& fabric);
    /**
     * Cable every GPU of \p gpus, server by server, to \p leaves in order, \p hostsPerLeaf to
     * a leaf (host-to-leaf length, NIC rate).
     */
    void AttachHostsInOrder(FabricTopology& topology,
                            const std::vector<std::vector<uint32_t>>& gpus,
                            const std::vector<uint32_t>& leaves,
                            uint32_t hostsPerLeaf) const;
    uint32_t m_servers{};       //!< 0: DefaultServers
    uint32_t m_gpusPerServer{}; //!< 0: DefaultGpusPerServer
    DataRate m_nicRate;
    DataRate m_nvLinkRate;
    DataRate m_fabricRate;
    double m_hostToLeafMetres{};
    double m_leafToSpineMetres{};
    double m_spineToCoreMetres{};
    bool m_nvls{true};
    uint32_t m_planes{1}; //!< Planes
};

} // namespace ns3

#endif
