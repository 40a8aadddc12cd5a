#include "packed-placement.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PackedPlacement);

TypeId
PackedPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PackedPlacement")
                            .SetParent<JobPlacement>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PackedPlacement>();
    return tid;
}

std::vector<uint32_t>
PackedPlacement::Place(const FabricTopology& topology, uint32_t ranks,
                       const std::vector<bool>& taken, Ptr<UniformRandomVariable>) const
{
    std::vector<uint32_t> free = FreeHosts(topology, ranks, taken);
    free.resize(ranks);
    return free;
}

} // namespace ns3
