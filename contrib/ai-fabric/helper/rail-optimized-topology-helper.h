#ifndef AI_FABRIC_RAIL_OPTIMIZED_TOPOLOGY_HELPER_H
#define AI_FABRIC_RAIL_OPTIMIZED_TOPOLOGY_HELPER_H

#include "cluster-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Rail-optimized fabric: NIC i of every server in a group on rail (leaf) switch i.
 *
 * Servers form groups of ServersPerGroup; each group has G rail leaves (G = GPUs per server)
 * with one port per server.  Rail-optimized: every leaf has ServersPerGroup / ratio uplinks,
 * one to each spine, and spines join all groups.  Rail-only (Wang et al., "Rail-only", 2023):
 * one group, no spines; traffic between rails crosses NVLink to the GPU on the destination's
 * rail first (NCCL's PXN), so hosts relay.
 */
class RailOptimizedTopologyHelper : public TopologyHelper
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    /** A rail-optimized fabric with the attributes' defaults (8 servers x 8 GPUs). */
    RailOptimizedTopologyHelper();
    /** \p servers x \p gpusPerServer, groups of \p serversPerGroup (0 = all servers). */
    RailOptimizedTopologyHelper(uint32_t servers, uint32_t gpusPerServer,
                                uint32_t serversPerGroup = 0);
    void SetOversubscription(uint32_t ratio) { m_ratio = ratio; }
    void SetRailOnly(bool railOnly) { m_railOnly = railOnly; }

  protected:
    FabricTopology DoBuild() const override;
    uint32_t DefaultServers(uint32_t) const override { return 8; }
    uint32_t DefaultGpusPerServer() const override { return 8; }

  private:
    uint32_t m_serversPerGroup{};
    uint32_t m_ratio{};
    bool m_railOnly{};
};

} // namespace ns3

#endif
