#ifndef AI_FABRIC_PACKED_PLACEMENT_H
#define AI_FABRIC_PACKED_PLACEMENT_H

#include "ns3/job-placement.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief "packed": the free GPUs in order (server by server, GPU by GPU), so consecutive ranks
 * (a tensor-parallel group) share a server and data-parallel peers are on different servers.
 */
class PackedPlacement : public JobPlacement
{
  public:
    static TypeId GetTypeId();
    std::vector<uint32_t> Place(const FabricTopology& topology,
                                uint32_t ranks,
                                const std::vector<bool>& taken,
                                Ptr<UniformRandomVariable> random) const override;
};

} // namespace ns3

#endif
