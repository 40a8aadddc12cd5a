#ifndef AI_FABRIC_LEAF_SPINE_TOPOLOGY_HELPER_H
#define AI_FABRIC_LEAF_SPINE_TOPOLOGY_HELPER_H

#include "cluster-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Two-tier leaf-spine Clos with an oversubscription ratio.
 *
 * Each leaf has \p hostsPerLeaf host ports and hostsPerLeaf / ratio uplinks, one to each spine,
 * so there are hostsPerLeaf / ratio spines (1:1 is non-blocking).  Leaves: enough for the
 * cluster's GPUs (default cluster: leaves x hostsPerLeaf single-GPU servers).
 */
class LeafSpineTopologyHelper : public TopologyHelper
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    /** A leaf-spine with the attributes' defaults. */
    LeafSpineTopologyHelper();
    LeafSpineTopologyHelper(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t oversubscription);

  protected:
    FabricTopology DoBuild() const override;
    uint32_t DefaultServers(uint32_t gpusPerServer) const override;

  private:
    uint32_t m_leaves{};
    uint32_t m_hostsPerLeaf{};
    uint32_t m_ratio{};
};

} // namespace ns3

#endif
