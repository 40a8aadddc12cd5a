#include "job-placement.h"

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(JobPlacement);

TypeId
JobPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::JobPlacement").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

std::vector<uint32_t>
JobPlacement::FreeHosts(const FabricTopology& topology, uint32_t ranks,
                        const std::vector<bool>& taken)
{
    std::vector<uint32_t> free;
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        if (h >= taken.size() || !taken[h])
        {
            free.push_back(h);
        }
    }
    if (free.size() < ranks)
    {
        throw std::invalid_argument("the job needs " + std::to_string(ranks) + " GPUs but only " +
                                    std::to_string(free.size()) + " are free");
    }
    return free;
}

} // namespace ns3
