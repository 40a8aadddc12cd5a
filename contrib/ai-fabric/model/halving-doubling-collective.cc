#include "halving-doubling-collective.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingCollectiveAlgorithm);

TypeId
HalvingDoublingCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HalvingDoublingCollectiveAlgorithm>();
    return tid;
}

bool
HalvingDoublingCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE || op == REDUCE_SCATTER || op == ALL_GATHER;
}

void
HalvingDoublingCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    RequirePowerOfTwo(r);
}

CollectiveSchedule
HalvingDoublingCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    const uint32_t p = r.ranks;
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        // Round k pairs ranks at distance p / 2^(k+1); the lower keeps the lower half.
        std::vector<uint64_t> kept, given; // element counts per round
        uint64_t elements = r.bytes / r.elementBytes;
        for (uint32_t d = p / 2; d >= 1; d /= 2)
        {
            const uint64_t lower = (elements + 1) / 2;
            const uint64_t upper = elements / 2;
            const bool low = (rank & d) == 0;
            kept.push_back(low ? lower : upper);
            given.push_back(low ? upper : lower);
            elements = kept.back();
        }
        std::vector<uint32_t> last;
        const uint32_t rounds = static_cast<uint32_t>(kept.size());
        if (r.op != ALL_GATHER)
        {
            for (uint32_t k = 0; k < rounds; ++k)
            {
                const uint32_t peer = rank ^ (p >> (k + 1));
                s.Send(rank, peer, given[k] * r.elementBytes, last);
                const uint32_t in = s.Recv(rank, peer, kept[k] * r.elementBytes, {});
                last = {s.Reduce(rank, kept[k] * r.elementBytes, {in})};
            }
        }
        if (r.op != REDUCE_SCATTER)
        {
            for (uint32_t k = rounds; k-- > 0;)
            {
                const uint32_t peer = rank ^ (p >> (k + 1));
                s.Send(rank, peer, kept[k] * r.elementBytes, last);
                last = {s.Recv(rank, peer, given[k] * r.elementBytes, {})};
            }
        }
    }
    return s;
}

} // namespace ns3
