#include "pxn-collective.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PxnCollectiveAlgorithm);

TypeId
PxnCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PxnCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PxnCollectiveAlgorithm>()
                            .AddAttribute("ChunkBytes",
                                          "Bytes a relay forwards at a time: NCCL's network "
                                          "chunk for point-to-point (P2P_NET_CHUNKSIZE, 128 "
                                          "KiB in NCCL 2.30, src/init.cc).",
                                          UintegerValue(128 * 1024),
                                          MakeUintegerAccessor(
                                              &PxnCollectiveAlgorithm::m_chunkBytes),
                                          MakeUintegerChecker<uint64_t>(1));
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
    s.SetPipelined(true); // its pieces flow through every connection at once
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
    // Relayed messages in chunks of whole elements (the last one shorter), chunk k of every
    // message before chunk k + 1 of any, so a relay's queue pair sends them as they arrive.
    const uint64_t chunk = std::max<uint64_t>(m_chunkBytes / r.elementBytes, 1) * r.elementBytes;
    for (uint64_t offset = 0; offset < block; offset += chunk)
    {
        const uint64_t piece = std::min(chunk, block - offset);
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
