#ifndef AI_FABRIC_FAT_TREE_TOPOLOGY_HELPER_H
#define AI_FABRIC_FAT_TREE_TOPOLOGY_HELPER_H

#include "cluster-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief k-ary three-tier fat-tree (Al-Fares et al., SIGCOMM 2008).
 *
 * k pods of k/2 edge (leaf) and k/2 aggregation (spine) switches, (k/2)^2 core switches; every
 * switch has k ports; k^3/4 host ports, filled server by server (a server's NICs share an edge
 * switch).  Default cluster: k^3/4 single-GPU servers.  5k^2/4 switches, 3k^3/4 links.
 */
class FatTreeTopologyHelper : public TopologyHelper
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    /** A fat-tree with the K attribute's default. */
    FatTreeTopologyHelper();
    /** \p k must be even and >= 2 (checked by Build). */
    explicit FatTreeTopologyHelper(uint32_t k);

  protected:
    FabricTopology DoBuild() const override;
    uint32_t DefaultServers(uint32_t gpusPerServer) const override;

  private:
    uint32_t m_k{};
};

} // namespace ns3

#endif
