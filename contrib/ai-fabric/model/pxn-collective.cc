#include "pxn-collective.h"

#include <map>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PxnCollectiveAlgorithm);

TypeId
PxnCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PxnCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PxnCollectiveAlgorithm>();
    return tid;
}

bool
PxnCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_TO_ALL || op == ALL_GATHER;
}

CollectiveSchedule
PxnCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    const uint32_t p = r.ranks;
    // Both operations move one piece from every rank to every other: all-to-all a block per
    // peer, all-gather the rank's own piece to each.
    const uint64_t block = r.bytes / p;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> rankAt; // (server, GPU) -> rank
    for (uint32_t rank = 0; rank < r.placement.size(); ++rank)
    {
        rankAt.emplace(std::make_pair(r.placement[rank].server, r.placement[rank].localIndex),
                       rank);
    }
    // The server-mate of a on b's rail, or p if a sends to b directly.
    const auto relay = [&](uint32_t a, uint32_t b) {
        if (r.placement.empty())
        {
            return p;
        }
        const RankPlacement& from = r.placement[a];
        const RankPlacement& to = r.placement[b];
        if (from.server == to.server || from.localIndex == to.localIndex)
        {
            return p;
        }
        const auto it = rankAt.find({from.server, to.localIndex});
        return it == rankAt.end() ? p : it->second;
    };

    struct Relayed
    {
        uint32_t from;
        uint32_t to;
        uint32_t via;
    };
    std::vector<Relayed> relayed;
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        s.Copy(rank, block, {});
    }
    for (uint32_t step = 1; step < p; ++step)
    {
        for (uint32_t a = 0; a < p; ++a)
        {
            const uint32_t b = (a + step) % p;
            const uint32_t via = relay(a, b);
            if (via == p)
            {
                s.Send(a, b, block, {});
                s.Recv(b, a, block, {});
            }
            else
            {
                relayed.push_back({a, b, via});
            }
        }
    }
    // Relayed messages in pieces of one protocol step, piece k of every message before piece
    // k + 1 of any, so a relay's queue pair sends them in the order they arrive.
    const uint64_t stepBytes = std::max<uint64_t>(r.protocol->GetStepPayload(), r.elementBytes);
    const auto pieces = static_cast<uint32_t>((block + stepBytes - 1) / stepBytes);
    for (uint32_t k = 0; k < pieces; ++k)
    {
        const uint64_t piece = SplitPiece(block, pieces, k, r.elementBytes);
        for (const Relayed& m : relayed)
        {
            s.Send(m.from, m.via, piece, {}, 1);
            const uint32_t in = s.Recv(m.via, m.from, piece, {}, 1);
            s.Send(m.via, m.to, piece, {in}, 1);
            s.Recv(m.to, m.via, piece, {}, 1);
        }
    }
    return s;
}

} // namespace ns3
