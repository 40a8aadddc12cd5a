#include "double-binary-tree-collective.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeCollectiveAlgorithm);

namespace
{
constexpr uint32_t kNone = UINT32_MAX;

/** Tree 0's node \p r of \p n: parent and children on the lowest set bit. */
DoubleBinaryTreeCollectiveAlgorithm::TreeNode
LowestBitTree(uint32_t n, uint32_t r)
{
    DoubleBinaryTreeCollectiveAlgorithm::TreeNode node{kNone, {}};
    uint32_t bit = 1;
    while (bit < n && (bit & r) == 0)
    {
        bit <<= 1;
    }
    if (r == 0)
    {
        if (n > 1)
        {
            node.children.push_back(bit >> 1); // bit is the first power of two >= n
        }
        return node;
    }
    node.parent = (r ^ bit) | (bit << 1);
    if (node.parent >= n)
    {
        node.parent = r ^ bit;
    }
    uint32_t low = bit >> 1;
    if (low == 0)
    {
        return node; // an odd node: a leaf
    }
    node.children.push_back(r - low);
    while (low != 0 && r + low >= n)
    {
        low >>= 1;
    }
    if (low != 0)
    {
        node.children.push_back(r + low);
    }
    return node;
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
            .AddAttribute("Channels",
                          "Parallel trees, each over its own queue pairs and carrying "
                          "1/Channels of the data: the first half run tree 0, the rest tree 1 "
                          "(NCCL's channels; 2 = one of each).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&DoubleBinaryTreeCollectiveAlgorithm::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

bool
DoubleBinaryTreeCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE;
}

DoubleBinaryTreeCollectiveAlgorithm::TreeNode
DoubleBinaryTreeCollectiveAlgorithm::BinaryTree(uint32_t n, uint32_t node, uint32_t tree)
{
    if (tree == 0)
    {
        return LowestBitTree(n, node);
    }
    // Tree 1: relabel, build tree 0, label back.
    const bool mirror = n % 2 == 0;
    const auto to = [n, mirror](uint32_t r) { return mirror ? n - 1 - r : (r + n - 1) % n; };
    const auto back = [n, mirror](uint32_t r) { return mirror ? n - 1 - r : (r + 1) % n; };
    TreeNode t = LowestBitTree(n, to(node));
    t.parent = t.parent == kNone ? kNone : back(t.parent);
    for (uint32_t& child : t.children)
    {
        child = back(child);
    }
    return t;
}

CollectiveSchedule
DoubleBinaryTreeCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    const uint32_t p = r.ranks;
    // Servers in order of their first rank, each one's ranks by GPU index (no placement: one
    // rank per server).
    std::vector<std::vector<uint32_t>> servers;
    std::map<uint32_t, uint32_t> serverIndex;
    for (uint32_t rank = 0; rank < p; ++rank)
    {
        const uint32_t server = r.placement.empty() ? rank : r.placement[rank].server;
        auto [it, added] = serverIndex.emplace(server, uint32_t(servers.size()));
        if (added)
        {
            servers.emplace_back();
        }
        servers[it->second].push_back(rank);
    }
    for (auto& members : servers)
    {
        std::stable_sort(members.begin(), members.end(), [&r](uint32_t a, uint32_t b) {
            return r.placement.empty() || r.placement[a].localIndex < r.placement[b].localIndex;
        });
    }
    const auto nodes = static_cast<uint32_t>(servers.size());
    const uint32_t firstTree1 = (m_channels + 1) / 2;
    CollectiveSchedule s(r);
    s.SetPipelined(true); // its pieces flow through every connection at once
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        // This channel's tree: each rank's parent and children.
        const uint32_t tree = c < firstTree1 ? 0 : 1;
        std::vector<uint32_t> parent(p, kNone);
        std::vector<std::vector<uint32_t>> children(p);
        std::vector<uint32_t> head(nodes);
        for (uint32_t i = 0; i < nodes; ++i)
        {
            std::vector<uint32_t> chain = servers[i];
            std::rotate(chain.begin(), chain.begin() + c % chain.size(), chain.end());
            head[i] = chain.front();
            for (uint32_t k = 1; k < chain.size(); ++k)
            {
                parent[chain[k]] = chain[k - 1];
                children[chain[k - 1]].push_back(chain[k]);
            }
        }
        for (uint32_t i = 0; i < nodes; ++i)
        {
            const TreeNode node = BinaryTree(nodes, i, tree);
            if (node.parent != kNone)
            {
                parent[head[i]] = head[node.parent];
            }
            for (uint32_t child : node.children)
            {
                children[head[i]].push_back(head[child]);
            }
        }
        const uint64_t channelBytes = SplitPiece(r.bytes, m_channels, c, r.elementBytes);
        const uint64_t step = r.protocol->GetStepPayload();
        const auto chunks = static_cast<uint32_t>(
            std::min<uint64_t>(r.protocol->Messages(channelBytes, (channelBytes + step - 1) / step),
                               std::max<uint64_t>(1, channelBytes / r.elementBytes)));
        for (uint32_t k = 0; k < chunks; ++k)
        {
            const uint64_t bytes = SplitPiece(channelBytes, chunks, k, r.elementBytes);
            for (uint32_t rank = 0; rank < p; ++rank)
            {
                std::vector<uint32_t> have;
                for (uint32_t child : children[rank])
                {
                    const uint32_t in = s.Recv(rank, child, bytes, {}, c);
                    have = {s.Reduce(rank, bytes, [&] {
                        std::vector<uint32_t> deps = have;
                        deps.push_back(in);
                        return deps;
                    }())};
                }
                if (parent[rank] != kNone)
                {
                    s.Send(rank, parent[rank], bytes, have, c);
                    have = {s.Recv(rank, parent[rank], bytes, {}, c)};
                }
                for (uint32_t child : children[rank])
                {
                    s.Send(rank, child, bytes, have, c);
                }
            }
        }
    }
    return s;
}

} // namespace ns3
