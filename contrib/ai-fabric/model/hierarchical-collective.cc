#include "hierarchical-collective.h"

#include "ring-collective.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HierarchicalCollectiveAlgorithm);

TypeId
HierarchicalCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HierarchicalCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<HierarchicalCollectiveAlgorithm>()
            .AddAttribute("Pipeline",
                          "Pieces the buffer is cut into.  Each goes through the three phases "
                          "in turn, so the NVLink phases of one piece overlap the scale-out "
                          "phase of another.  1 = the phases one after the other.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&HierarchicalCollectiveAlgorithm::m_pipeline),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("MinPieceBytes",
                          "Smallest piece: fewer pieces are cut when the buffer is small, since "
                          "the pieces' scale-out rings run one after the other and each pays "
                          "the ring's latency.  Default 512 KiB, one of NCCL's 8 pipeline "
                          "steps of its 4 MiB default buffer (NCCL_BUFFSIZE, NCCL_STEPS).",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&HierarchicalCollectiveAlgorithm::m_minPieceBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("PiecesInFlight",
                          "Pieces whose rail rings may run at once (each on its own queue "
                          "pairs; piece k + w waits for piece k).  More hide the rings' step "
                          "latency on many servers; fewer keep the pieces staggered so the "
                          "NVLink phases overlap the rails.  Default 2, measured: the scaling "
                          "study's 128-GPU job (32 MiB of gradients, 4:1 leaf-spine) iterated "
                          "in 2.15, 1.55 and 1.30 ms with 1, 2 and 4; on 2 servers with 100G "
                          "NICs a 64 MiB all-reduce reached 97%, 95% and 87% of the NIC bound "
                          "with 1 or 2, 4 and 16.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&HierarchicalCollectiveAlgorithm::m_piecesInFlight),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

bool
HierarchicalCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE;
}

std::vector<std::vector<uint32_t>>
HierarchicalCollectiveAlgorithm::Servers(const CollectiveRequest& r)
{
    std::map<uint32_t, std::vector<uint32_t>> byServer;
    std::vector<uint32_t> order;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        const uint32_t server = r.placement.empty() ? rank : r.placement[rank].server;
        if (byServer[server].empty())
        {
            order.push_back(server);
        }
        byServer[server].push_back(rank);
    }
    std::vector<std::vector<uint32_t>> servers;
    for (uint32_t server : order)
    {
        auto ranks = byServer[server];
        std::stable_sort(ranks.begin(), ranks.end(), [&](uint32_t a, uint32_t b) {
            return r.placement.empty() ? a < b
                                       : r.placement[a].localIndex < r.placement[b].localIndex;
        });
        servers.push_back(ranks);
    }
    return servers;
}

void
HierarchicalCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    const auto servers = Servers(r);
    const std::size_t g = servers.front().size();
    for (const auto& server : servers)
    {
        if (server.size() != g)
        {
            throw std::invalid_argument("hierarchical allreduce: every server needs the same "
                                        "number of ranks (found " + std::to_string(g) + " and " +
                                        std::to_string(server.size()) + ")");
        }
    }
    if (r.bytes % (g * r.elementBytes) != 0)
    {
        throw std::invalid_argument("hierarchical allreduce of " + std::to_string(r.bytes) +
                                    " B: bytes must be a multiple of ranks per server x element "
                                    "size (" + std::to_string(g * r.elementBytes) + " B)");
    }
}

CollectiveSchedule
HierarchicalCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    const auto servers = Servers(r);
    const auto g = static_cast<uint32_t>(servers.front().size());
    std::vector<std::vector<uint32_t>> rails(g);
    for (const auto& server : servers)
    {
        for (uint32_t i = 0; i < g; ++i)
        {
            rails[i].push_back(server[i]);
        }
    }
    // Pieces are whole multiples of g elements, so each splits evenly over a server.
    const uint64_t unit = uint64_t(g) * r.elementBytes;
    const uint64_t units = r.bytes / unit;
    const uint64_t minUnits = std::max<uint64_t>(1, m_minPieceBytes / unit);
    const auto pieces = static_cast<uint32_t>(
        std::max<uint64_t>(1, std::min<uint64_t>(m_pipeline, units / minUnits)));
    auto ring = CreateObject<RingCollectiveAlgorithm>();
    ring->SetAttribute("Protocol", TypeIdValue(GetProtocol()));
    CollectiveSchedule s(r);
    // Piece k goes reduce-scatter -> rail all-reduce -> all-gather.  The pieces of an NVLink
    // phase follow each other on the phase's own connections (in-order posting); the all-gather
    // uses NVLink channel 1, so it shares the NVLink with later pieces' reduce-scatter
    // instead of queueing behind it.
    using RankSteps = std::vector<std::vector<uint32_t>>;
    auto phase = [&](CollectiveOperation op, uint64_t bytes,
                     const std::vector<std::vector<uint32_t>>& groups, const RankSteps& after,
                     uint32_t channel) {
        RankSteps done = after;
        if (groups.front().size() < 2)
        {
            return done; // one rank per group: nothing to exchange
        }
        CollectiveRequest sub = r;
        sub.placement.clear();
        sub.simulatedRanks.clear(); // the phase is built whole, then embedded into s
        sub.op = op;
        sub.bytes = bytes;
        sub.ranks = static_cast<uint32_t>(groups.front().size());
        const CollectiveSchedule built = ring->Build(sub);
        for (const auto& group : groups)
        {
            RankSteps wait;
            for (uint32_t rank : group)
            {
                wait.push_back(after[rank]);
            }
            const RankSteps sinks = s.Embed(built, group, wait, channel);
            for (uint32_t j = 0; j < group.size(); ++j)
            {
                done[group[j]] = sinks[j];
            }
        }
        return done;
    };
    for (uint32_t k = 0; k < pieces; ++k)
    {
        const uint64_t bytes = SplitPiece(r.bytes / unit, pieces, k, 1) * unit;
        const RankSteps none(r.ranks);
        const RankSteps scattered = phase(REDUCE_SCATTER, bytes, servers, none, 0);
        // Up to PiecesInFlight rail rings at once, each on its own connections: on shared
        // connections in-order posting holds piece k + 1 until piece k's last send, so a ring
        // of S servers would pay its 2(S - 1) step latencies once per piece.
        const RankSteps reduced =
            phase(ALL_REDUCE, bytes / g, rails, scattered, k % m_piecesInFlight);
        phase(ALL_GATHER, bytes, servers, reduced, 1);
    }
    return s;
}

} // namespace ns3
