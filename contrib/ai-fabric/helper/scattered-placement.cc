#include "scattered-placement.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ScatteredPlacement);

TypeId
ScatteredPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ScatteredPlacement")
                            .SetParent<JobPlacement>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<ScatteredPlacement>();
    return tid;
}

std::vector<uint32_t>
ScatteredPlacement::Place(const FabricTopology& topology, uint32_t ranks,
                          const std::vector<bool>& taken, Ptr<UniformRandomVariable> random) const
{
    std::vector<uint32_t> free = FreeHosts(topology, ranks, taken);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        const uint32_t j = i + random->GetInteger(0, static_cast<uint32_t>(free.size()) - 1 - i);
        std::swap(free[i], free[j]);
    }
    free.resize(ranks);
    return free;
}

} // namespace ns3
