#ifndef AI_FABRIC_NVLS_COLLECTIVE_H
#define AI_FABRIC_NVLS_COLLECTIVE_H

#include "collective-algorithm.h"

#include "ns3/nstime.h"

#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's NVLS (NVLink SHARP, NCCL 2.17+): the NVSwitch reduces and multicasts, so each
 * byte crosses a GPU's NVLink about once each way instead of the ring's 2(N-1)/N.
 *
 * The ranks of one server and their NVSwitch's engine (an NVLS engine rank,
 * CollectiveRequest::engineServers).  Rank k owns slice k of the buffer (1/N), cut per
 * channel and into pieces of ChunkBytes (NCCL_NVLS_CHUNKSIZE).  Reduce (multimem.ld_reduce):
 * every rank sends its part of each piece to the engine, which reduces the N parts and
 * returns the sum to the piece's owner.  Broadcast (multimem.st): the owner stores the piece
 * to the engine, which sends it to all N ranks, the owner included.  All-reduce does both
 * (each GPU's NVLink carries D(N+1)/N each way for D bytes), reduce-scatter the first, all-gather
 * the second (D/N out, D in).  The broadcast half runs on channels of its own, as NCCL's kernel
 * gives the two halves separate warps.  Multimem operations reach Efficiency of NVLink's data
 * rate (NCCL's nvlsEfficiency), so every message is sent as its wire bytes over Efficiency.
 * Latency is NCCL's own for NVLS (its tuning constants' NVLS row, not the rings' the
 * protocol holds): no launch latency, and 25 us spread over a piece's messages.
 * Across servers NCCL runs NVLS-tree, not this.
 */
class NvlsCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "nvls"; }
    bool Supports(CollectiveOperation op) const override;

    /**
     * The reduce of one piece of \p bytes on channel \p channel: every rank of \p gpus sends
     * its part to \p engine, which reduces them and sends the sum to \p owner.  Returns the
     * owner's RECV of the sum.
     */
    static uint32_t AddReduce(CollectiveSchedule& s, const std::vector<uint32_t>& gpus,
                              uint32_t engine, uint32_t owner, uint64_t bytes, uint32_t channel);
    /**
     * The broadcast of one piece: \p owner stores it to \p engine once \p after are done,
     * and the engine sends it to every rank of \p gpus.
     */
    static void AddBroadcast(CollectiveSchedule& s, const std::vector<uint32_t>& gpus,
                             uint32_t engine, uint32_t owner, uint64_t bytes, uint32_t channel,
                             const std::vector<uint32_t>& after);
    /**
     * Call \p piece(slice, channel, bytes) for every non-empty piece of \p r's buffer cut into
     * \p slices slices, each into \p channels channels, each into pieces of at most \p chunk
     * bytes (whole elements): piece j of every slice and channel before piece j + 1 of any.
     */
    static void ForEachPiece(const CollectiveRequest& r, uint32_t slices, uint32_t channels,
                             uint64_t chunk,
                             const std::function<void(uint32_t, uint32_t, uint64_t)>& piece);

  protected:
    void CheckRequest(const CollectiveRequest& request) const override;

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;

    uint32_t m_channels{};
    uint64_t m_chunkBytes{};
    double m_efficiency{};
    Time m_latency;
};

} // namespace ns3

#endif
