#include "ring-collective.h"

#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

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

std::vector<uint32_t>
RingCollectiveAlgorithm::RingOrder(const CollectiveRequest& r, uint32_t channel) const
{
    std::vector<uint32_t> order(r.ranks);
    for (uint32_t j = 0; j < r.ranks; ++j)
    {
        order[j] = j;
    }
    if (!m_railAligned || r.placement.empty())
    {
        return order;
    }
    // Servers in order of their first rank; inside a server by GPU index from GPU
    // `channel` on (mod the server's GPUs), every other server backwards, so each hop between
    // servers joins two GPUs with the same index (one rail): channel c crosses between servers
    // on rails c - 1 and c, so channels spread over every NIC as NCCL's rings do.
    std::vector<uint32_t> servers;
    std::map<uint32_t, std::vector<uint32_t>> members;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        auto& list = members[r.placement[rank].server];
        if (list.empty())
        {
            servers.push_back(r.placement[rank].server);
        }
        list.push_back(rank);
    }
    order.clear();
    for (uint32_t i = 0; i < servers.size(); ++i)
    {
        auto list = members[servers[i]];
        std::stable_sort(list.begin(), list.end(), [&r](uint32_t a, uint32_t b) {
            return r.placement[a].localIndex < r.placement[b].localIndex;
        });
        std::rotate(list.begin(), list.begin() + channel % list.size(), list.end());
        if (i % 2 == 1)
        {
            std::reverse(list.begin(), list.end());
        }
        order.insert(order.end(), list.begin(), list.end());
    }
    return order;
}

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
            .AddAttribute("RailAligned",
                          "Order the ring server by server, GPUs by index starting from GPU c "
                          "for channel c, every other server backwards, so hops between "
                          "servers join GPUs of the same rail and channel c crosses servers on "
                          "rails c - 1 and c: the channels use every NIC, as NCCL's rings do "
                          "on DGX-class servers; false: rank order.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RingCollectiveAlgorithm::m_railAligned),
                          MakeBooleanChecker());
    return tid;
}

bool
RingCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op != ALL_TO_ALL;
}

uint32_t
RingCollectiveAlgorithm::Slices(const CollectiveRequest& r, uint64_t channelBytes, bool pass)
{
    const CollectiveProtocol& protocol = *r.protocol;
    const uint64_t chunk = protocol.GetStepPayload() * protocol.GetChunkSteps(pass);
    const uint64_t chunks = std::max<uint64_t>(1, (channelBytes + chunk - 1) / chunk);
    const uint64_t slices = protocol.Messages(
        channelBytes, chunks * protocol.GetChunkSteps(pass) / protocol.GetSliceSteps(pass));
    // No empty slices while there are elements to fill them.
    return static_cast<uint32_t>(
        std::min<uint64_t>(slices, std::max<uint64_t>(1, channelBytes / r.elementBytes)));
}

uint64_t
RingCollectiveAlgorithm::Piece(const CollectiveRequest& r, uint64_t bytes, uint32_t blocks,
                               uint32_t b, uint32_t c, uint32_t slices, uint32_t k) const
{
    const uint64_t block = SplitPiece(bytes, blocks, b, r.elementBytes);
    const uint64_t channel = SplitPiece(block, m_channels, c, r.elementBytes);
    return SplitPiece(channel, slices, k, r.elementBytes);
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
    const uint32_t slices = Slices(r, SplitPiece(r.bytes, m_channels, 0, r.elementBytes), false);
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        const std::vector<uint32_t> order = RingOrder(r, c);
        const auto rootAt = static_cast<uint32_t>(
            std::find(order.begin(), order.end(), r.root) - order.begin());
        for (uint32_t k = 0; k < slices; ++k)
        {
            const uint64_t bytes = Piece(r, r.bytes, 1, 0, c, slices, k);
            for (uint32_t j = 0; j < p; ++j)
            {
                // Broadcast runs root -> next -> ...; reduce runs root's next -> ... -> root.
                const uint32_t rank = order[j];
                const uint32_t pos = (j + 2 * p - rootAt - (reduce ? 1 : 0)) % p;
                uint32_t have = kNone;
                if (pos > 0)
                {
                    have = s.Recv(rank, order[(j + p - 1) % p], bytes, {}, c);
                    have = reduce ? s.Reduce(rank, bytes, {have}) : have;
                }
                if (pos + 1 < p)
                {
                    s.Send(rank, order[(j + 1) % p], bytes, After(have), c);
                }
            }
        }
    }
}

CollectiveSchedule
RingCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    s.SetPipelined(true); // its pieces flow through every connection at once
    if (r.op == BROADCAST || r.op == REDUCE)
    {
        AddChain(s, r, r.op == REDUCE);
        return s;
    }
    // Every block is cut into as many slices as the largest needs.
    const uint32_t slices = Slices(
        r, SplitPiece(SplitPiece(r.bytes, r.ranks, 0, r.elementBytes), m_channels, 0, r.elementBytes),
        true);
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        const std::vector<uint32_t> group = RingOrder(r, c);
        const PieceSize size = [&](uint32_t b, uint32_t k) {
            return Piece(r, r.bytes, r.ranks, b, c, slices, k);
        };
        std::vector<std::vector<uint32_t>> last(r.ranks, std::vector<uint32_t>(slices, kNone));
        if (r.op != ALL_GATHER)
        {
            AddRingPass(s, group, slices, size, true, 0, c, last);
        }
        if (r.op != REDUCE_SCATTER)
        {
            AddRingPass(s, group, slices, size, false, r.op == ALL_REDUCE ? 1 : 0, c, last);
        }
    }
    return s;
}

} // namespace ns3
