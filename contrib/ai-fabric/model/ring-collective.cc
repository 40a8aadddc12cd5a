#include "ring-collective.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingCollectiveAlgorithm);

namespace
{
constexpr uint32_t kNone = UINT32_MAX;

std::vector<uint32_t>
After(uint32_t step)
{
    return step == kNone ? std::vector<uint32_t>{} : std::vector<uint32_t>{step};
}
} // namespace

TypeId
RingCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<RingCollectiveAlgorithm>()
            .AddAttribute("Channels",
                          "Parallel rings, each over its own queue pairs and carrying 1/Channels "
                          "of the data (NCCL's channels).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RingCollectiveAlgorithm::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Chunks",
                          "Slices per block (per buffer for broadcast and reduce): a rank "
                          "forwards each slice as soon as it has it.  1 = no pipelining.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RingCollectiveAlgorithm::m_chunks),
                          MakeUintegerChecker<uint32_t>(1, 1024));
    return tid;
}

bool
RingCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op != ALL_TO_ALL;
}

uint64_t
RingCollectiveAlgorithm::Piece(const CollectiveRequest& r, uint64_t bytes, uint32_t blocks,
                               uint32_t b, uint32_t c, uint32_t k) const
{
    const uint64_t block = SplitPiece(bytes, blocks, b, r.elementBytes);
    const uint64_t channel = SplitPiece(block, m_channels, c, r.elementBytes);
    return SplitPiece(channel, m_chunks, k, r.elementBytes);
}

void
RingCollectiveAlgorithm::AddRingPass(CollectiveSchedule& s, const std::vector<uint32_t>& group,
                                     uint32_t slices, const PieceSize& size, bool reduce,
                                     uint32_t offset, uint32_t channel,
                                     std::vector<std::vector<uint32_t>>& last)
{
    const auto p = static_cast<uint32_t>(group.size());
    for (uint32_t step = 0; step + 1 < p; ++step)
    {
        for (uint32_t k = 0; k < slices; ++k)
        {
            for (uint32_t j = 0; j < p; ++j)
            {
                const uint32_t rank = group[j];
                const uint32_t sendBlock = (j + p + offset - step) % p;
                const uint32_t recvBlock = (j + p + offset - step - 1) % p;
                s.Send(rank, group[(j + 1) % p], size(sendBlock, k), After(last[j][k]), channel);
                const uint32_t in =
                    s.Recv(rank, group[(j + p - 1) % p], size(recvBlock, k), {}, channel);
                if (reduce)
                {
                    std::vector<uint32_t> deps = After(last[j][k]);
                    deps.push_back(in);
                    last[j][k] = s.Reduce(rank, size(recvBlock, k), deps);
                }
                else
                {
                    last[j][k] = in;
                }
            }
        }
    }
}

void
RingCollectiveAlgorithm::AddChain(CollectiveSchedule& s, const CollectiveRequest& r,
                                  bool reduce) const
{
    const uint32_t p = r.ranks;
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        for (uint32_t k = 0; k < m_chunks; ++k)
        {
            const uint64_t bytes = Piece(r, r.bytes, 1, 0, c, k);
            for (uint32_t rank = 0; rank < p; ++rank)
            {
                // Broadcast runs root -> root+1 -> ...; reduce runs root+1 -> ... -> root.
                const uint32_t pos = (rank + 2 * p - r.root - (reduce ? 1 : 0)) % p;
                uint32_t have = kNone;
                if (pos > 0)
                {
                    have = s.Recv(rank, (rank + p - 1) % p, bytes, {}, c);
                    have = reduce ? s.Reduce(rank, bytes, {have}) : have;
                }
                if (pos + 1 < p)
                {
                    s.Send(rank, (rank + 1) % p, bytes, After(have), c);
                }
            }
        }
    }
}

CollectiveSchedule
RingCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r.op, r.bytes, r.ranks);
    if (r.op == BROADCAST || r.op == REDUCE)
    {
        AddChain(s, r, r.op == REDUCE);
        return s;
    }
    std::vector<uint32_t> group(r.ranks);
    for (uint32_t j = 0; j < r.ranks; ++j)
    {
        group[j] = j;
    }
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        const PieceSize size = [&](uint32_t b, uint32_t k) { return Piece(r, r.bytes, r.ranks, b, c, k); };
        std::vector<std::vector<uint32_t>> last(r.ranks, std::vector<uint32_t>(m_chunks, kNone));
        if (r.op != ALL_GATHER)
        {
            AddRingPass(s, group, m_chunks, size, true, 0, c, last);
        }
        if (r.op != REDUCE_SCATTER)
        {
            AddRingPass(s, group, m_chunks, size, false, r.op == ALL_REDUCE ? 1 : 0, c, last);
        }
    }
    return s;
}

} // namespace ns3
