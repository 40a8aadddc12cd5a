#ifndef AI_FABRIC_RING_COLLECTIVE_H
#define AI_FABRIC_RING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Ring algorithms (NCCL's default for large messages; Patarasuk & Yuan 2009).
 *
 * All-reduce is a reduce-scatter then an all-gather around the ring 0 -> 1 -> ... -> p-1 -> 0:
 * 2(p-1) steps of n/p bytes, cost 2(p-1)a + 2(p-1)/p n b + (p-1)/p n g.  Reduce-scatter and
 * all-gather are one half each.  Broadcast and reduce are a chain from (to) the root.  The data
 * is split over Channels parallel rings (separate queue pairs, so ECMP spreads them) and each
 * block into Chunks slices, so a rank forwards a slice as soon as it has it (pipelining).
 */
class RingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "ring"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
    /**
     * Add p-1 steps of the reduce-scatter (\p reduce) or all-gather half on channel \p c:
     * rank r sends block r + offset - step.  \p last holds each rank's last step per slice,
     * what its next send of that slice waits for.
     */
    void AddRingPass(CollectiveSchedule& s, const CollectiveRequest& r, bool reduce,
                     uint32_t c, uint32_t offset, std::vector<std::vector<uint32_t>>& last) const;
    void AddChain(CollectiveSchedule& s, const CollectiveRequest& r, bool reduce) const;
    /** Bytes of block \p b, channel \p c, slice \p k when \p bytes is cut into \p blocks. */
    uint64_t Piece(const CollectiveRequest& r, uint64_t bytes, uint32_t blocks, uint32_t b,
                   uint32_t c, uint32_t k) const;

    uint32_t m_channels{1};
    uint32_t m_chunks{1};
};

} // namespace ns3

#endif
