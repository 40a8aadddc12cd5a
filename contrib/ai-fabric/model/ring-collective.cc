#include "ring-collective.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
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

/**
 * The steps AddRingPass stores for an all-reduce, reduce-scatter or all-gather (each channel's
 * reduce-scatter pass, then its all-gather pass), computed from a step's index instead: a rank
 * holds Channels x (p - 1) x slices x (3 + 2) steps, O(p^2) over the ring, which at 10^4 ranks
 * would not fit in memory.
 *
 * Step i of a rank lies in channel c = i / perChannel; inside it, the reduce-scatter pass has
 * units of three steps (SEND, RECV, REDUCE) and the all-gather pass units of two (SEND,
 * RECV), one unit per (ring step, slice) in that order.
 */
class RingSteps : public StepGenerator
{
  public:
    RingSteps(const CollectiveRequest& r,
              uint32_t channels,
              uint32_t slices,
              std::vector<std::vector<uint32_t>> orders)
        : m_elementBytes(r.elementBytes),
          m_p(r.ranks),
          m_channels(channels),
          m_slices(slices),
          m_reduceScatter(r.op != ALL_GATHER),
          m_allGather(r.op != REDUCE_SCATTER),
          m_gatherOffset(r.op == ALL_REDUCE ? 1 : 0),
          m_order(std::move(orders)),
          m_position(channels, std::vector<uint32_t>(r.ranks))
    {
        for (uint32_t c = 0; c < channels; ++c)
        {
            for (uint32_t j = 0; j < m_p; ++j)
            {
                m_position[c][m_order[c][j]] = j;
            }
        }
        const uint64_t units = uint64_t(m_p - 1) * slices;
        const uint64_t scatter = m_reduceScatter ? 3 * units : 0;
        const uint64_t perChannel = scatter + (m_allGather ? 2 * units : 0);
        NS_ABORT_MSG_IF(perChannel * channels > std::numeric_limits<uint32_t>::max(),
                        "ring: " << perChannel * channels << " steps per rank; at most 2^32 - 1");
        m_scatterSteps = static_cast<uint32_t>(scatter);
        m_perChannel = static_cast<uint32_t>(perChannel);
        // SplitPiece's checks, once: the message is whole elements.
        NS_ABORT_MSG_IF(channels == 0 || slices == 0 || m_elementBytes == 0 ||
                            r.bytes % m_elementBytes != 0,
                        "ring: " << r.bytes << " B in " << m_elementBytes << " B elements over "
                                 << channels << " channels and " << slices << " slices");
        const Split blocks = SplitOf(r.bytes / m_elementBytes, m_p);
        m_blockExtra = blocks.extra;
        for (uint32_t big = 0; big < 2; ++big)
        {
            m_channel[big] = SplitOf(blocks.base + big, m_channels);
            for (uint32_t bigChannel = 0; bigChannel < 2; ++bigChannel)
            {
                m_slice[big][bigChannel] = SplitOf(m_channel[big].base + bigChannel, m_slices);
            }
        }
    }

    uint32_t GetNSteps(uint32_t) const override
    {
        return m_perChannel * m_channels;
    }

    CollectiveStep GetStep(uint32_t rank, uint32_t i) const override
    {
        const Place x = Decode(i);
        const uint32_t j = m_position[x.channel][rank];
        const uint32_t offset = x.scatter ? 0 : m_gatherOffset;
        if (x.unit == 0)
        {
            return {CollectiveStep::SEND,
                    m_order[x.channel][(j + 1) % m_p],
                    x.channel,
                    Piece((j + m_p + offset - x.step) % m_p, x.channel, x.slice)};
        }
        const uint64_t bytes = Piece((j + m_p + offset - x.step - 1) % m_p, x.channel, x.slice);
        if (x.unit == 1)
        {
            return {CollectiveStep::RECV,
                    m_order[x.channel][(j + m_p - 1) % m_p],
                    x.channel,
                    bytes};
        }
        return {CollectiveStep::REDUCE, 0, 0, bytes};
    }

