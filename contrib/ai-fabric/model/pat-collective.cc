#include "pat-collective.h"

#include "ns3/uinteger.h"

#include <stdexcept>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PatCollectiveAlgorithm);

namespace
{
/** NCCL's PAT chunk bounds (enqueue.cc: the 4 MiB buffer's eighth, halved to 64 KiB). */
constexpr uint64_t kMaxChunk = 512 * 1024;
constexpr uint64_t kMinChunk = 64 * 1024;

uint32_t
LowBit(uint32_t s)
{
    return static_cast<uint32_t>(__builtin_ctz(s));
}

/**
 * The offsets 1 .. n - 1 by their number of set bits (the hop a piece reaches them at): entry
 * h for h = 1 .. ceil(log2 n), entry 0 empty.
 */
std::vector<std::vector<uint32_t>>
OffsetsByHop(uint32_t n)
{
    uint32_t levels = 0;
    while ((1u << levels) < n)
    {
        ++levels;
    }
    std::vector<std::vector<uint32_t>> byHop(levels + 1);
    for (uint32_t off = 1; off < n; ++off)
    {
        byHop[__builtin_popcount(off)].push_back(off);
    }
    return byHop;
}

/** NCCL's chunk for \p op over \p n ranks with \p perChannel bytes a rank per channel. */
uint64_t
ChunkOf(CollectiveOperation op, uint32_t n, uint64_t perChannel)
{
    const uint64_t factor = op == ALL_GATHER ? 32 : 16;
    uint64_t chunk = kMaxChunk;
    while (chunk > kMinChunk && chunk * factor > uint64_t(n) * perChannel)
    {
        chunk /= 2;
    }
    return chunk;
}
} // namespace

TypeId
PatCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PatCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<PatCollectiveAlgorithm>()
            .AddAttribute("Channels",
                          "Channels, each over its own queue pairs and carrying 1/Channels of "
                          "every piece (NCCL runs PAT on all its channels).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&PatCollectiveAlgorithm::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

bool
PatCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_GATHER || op == REDUCE_SCATTER;
}

void
PatCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    const std::string protocol = r.protocol->GetShortName();
    if (protocol != "simple" && protocol != "ideal")
    {
        throw std::invalid_argument("pat runs in the simple protocol only, as NCCL's does (got " +
                                    protocol + ")");
    }
}

CollectiveSchedule
PatCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    const uint32_t n = r.ranks;
    const uint64_t piece = r.bytes / n;
    const auto byHop = OffsetsByHop(n);
    for (uint32_t channel = 0; channel < m_channels; ++channel)
    {
        const uint64_t part = SplitPiece(piece, m_channels, channel, r.elementBytes);
        const uint64_t chunk = ChunkOf(r.op, n, part);
        for (uint64_t offset = 0; offset < part; offset += chunk)
        {
            const uint64_t bytes = std::min(chunk, part - offset);
            if (r.op == ALL_GATHER)
            {
                AddAllGather(s, byHop, bytes, channel);
            }
            else
            {
                AddReduceScatter(s, byHop, bytes, channel);
            }
        }
    }
    return s;
}

void
PatCollectiveAlgorithm::AddAllGather(CollectiveSchedule& s,
                                     const std::vector<std::vector<uint32_t>>& byHop,
                                     uint64_t bytes,
                                     uint32_t channel) const
{
    // Hop by hop, every owner's tree at once: the rank at offset p = s - 2^lowbit(s) of owner
    // o (rank o - p) sends it on to offset s (rank o - s) once it has it.  got[o * n + s]:
    // that rank's RECV of o's piece.
    const uint32_t n = s.GetNRanks();
    std::vector<uint32_t> got(std::size_t(n) * n);
    for (const auto& offsets : byHop)
    {
        for (uint32_t o = 0; o < n; ++o)
        {
            for (uint32_t off : offsets)
            {
                const uint32_t from = off - (1u << LowBit(off));
                const uint32_t sender = (o + n - from) % n;
                const uint32_t receiver = (o + n - off) % n;
                s.Send(sender, receiver, bytes,
                       from == 0 ? std::vector<uint32_t>{}
                                 : std::vector<uint32_t>{got[std::size_t(o) * n + from]},
                       channel);
                got[std::size_t(o) * n + off] = s.Recv(receiver, sender, bytes, {}, channel);
            }
        }
    }
}

void
PatCollectiveAlgorithm::AddReduceScatter(CollectiveSchedule& s,
                                         const std::vector<std::vector<uint32_t>>& byHop,
                                         uint64_t bytes,
                                         uint32_t channel) const
{
    // The all-gather's trees run backwards, leaves first: the rank at offset s of owner o
    // (rank o - s) adds its children's partials (offsets s + 2^d, d below s's lowest set bit)
    // to its own input and sends the sum to offset s - 2^lowbit(s); the owner (offset 0) adds
    // all its children's.  got[o * n + s]: the RECV of offset s's partial at its parent.
    const uint32_t n = s.GetNRanks();
    const uint32_t levels = byHop.size() - 1;
    std::vector<uint32_t> got(std::size_t(n) * n);
    const auto children = [&](uint32_t o, uint32_t off) {
        std::vector<uint32_t> in;
        const uint32_t below = off == 0 ? levels : LowBit(off);
        for (uint32_t d = 0; d < below && off + (1u << d) < n; ++d)
        {
            in.push_back(got[std::size_t(o) * n + off + (1u << d)]);
        }
        return in;
    };
    for (auto offsets = byHop.rbegin(); offsets != byHop.rend(); ++offsets)
    {
        for (uint32_t o = 0; o < n; ++o)
        {
            for (uint32_t off : *offsets)
            {
                const uint32_t rank = (o + n - off) % n;
                const uint32_t to = off - (1u << LowBit(off));
                const uint32_t parent = (o + n - to) % n;
                const std::vector<uint32_t> in = children(o, off);
                std::vector<uint32_t> ready;
                if (!in.empty())
                {
                    ready.push_back(s.Reduce(rank, in.size() * bytes, in));
                }
                s.Send(rank, parent, bytes, ready, channel);
                got[std::size_t(o) * n + off] = s.Recv(parent, rank, bytes, {}, channel);
            }
        }
    }
    for (uint32_t o = 0; o < n; ++o)
    {
        const std::vector<uint32_t> in = children(o, 0);
        s.Reduce(o, in.size() * bytes, in);
    }
}

} // namespace ns3
