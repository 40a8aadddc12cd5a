#ifndef AI_FABRIC_JOB_PLACEMENT_H
#define AI_FABRIC_JOB_PLACEMENT_H

#include "ns3/fabric-topology.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Which GPU each rank of a job runs on: a family of policies, each a subclass
 * (PackedPlacement "packed", ScatteredPlacement "scattered", MapPlacement "map").
 *
 * Adding a policy is one file pair: a subclass with a TypeId named <Name>Placement; the
 * scenario runner offers it by that name.
 */
class JobPlacement : public Object
{
  public:
    static TypeId GetTypeId();
    /**
     * Hosts for \p ranks ranks, by rank, among those of \p topology not \p taken (by host
     * id); \p random draws any random choice.  Throws std::invalid_argument if the job does not
     * fit (too few free GPUs; for a map, a rank missing or repeated, an unknown, taken or
     * repeated GPU).
     */
    virtual std::vector<uint32_t> Place(const FabricTopology& topology,
                                        uint32_t ranks,
                                        const std::vector<bool>& taken,
                                        Ptr<UniformRandomVariable> random) const = 0;

  protected:
    /** The hosts of \p topology not \p taken, in host order; throws if fewer than \p ranks. */
    static std::vector<uint32_t> FreeHosts(const FabricTopology& topology,
                                           uint32_t ranks,
                                           const std::vector<bool>& taken);
};

} // namespace ns3

#endif
