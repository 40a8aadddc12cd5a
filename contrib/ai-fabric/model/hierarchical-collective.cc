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
            .AddAttribute("Channels",
                          "Channels of the inter-server ring all-reduce (per rail).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&HierarchicalCollectiveAlgorithm::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Chunks",
                          "Slices per block of the inter-server ring all-reduce.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&HierarchicalCollectiveAlgorithm::m_chunks),
                          MakeUintegerChecker<uint32_t>(1, 1024));
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
    const auto nServers = static_cast<uint32_t>(servers.size());
    auto ring = CreateObject<RingCollectiveAlgorithm>();
    CollectiveRequest sub = r;
    sub.placement.clear();
    CollectiveSchedule s(r.op, r.bytes, r.ranks);
    auto intraServer = [&](CollectiveOperation op) {
        sub.op = op;
        sub.ranks = g;
        sub.bytes = r.bytes;
        for (const auto& server : servers)
        {
            s.Embed(ring->Build(sub), server);
        }
    };
    if (g > 1)
    {
        intraServer(REDUCE_SCATTER);
    }
    if (nServers > 1)
    {
        ring->SetAttribute("Channels", UintegerValue(m_channels));
        ring->SetAttribute("Chunks", UintegerValue(m_chunks));
        sub.op = ALL_REDUCE;
        sub.ranks = nServers;
        sub.bytes = r.bytes / g;
        for (uint32_t i = 0; i < g; ++i)
        {
            std::vector<uint32_t> rail;
            for (const auto& server : servers)
            {
                rail.push_back(server[i]);
            }
            s.Embed(ring->Build(sub), rail);
        }
        ring->SetAttribute("Channels", UintegerValue(1));
        ring->SetAttribute("Chunks", UintegerValue(1));
    }
    if (g > 1)
    {
        intraServer(ALL_GATHER);
    }
    return s;
}

} // namespace ns3
