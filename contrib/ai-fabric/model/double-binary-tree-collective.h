#ifndef AI_FABRIC_DOUBLE_BINARY_TREE_COLLECTIVE_H
#define AI_FABRIC_DOUBLE_BINARY_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's tree all-reduce: a double binary tree across servers, a chain inside each
 * (NCCL 2.4 on; Sanders, Speck & Traeff 2009; doc/nccl-facts.md sections 3.3 and 5).
 *
 * Servers are numbered in order of their first rank and joined by NCCL's two binary trees
 * (BinaryTree): tree 0 on the lowest set bit of the server number, tree 1 the same mirrored
 * (an even count of servers) or shifted by one (odd), so a server that is a leaf in one tree is
 * inner in the other.  The first ceil(c/2) of c channels run tree 0, the rest tree 1 (one
 * tree with one channel; NCCL splits at its search-channel count), each carrying 1/Channels of the data.  Inside a server, channel c chains its
 * GPUs from GPU c mod G on: that GPU, the chain's head, talks to the heads of the parent and
 * children servers through its own NIC (rail c), as NCCL's TREE pattern does.  Per chunk of
 * the protocol's step size a rank receives and reduces what its children send (its chain
 * successor and, at a head, its child servers' heads), sends the sum up (to its chain
 * predecessor, or at a head to the parent server's head), receives the result back and
 * forwards it down, so the reduce and broadcast waves of successive chunks overlap.
 */
class DoubleBinaryTreeCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "tree"; }
    bool Supports(CollectiveOperation op) const override;

    /** A node's place in a tree: its parent (UINT32_MAX at the root) and children. */
    struct TreeNode
    {
        uint32_t parent;
        std::vector<uint32_t> children;
    };
    /**
     * Node \p node's place in NCCL's binary tree \p tree (0 or 1) over \p n nodes.  Tree 0: the
     * parent of node r with lowest set bit b is (r ^ b) | 2b, or r ^ b where that is >= n; its
     * children are r - b/2 and r + b/2 (halving b while past n); node 0 is the root, with one
     * child, the largest power of two below n.  Tree 1 is tree 0 mirrored (r -> n - 1 - r)
     * when n is even, shifted (r -> r - 1 mod n) when odd.
     */
    static TreeNode BinaryTree(uint32_t n, uint32_t node, uint32_t tree);

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;

    uint32_t m_channels{};
};

} // namespace ns3

#endif
