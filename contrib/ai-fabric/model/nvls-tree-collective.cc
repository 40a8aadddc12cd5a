#include "nvls-tree-collective.h"

#include "double-binary-tree-collective.h"
#include "hierarchical-collective.h"
#include "nvls-collective.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsTreeCollectiveAlgorithm);

TypeId
NvlsTreeCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvlsTreeCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvlsTreeCollectiveAlgorithm>()
            .AddAttribute("Channels",
                          "Channels (CTAs): NCCL_NVLS_NCHANNELS, 16 on Hopper in NCCL 2.30.  "
                          "Each uses three connections: the reduce, the broadcast and the heads' "
                          "network ones.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&NvlsTreeCollectiveAlgorithm::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("ChunkBytes",
                          "Bytes of the largest piece; 0: NCCL 2.30's, 64 KiB from 4 servers on "
                          "and 128 KiB below (NCCL_NVLSTREE_MAX_CHUNKSIZE, "
                          "src/transport/nvls.cc).  Smaller collectives get NCCL's smaller "
                          "pieces (256, 128, 64 and 32 KiB below 32, 16, 4 and 1 x Channels x "
                          "GPUs per server x the piece, src/enqueue.cc).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NvlsTreeCollectiveAlgorithm::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("NvLinkLatency",
                          "What synchronising through the NVSwitch adds: NCCL 2.30's hwLat for "
                          "NVLS-tree over NVLink, 25 us, with no base latency "
                          "(src/graph/tuning.cc), spread over the four messages a piece takes "
                          "to and from its server's engine.",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&NvlsTreeCollectiveAlgorithm::m_nvLinkLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NetHopLatency",
                          "What each hop between servers' heads adds beside the packets' own: "
                          "NCCL 2.30's hwLat for NVLS-tree over the network, 20.9 us per tree "
                          "level (src/graph/tuning.cc).",
                          TimeValue(NanoSeconds(20900)),
                          MakeTimeAccessor(&NvlsTreeCollectiveAlgorithm::m_netHopLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Efficiency",
                          "Share of NVLink's data rate that multimem loads and stores reach "
                          "(messages to and from the engines; not the heads' network ones): "
                          "NCCL 2.30's nvlsEfficiency for Hopper, 0.85 (src/graph/tuning.cc), "
                          "which its tuner also assumes.",
                          DoubleValue(0.85),
                          MakeDoubleAccessor(&NvlsTreeCollectiveAlgorithm::m_efficiency),
                          MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

bool
NvlsTreeCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE;
}

void
NvlsTreeCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    const std::string protocol = r.protocol->GetShortName();
    if (protocol != "simple" && protocol != "ideal")
    {
        throw std::invalid_argument("nvls_tree runs in the simple protocol only, as NCCL's does (got " +
                                    protocol + ")");
    }
    if (r.placement.empty())
    {
        throw std::invalid_argument("nvls_tree: the ranks' servers are unknown (no placement)");
    }
    const auto servers = HierarchicalCollectiveAlgorithm::Servers(r);
    if (servers.size() < 2)
    {
        throw std::invalid_argument("nvls_tree runs across servers; on one server, nvls");
    }
    for (const auto& ranks : servers)
    {
        if (ranks.size() != servers.front().size())
        {
            throw std::invalid_argument("nvls_tree: every server needs the same number of ranks "
                                        "(found " + std::to_string(servers.front().size()) +
                                        " and " + std::to_string(ranks.size()) + ")");
        }
        const uint32_t server = r.placement[ranks.front()].server;
        if (std::find(r.engineServers.begin(), r.engineServers.end(), server) ==
            r.engineServers.end())
        {
            throw std::invalid_argument("nvls_tree needs server " + std::to_string(server) +
                                        "'s NVSwitch to reduce (the topology's nvls = true)");
        }
    }
}

CollectiveSchedule
NvlsTreeCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r, true);
    s.SetPipelined(true); // its pieces flow through every connection at once
    s.SetEngineEfficiency(m_efficiency);
    const auto servers = HierarchicalCollectiveAlgorithm::Servers(r);
    const auto nodes = static_cast<uint32_t>(servers.size());
    const auto g = static_cast<uint32_t>(servers.front().size());
    std::vector<uint32_t> engine(nodes);
    for (uint32_t i = 0; i < nodes; ++i)
    {
        const uint32_t server = r.placement[servers[i].front()].server;
        engine[i] = r.ranks + static_cast<uint32_t>(std::find(r.engineServers.begin(),
                                                              r.engineServers.end(), server) -
                                                    r.engineServers.begin());
    }
    s.SetAlgorithmLatencies(Time(0), m_nvLinkLatency / 4, m_netHopLatency);
    uint64_t chunk = m_chunkBytes > 0 ? m_chunkBytes : nodes >= 4 ? 64 << 10 : 128 << 10;
    const uint64_t concurrent = uint64_t{m_channels} * g; // NCCL's channels x heads
    for (const auto& [times, smaller] : {std::pair<uint64_t, uint64_t>{32, 256 << 10},
                                         {16, 128 << 10},
                                         {4, 64 << 10},
                                         {1, 32 << 10}})
    {
        if (r.bytes < times * concurrent * chunk && chunk > smaller)
        {
            chunk = smaller;
        }
    }
    const uint32_t net = 2 * m_channels; // the heads' network connections: channels of their own
    NvlsCollectiveAlgorithm::ForEachPiece(r, g, m_channels, chunk, [&](uint32_t h, uint32_t c,
                                                                      uint64_t b) {
        const uint32_t tree = c % 2;
        for (uint32_t i = 0; i < nodes; ++i)
        {
            const uint32_t head = servers[i][h];
            const auto node = DoubleBinaryTreeCollectiveAlgorithm::BinaryTree(nodes, i, tree);
            std::vector<uint32_t> sum{NvlsCollectiveAlgorithm::AddReduce(
                s, servers[i], engine[i], head, b, c)};
            for (uint32_t child : node.children)
            {
                sum.push_back(s.Recv(head, servers[child][h], b, {}, net + c));
            }
            uint32_t total = sum.front();
            if (sum.size() > 1)
            {
                total = s.Reduce(head, (sum.size() - 1) * b, sum);
            }
            if (node.parent != UINT32_MAX) // the root has none
            {
                const uint32_t up = servers[node.parent][h];
                s.Send(head, up, b, {total}, net + c);
                total = s.Recv(head, up, b, {}, net + c);
            }
            for (uint32_t child : node.children)
            {
                s.Send(head, servers[child][h], b, {total}, net + c);
            }
            NvlsCollectiveAlgorithm::AddBroadcast(s, servers[i], engine[i], head, b,
                                                  m_channels + c, {total});
        }
    });
    return s;
}

} // namespace ns3
