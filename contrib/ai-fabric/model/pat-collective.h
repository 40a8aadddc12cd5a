#ifndef AI_FABRIC_PAT_COLLECTIVE_H
#define AI_FABRIC_PAT_COLLECTIVE_H

#include "collective-algorithm.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's PAT (Parallel Aggregated Trees, NCCL 2.23+): all-gather and reduce-scatter
 * over one binomial tree per rank, in log2(n) hops (doc/nccl-facts.md section 5a).
 *
 * All-gather: rank o's piece reaches rank o - t by hops over the set bits of t, highest
 * first: a rank holding the piece of rank r + s (offset s) got it from rank r + 2^b, b the
 * lowest set bit of s, and passes it on to rank r - 2^d for every d < b with s + 2^d < n (its
 * own piece, s = 0, for every d with 2^d < n).  Each rank sends n - 1 pieces, as the ring
 * does, but a piece is at most log2(n) hops from its owner where the ring's is n - 1.
 * Reduce-scatter is the mirror: the partial sums for rank o travel towards it over the bits
 * lowest first, each rank adding its own input and its children's partials (a REDUCE of
 * their bytes) before passing the sum on.  Pieces are cut into NCCL's chunk (512 KiB halved
 * while 32 chunks, 16 for reduce-scatter, exceed the whole buffer per channel, not below
 * 64 KiB) and spread over Channels channels, each chunk sent once it has arrived.  What is
 * not modelled: NCCL's aggregation of several pieces into one message at small sizes (a
 * message here is one piece of one rank) and its ops' strict program order per rank (here a
 * step waits only for the data it forwards).  NCCL runs PAT only with one GPU per server and
 * the Simple protocol; this algorithm refuses protocols but Simple (and ideal) and runs on
 * any placement.
 */
class PatCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "pat"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    void CheckRequest(const CollectiveRequest& request) const override;
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
    /**
     * One chunk of every rank's piece, \p bytes each, on \p channel, as all-gather; \p byHop:
     * the offsets by the hop a piece reaches them at.
     */
    void AddAllGather(CollectiveSchedule& s,
                      const std::vector<std::vector<uint32_t>>& byHop,
                      uint64_t bytes,
                      uint32_t channel) const;
    /** The same for reduce-scatter, the hops backwards. */
    void AddReduceScatter(CollectiveSchedule& s,
                          const std::vector<std::vector<uint32_t>>& byHop,
                          uint64_t bytes,
                          uint32_t channel) const;

    uint32_t m_channels{};
};

} // namespace ns3

#endif
