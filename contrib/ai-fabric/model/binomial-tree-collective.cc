#include "binomial-tree-collective.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BinomialTreeCollectiveAlgorithm);

TypeId
BinomialTreeCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BinomialTreeCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<BinomialTreeCollectiveAlgorithm>();
    return tid;
}

bool
BinomialTreeCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == BROADCAST || op == REDUCE;
}

CollectiveSchedule
BinomialTreeCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    const uint32_t p = r.ranks;
    const bool reduce = r.op == REDUCE;
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        const uint32_t v = (rank + p - r.root) % p; // relative to the root
        uint32_t top = 1;                           // lowest power of two above v's highest bit
        while (top <= v)
        {
            top <<= 1;
        }
        auto real = [&](uint32_t relative) { return (relative + r.root) % p; };
        std::vector<uint32_t> last;
        if (!reduce && v > 0)
        {
            last = {s.Recv(rank, real(v - top / 2), r.bytes, {})};
        }
        std::vector<uint32_t> children; // nearest first: v + top heads the largest subtree
        for (uint32_t d = top; v + d < p; d <<= 1)
        {
            children.push_back(v + d);
        }
        for (uint32_t child : children)
        {
            if (reduce)
            {
                const uint32_t in = s.Recv(rank, real(child), r.bytes, {});
                last.push_back(s.Reduce(rank, r.bytes, {in}));
            }
            else
            {
                last = {s.Send(rank, real(child), r.bytes, last)};
            }
        }
        if (reduce && v > 0)
        {
            s.Send(rank, real(v - top / 2), r.bytes, last);
        }
    }
    return s;
}

} // namespace ns3
