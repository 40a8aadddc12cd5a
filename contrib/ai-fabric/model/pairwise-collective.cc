#include "pairwise-collective.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PairwiseCollectiveAlgorithm);

TypeId
PairwiseCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PairwiseCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PairwiseCollectiveAlgorithm>();
    return tid;
}

bool
PairwiseCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_TO_ALL;
}

CollectiveSchedule
PairwiseCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    const uint32_t p = r.ranks;
    const uint64_t block = r.bytes / p;
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        std::vector<uint32_t> last = {s.Copy(rank, block, {})};
        for (uint32_t step = 1; step < p; ++step)
        {
            const uint32_t out = s.Send(rank, (rank + step) % p, block, last);
            const uint32_t in = s.Recv(rank, (rank + p - step) % p, block, last);
            last = {out, in};
        }
    }
    return s;
}

} // namespace ns3
