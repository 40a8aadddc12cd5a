#ifndef AI_FABRIC_PXN_COLLECTIVE_H
#define AI_FABRIC_PXN_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's point-to-point all-to-all and all-gather with PXN (PCI x NVLink, NCCL 2.12+).
 *
 * Every rank posts all its messages at once, peers in NCCL's order (to r + s, from r - s,
 * s = 1 .. p-1), as ncclSend/ncclRecv in one group do: for all-to-all its block for each peer,
 * for all-gather its own piece to every peer; its own block or piece is a local COPY.  A
 * message between two servers whose GPUs sit on different rails (local indices) does not
 * leave by the sender's NIC: it crosses NVLink first to the sender's server-mate on the
 * destination's rail (the GPU closest to the NIC NCCL picks for that peer), which forwards it
 * over its own NIC, so the scale-out traffic stays on its rail.  The forwarding rank relays
 * the message in pieces of ChunkBytes (NCCL's P2P_NET_CHUNKSIZE, 128 KiB), each sent on once
 * it has arrived, on a connection of its own (channel 1).  Without placement, or when the
 * communicator has no rank on that rail of the sender's server, messages go direct.  Within
 * one rail group of a rail-optimized fabric no frame crosses a spine, and a rank's NIC
 * carries G(S-1) blocks each way for S servers of G GPUs.
 */
class PxnCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "pxn"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;

    uint64_t m_chunkBytes{};
};

} // namespace ns3

#endif