    StepDeps GetDeps(uint32_t, uint32_t i) const override
    {
        const Place x = Decode(i);
        const uint32_t channelBase = x.channel * m_perChannel;
        if (x.unit == 1)
        {
            return {}; // a RECV waits for its message only
        }
        if (x.scatter)
        {
            // The SEND and the REDUCE wait for the slice's reduction of the ring step before;
            // the REDUCE also for its RECV, the step before it.
            if (x.step == 0)
            {
                return x.unit == 0 ? StepDeps() : StepDeps(i - 1);
            }
            const uint32_t before = channelBase + ((x.step - 1) * m_slices + x.slice) * 3 + 2;
            return x.unit == 0 ? StepDeps(before) : StepDeps(before, i - 1);
        }
        // An all-gather SEND waits for the slice's RECV of the ring step before or, at the
        // first, for the slice's last reduction.
        if (x.step > 0)
        {
            return StepDeps(channelBase + m_scatterSteps + ((x.step - 1) * m_slices + x.slice) * 2 +
                            1);
        }
        if (m_reduceScatter)
        {
            return StepDeps(channelBase + ((m_p - 2) * m_slices + x.slice) * 3 + 2);
        }
        return {};
    }

    StepDeps GetDependents(uint32_t, uint32_t i) const override
    {
        const Place x = Decode(i);
        const uint32_t channelBase = x.channel * m_perChannel;
        if (x.unit == 0)
        {
            return {}; // nothing waits for a SEND
        }
        if (x.scatter)
        {
            if (x.unit == 1)
            {
                return StepDeps(i + 1); // its REDUCE
            }
            // A reduction: the slice's SEND and REDUCE of the next ring step or, after the
            // last, the slice's first all-gather SEND.
            if (x.step + 2 < m_p)
            {
                const uint32_t next = channelBase + ((x.step + 1) * m_slices + x.slice) * 3;
                return {next, next + 2};
            }
            return m_allGather ? StepDeps(channelBase + m_scatterSteps + x.slice * 2) : StepDeps();
        }
        // An all-gather RECV: the slice's SEND of the next ring step.
        if (x.step + 2 < m_p)
        {
            return StepDeps(channelBase + m_scatterSteps + ((x.step + 1) * m_slices + x.slice) * 2);
        }
        return {};
    }

    uint32_t GetNMessages(uint32_t rank,
                          CollectiveStep::Kind kind,
                          uint32_t peer,
                          uint32_t channel) const override
    {
        if (channel >= m_channels)
        {
            return 0;
        }
        const uint32_t j = m_position[channel][rank];
        const uint32_t expected = kind == CollectiveStep::SEND ? m_order[channel][(j + 1) % m_p]
                                  : kind == CollectiveStep::RECV
                                      ? m_order[channel][(j + m_p - 1) % m_p]
                                      : UINT32_MAX;
        const uint32_t units = (m_p - 1) * m_slices;
        return peer == expected ? units * ((m_reduceScatter ? 1 : 0) + (m_allGather ? 1 : 0)) : 0;
    }

    uint32_t GetMessageStep(uint32_t,
                            CollectiveStep::Kind kind,
                            uint32_t,
                            uint32_t channel,
                            uint32_t k) const override
    {
        // The k-th SEND (RECV) is the first (second) step of the k-th unit of the channel.
        const uint32_t first = channel * m_perChannel + (kind == CollectiveStep::RECV ? 1 : 0);
        const uint32_t scatterUnits = m_reduceScatter ? (m_p - 1) * m_slices : 0;
        return k < scatterUnits ? first + 3 * k : first + m_scatterSteps + 2 * (k - scatterUnits);
    }

