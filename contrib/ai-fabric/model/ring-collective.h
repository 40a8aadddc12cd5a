#ifndef AI_FABRIC_RING_COLLECTIVE_H
#define AI_FABRIC_RING_COLLECTIVE_H

#include "collective-algorithm.h"

#include <functional>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Ring algorithms (NCCL's default for large messages; Patarasuk & Yuan 2009).
 *
 * All-reduce is a reduce-scatter then an all-gather around the ring (rank order, or rail-aligned
 * over multi-GPU servers: see RailAligned):
 * 2(p-1) steps of n/p bytes, cost 2(p-1)a + 2(p-1)/p n b + (p-1)/p n g.  Reduce-scatter and
 * all-gather are one half each.  Broadcast and reduce are a chain from (to) the root.  The data
 * is split over Channels parallel rings (separate queue pairs, so ECMP spreads them) and each
 * block into the protocol's chunks and slices (CollectiveProtocol: chunks of up to 2 MiB in
 * two slices for Simple's all-reduce, as NCCL's), so a rank forwards a slice as soon as it has
 * it (pipelining).  The all-reduce's, reduce-scatter's and all-gather's steps are computed from
 * their index when read (a StepGenerator; StoreSteps stores them instead): stored, a ring of p
 * ranks holds O(p^2) steps.
 */
class RingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "ring"; }
    bool Supports(CollectiveOperation op) const override;

    /** Bytes of block \p b, slice \p k of a pass. */
    using PieceSize = std::function<uint64_t(uint32_t b, uint32_t k)>;
    /**
     * Add the p-1 steps of one ring pass over the ranks \p group (p = group.size()) on
     * \p channel: the reduce-scatter half (\p reduce) or the all-gather half, group member j
     * sending block j + offset - step to member j + 1.  \p last[j][k] is, on entry, the step
     * slice k's first send (and reduction) waits for (UINT32_MAX: none) and, on return, the
     * pass's last step of slice k.  Hierarchical algorithms chain passes through it.
     */
    static void AddRingPass(CollectiveSchedule& s, const std::vector<uint32_t>& group,
                            uint32_t slices, const PieceSize& size, bool reduce, uint32_t offset,
                            uint32_t channel, std::vector<std::vector<uint32_t>>& last);

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
    void AddChain(CollectiveSchedule& s, const CollectiveRequest& r, bool reduce) const;
    /** Bytes of block \p b, channel \p c, slice \p k of \p slices when \p bytes is cut into \p blocks. */
    uint64_t Piece(const CollectiveRequest& r, uint64_t bytes, uint32_t blocks, uint32_t b,
                   uint32_t c, uint32_t slices, uint32_t k) const;
    /** Slices the protocol cuts \p channelBytes into (of a ring pass: \p pass). */
    static uint32_t Slices(const CollectiveRequest& r, uint64_t channelBytes, bool pass);

    /** The ranks of channel \p channel's ring, in order (see RailAligned). */
    std::vector<uint32_t> RingOrder(const CollectiveRequest& r, uint32_t channel) const;

    uint32_t m_channels{};
    bool m_railAligned{};
    bool m_storeSteps{};
};

} // namespace ns3

#endif
