#ifndef AI_FABRIC_FABRIC_PARTITION_H
#define AI_FABRIC_FABRIC_PARTITION_H

#include "ns3/fabric-topology.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Assigns each node of a fabric to an MPI rank (FabricNetworkHelper::SetPartition).
 *
 * A good partition cuts few links and only long ones: the shortest cut link's delay is the
 * lookahead of ns-3's conservative engine, and each rank waits for the others once per
 * lookahead of simulated time.
 */
class FabricPartition
{
  public:
    /**
     * By the topology's groups: fat-tree pods, rail-optimized rail groups, leaf-spine leaves.
     * A leaf belongs to its group; a server (its GPUs and NVSwitch) to the lowest group its GPUs
     * attach to; a spine or core switch to its downstream switches' group when they share one
     * (a fat-tree pod's aggregation switches), else it is shared.  Groups go to ranks in
     * contiguous, nearly equal blocks; shared switches round-robin in node order.
     * Throws std::invalid_argument if there are fewer groups than \p ranks.
     */
    static std::vector<uint32_t> ByGroup(const FabricTopology& topology, uint32_t ranks);
    /**
     * As given: \p rankOfNode maps every node's name to a rank below \p ranks.  Throws
     * std::invalid_argument naming an unknown node, a node left out, or a rank out of range.
     */
    static std::vector<uint32_t> FromMap(const FabricTopology& topology,
                                         uint32_t ranks,
                                         const std::map<std::string, uint32_t>& rankOfNode);
    /** Links whose ends are on different ranks. */
    static uint32_t CountCutLinks(const FabricTopology& topology,
                                  const std::vector<uint32_t>& rankOfNode);
};

} // namespace ns3

#endif