    std::vector<std::pair<uint32_t, uint32_t>> GetPeers(uint32_t rank) const override
    {
        std::vector<std::pair<uint32_t, uint32_t>> peers;
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            const uint32_t j = m_position[c][rank];
            for (uint32_t peer : {m_order[c][(j + 1) % m_p], m_order[c][(j + m_p - 1) % m_p]})
            {
                if (std::find(peers.begin(), peers.end(), std::make_pair(peer, c)) == peers.end())
                {
                    peers.emplace_back(peer, c);
                }
            }
        }
        return peers;
    }

    std::vector<uint32_t> GetStartSteps(uint32_t) const override
    {
        // Each slice's first SEND of the first pass (see GetDeps): the reduce-scatter's or,
        // without one, the all-gather's.
        std::vector<uint32_t> start;
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            for (uint32_t k = 0; k < m_slices; ++k)
            {
                start.push_back(c * m_perChannel +
                                (m_reduceScatter ? k * 3 : m_scatterSteps + k * 2));
            }
        }
        return start;
    }

  private:
    /** Where step i lies. */
    struct Place
    {
        uint32_t channel;
        bool scatter;  //!< in the reduce-scatter pass (else the all-gather pass)
        uint32_t step; //!< ring step, 0 .. p - 2
        uint32_t slice;
        uint32_t unit; //!< 0: SEND, 1: RECV, 2: REDUCE
    };

    Place Decode(uint32_t i) const
    {
        Place x{};
        x.channel = i / m_perChannel;
        uint32_t local = i - x.channel * m_perChannel;
        x.scatter = local < m_scatterSteps;
        const uint32_t size = x.scatter ? 3 : 2;
        local -= x.scatter ? 0 : m_scatterSteps;
        const uint32_t unit = local / size;
        x.unit = local - unit * size;
        x.step = unit / m_slices;
        x.slice = unit - x.step * m_slices;
        return x;
    }

    /**
     * Bytes of block \p b, channel \p c, slice \p k (RingCollectiveAlgorithm::Piece: three
     * nested SplitPiece).  A split gives each part the same elements and the first ones one
     * more, so a piece depends only on whether its block, channel and slice are among those
     * first ones: the four splits over slices (small or large block, then channel part) are
     * found at construction, and a step needs no division.
     */
    uint64_t Piece(uint32_t b, uint32_t c, uint32_t k) const
    {
        const uint32_t big = b < m_blockExtra ? 1 : 0;
        const Split& slice = m_slice[big][c < m_channel[big].extra ? 1 : 0];
        return (slice.base + (k < slice.extra ? 1 : 0)) * m_elementBytes;
    }

    /** A split of some elements into parts: each gets base, the first extra one more. */
    struct Split
    {
        uint64_t base;
        uint64_t extra;
    };

    /** \p elements split into \p parts. */
    static Split SplitOf(uint64_t elements, uint32_t parts)
    {
        return {elements / parts, elements % parts};
    }

    uint32_t m_elementBytes;
    uint32_t m_p;
    uint32_t m_channels;
    uint32_t m_slices;
    bool m_reduceScatter;
    bool m_allGather;
    uint32_t m_gatherOffset; //!< the all-gather's block offset (1 after a reduce-scatter)
    std::vector<std::vector<uint32_t>> m_order;    //!< per channel, the ring's ranks
    std::vector<std::vector<uint32_t>> m_position; //!< per channel, each rank's place in it
    uint32_t m_scatterSteps{0};                    //!< per channel
    uint32_t m_perChannel{0};
    uint64_t m_blockExtra{0}; //!< the blocks one element larger than the rest
    Split m_channel[2]{};     //!< a (small, large) block's split over channels
    Split m_slice[2][2]{};    //!< [large block][large channel part]: the split over slices
};
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
                          MakeBooleanChecker())
            .AddAttribute("StoreSteps",
                          "Store every step of an all-reduce, reduce-scatter or all-gather "
                          "(and validate the schedule when it is built) instead of computing "
                          "each step from its index when the executor asks for it.  The steps "
                          "are the same either way; stored, a ring of p ranks holds "
                          "O(p^2) of them.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RingCollectiveAlgorithm::m_storeSteps),
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
    if (!m_storeSteps)
    {
        std::vector<std::vector<uint32_t>> orders;
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            orders.push_back(RingOrder(r, c));
        }
        s.SetGenerator(std::make_shared<RingSteps>(r, m_channels, slices, std::move(orders)));
        return s;
    }
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
