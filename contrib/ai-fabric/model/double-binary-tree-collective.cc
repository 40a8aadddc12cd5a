#include "double-binary-tree-collective.h"

#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeCollectiveAlgorithm);

namespace
{
constexpr uint32_t kNoParent = UINT32_MAX;

void
BuildRange(std::vector<uint32_t>& parent, uint32_t lo, uint32_t hi, uint32_t up)
{
    if (lo >= hi)
    {
        return;
    }
    const uint32_t mid = lo + (hi - lo) / 2;
    parent[mid] = up;
    BuildRange(parent, lo, mid, mid);
    BuildRange(parent, mid + 1, hi, mid);
}
} // namespace

TypeId
DoubleBinaryTreeCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DoubleBinaryTreeCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<DoubleBinaryTreeCollectiveAlgorithm>()
            .AddAttribute("Chunks",
                          "Pieces each tree's half of the data is cut into, so the broadcast "
                          "wave of one piece overlaps the reduce wave of the next.",
                          UintegerValue(4),
                          MakeUintegerAccessor(&DoubleBinaryTreeCollectiveAlgorithm::m_chunks),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("MaxChunkBytes",
                          "Largest piece: a large buffer is cut into more than Chunks pieces so "
                          "the waves stay pipelined (4 pieces of 32 MiB leave each tree mostly "
                          "filling and draining).  Default 512 KiB, one of NCCL's 8 pipeline "
                          "steps of its 4 MiB default buffer (NCCL_BUFFSIZE, NCCL_STEPS).",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&DoubleBinaryTreeCollectiveAlgorithm::m_maxChunkBytes),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

bool
DoubleBinaryTreeCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE;
}

std::vector<uint32_t>
DoubleBinaryTreeCollectiveAlgorithm::InOrderTreeParents(uint32_t n)
{
    std::vector<uint32_t> parent(n, kNoParent);
    BuildRange(parent, 0, n, kNoParent);
    return parent;
}

CollectiveSchedule
DoubleBinaryTreeCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    const uint32_t p = r.ranks;
    CollectiveSchedule s(r);
    const std::vector<uint32_t> positionParent = InOrderTreeParents(p);
    // Tree t puts rank (position + t) mod p at each position.
    std::vector<std::vector<uint32_t>> parent(2, std::vector<uint32_t>(p, kNoParent));
    std::vector<std::vector<std::vector<uint32_t>>> children(2, std::vector<std::vector<uint32_t>>(p));
    for (uint32_t t = 0; t < 2; ++t)
    {
        for (uint32_t pos = 0; pos < p; ++pos)
        {
            if (positionParent[pos] != kNoParent)
            {
                const uint32_t rank = (pos + t) % p;
                const uint32_t up = (positionParent[pos] + t) % p;
                parent[t][rank] = up;
                children[t][up].push_back(rank);
            }
        }
    }
    const uint64_t half = (r.bytes + 1) / 2;
    const uint64_t bySize = (half + m_maxChunkBytes - 1) / m_maxChunkBytes;
    const auto chunks = static_cast<uint32_t>(std::min<uint64_t>(
        std::max<uint64_t>(m_chunks, bySize), std::max<uint64_t>(1, half / r.elementBytes)));
    for (uint32_t k = 0; k < chunks; ++k)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            const uint64_t bytes =
                SplitPiece(SplitPiece(r.bytes, 2, t, r.elementBytes), chunks, k, r.elementBytes);
            for (uint32_t rank = 0; rank < p; ++rank)
            {
                std::vector<uint32_t> have;
                for (uint32_t child : children[t][rank])
                {
                    const uint32_t in = s.Recv(rank, child, bytes, {}, t);
                    have.push_back(s.Reduce(rank, bytes, {in}));
                }
                if (parent[t][rank] != kNoParent)
                {
                    s.Send(rank, parent[t][rank], bytes, have, t);
                    have = {s.Recv(rank, parent[t][rank], bytes, {}, t)};
                }
                for (uint32_t child : children[t][rank])
                {
                    s.Send(rank, child, bytes, have, t);
                }
            }
        }
    }
    return s;
}

} // namespace ns3
