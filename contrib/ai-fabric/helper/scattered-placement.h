#ifndef AI_FABRIC_SCATTERED_PLACEMENT_H
#define AI_FABRIC_SCATTERED_PLACEMENT_H

#include "ns3/job-placement.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief "scattered": a uniformly random choice of free GPUs in random order, drawn from the
 * stream Place is given (the first ranks of a Fisher-Yates shuffle).
 */
class ScatteredPlacement : public JobPlacement
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
