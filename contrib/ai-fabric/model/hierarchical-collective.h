#ifndef AI_FABRIC_HIERARCHICAL_COLLECTIVE_H
#define AI_FABRIC_HIERARCHICAL_COLLECTIVE_H

#include "collective-algorithm.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Hierarchical all-reduce for multi-GPU servers (NCCL's intra-node/inter-node split).
 *
 * With G ranks on each of S servers: a ring reduce-scatter among each server's G GPUs over
 * NVLink leaves local rank i with 1/G of the sum; a ring all-reduce of that 1/G among the S
 * ranks with local index i (one per server, the same rail) runs over the scale-out NICs, all G
 * rails at once; a ring all-gather over NVLink completes the buffer.  The buffer is cut into
 * up to Pipeline pieces of at least MinPieceBytes that follow each other through the three
 * phases, so NVLink and the NICs work at the same time.  Each phase is a ring
 * (RingCollectiveAlgorithm) in the algorithm's protocol.  Needs the same number of ranks on
 * every server and bytes a multiple of G elements.
 */
class HierarchicalCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "hierarchical"; }
    bool Supports(CollectiveOperation op) const override;
    /**
     * Ranks per server, each list ordered by local index, servers in order of appearance (each
     * rank its own server without a placement); NVLS-tree groups its ranks with it too.
     */
    static std::vector<std::vector<uint32_t>> Servers(const CollectiveRequest& request);

  private:
    void CheckRequest(const CollectiveRequest& request) const override;
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;

    uint32_t m_pipeline{};
    uint64_t m_minPieceBytes{};
    uint32_t m_piecesInFlight{};
};

} // namespace ns3

#endif
