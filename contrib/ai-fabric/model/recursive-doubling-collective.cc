#include "recursive-doubling-collective.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RecursiveDoublingCollectiveAlgorithm);

TypeId
RecursiveDoublingCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RecursiveDoublingCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RecursiveDoublingCollectiveAlgorithm>();
    return tid;
}

bool
RecursiveDoublingCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE || op == ALL_GATHER;
}

void
RecursiveDoublingCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    RequirePowerOfTwo(r);
}

CollectiveSchedule
RecursiveDoublingCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    const bool reduce = r.op == ALL_REDUCE;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        std::vector<uint32_t> last;
        for (uint32_t d = 1; d < r.ranks; d <<= 1)
        {
            // All-reduce moves the whole buffer each round; all-gather what is gathered so far.
            const uint64_t bytes = reduce ? r.bytes : r.bytes / r.ranks * d;
            s.Send(rank, rank ^ d, bytes, last);
            const uint32_t in = s.Recv(rank, rank ^ d, bytes, {});
            last = {reduce ? s.Reduce(rank, bytes, {in}) : in};
        }
    }
    return s;
}

} // namespace ns3
