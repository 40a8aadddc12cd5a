#ifndef AI_FABRIC_DOUBLE_BINARY_TREE_COLLECTIVE_H
#define AI_FABRIC_DOUBLE_BINARY_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Double binary tree all-reduce (NCCL 2.4; Sanders, Speck & Traeff 2009).
 *
 * Two balanced binary trees over the ranks, the second with every rank shifted by one so
 * that most ranks are a leaf in one tree and an inner node in the other; each tree carries
 * half the data.  Per tree and chunk, a rank receives and reduces its children's data, sends
 * the sum to its parent, receives the result back and forwards it to its children.  Chunks
 * pipeline the reduce and broadcast waves: about 2 log2(p) a + n b for large n.
 */
class DoubleBinaryTreeCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "tree"; }
    bool Supports(CollectiveOperation op) const override;

    /**
     * Parent of each position in a balanced in-order binary tree over \p n positions (the
     * middle position of every range is its root; the root's parent is UINT32_MAX).
     */
    static std::vector<uint32_t> InOrderTreeParents(uint32_t n);

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;

    uint32_t m_chunks{};
    uint64_t m_maxChunkBytes{};
};

} // namespace ns3

#endif
