#include "auto-collective.h"

#include "ns3/log.h"

#include <cmath>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AutoCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(AutoCollectiveAlgorithm);

TypeId
AutoCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AutoCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AutoCollectiveAlgorithm>();
    return tid;
}

bool
AutoCollectiveAlgorithm::Supports(CollectiveOperation) const
{
    return true;
}

double
AutoCollectiveAlgorithm::RecursiveDoublingCrossover(uint32_t ranks, Time alpha,
                                                    double secondsPerByte)
{
    const double p = ranks;
    const double log2p = std::log2(p);
    const double bandwidthGap = log2p - 2 * (p - 1) / p; // extra n*b per byte for doubling
    if (bandwidthGap <= 0 || secondsPerByte <= 0)
    {
        return 0;
    }
    return (2 * (p - 1) - log2p) * alpha.GetSeconds() / (bandwidthGap * secondsPerByte);
}

namespace
{
/** Whether the ranks fill more than one server with the same number (> 1) of ranks each. */
bool
IsMultiGpuServers(const CollectiveRequest& r)
{
    if (r.placement.empty())
    {
        return false;
    }
    std::map<uint32_t, uint32_t> perServer;
    for (const auto& place : r.placement)
    {
        ++perServer[place.server];
    }
    const uint32_t g = perServer.begin()->second;
    for (const auto& [server, count] : perServer)
    {
        if (count != g)
        {
            return false;
        }
    }
    return perServer.size() > 1 && g > 1 && r.bytes % (uint64_t(g) * r.elementBytes) == 0;
}
} // namespace

std::string
AutoCollectiveAlgorithm::Choose(const CollectiveRequest& r)
{
    switch (r.op)
    {
    case ALL_TO_ALL:
        return "pairwise";
    case BROADCAST:
    case REDUCE:
        return "binomial";
    case REDUCE_SCATTER:
    case ALL_GATHER:
        return "ring";
    case ALL_REDUCE:
        break;
    }
    if (IsMultiGpuServers(r))
    {
        return "hierarchical";
    }
    const bool powerOfTwo = (r.ranks & (r.ranks - 1)) == 0;
    if (powerOfTwo && r.bytes < RecursiveDoublingCrossover(r.ranks, r.alpha, r.secondsPerByte))
    {
        return "recursive-doubling";
    }
    return "ring";
}

CollectiveSchedule
AutoCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    const std::string choice = Choose(r);
    NS_LOG_INFO("auto: " << CollectiveOperationName(r.op) << " of " << r.bytes << " B over "
                         << r.ranks << " ranks -> " << choice);
    CollectiveSchedule s = Create(choice)->Build(r);
    s.SetAlgorithm("auto:" + choice);
    return s;
}

} // namespace ns3
