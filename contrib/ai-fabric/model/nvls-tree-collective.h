#ifndef AI_FABRIC_NVLS_TREE_COLLECTIVE_H
#define AI_FABRIC_NVLS_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's NVLS-tree all-reduce (NCCL 2.18+): NVLS inside each server, NCCL's double
 * binary tree between servers, one tree per head GPU's share.
 *
 * Every server has the same G ranks and an NVSwitch that reduces (an NVLS engine rank).  GPU
 * h of each server (the h-th by local index) is the head of slice h of every piece: the
 * server's engine reduces the slice from all G GPUs and returns the sum to the head
 * (NvlsCollectiveAlgorithm::AddReduce); the heads h of all servers all-reduce it over NCCL's
 * binary tree (DoubleBinaryTreeCollectiveAlgorithm::BinaryTree, tree c mod 2 on channel c),
 * each through its own NIC, so the network traffic stays on rail h; each head then stores the
 * result to its engine, which multicasts it to the server's GPUs (AddBroadcast).  Pieces are
 * of ChunkBytes (NCCL_NVLSTREE_MAX_CHUNKSIZE: 64 KiB from 4 servers on, else 128 KiB).  Each
 * GPU's NVLink carries what NVLS's does, D(N+1)/N each way, at Efficiency.  Latencies are
 * NCCL's own for NVLS-tree (no launch latency, 25 us over NVLink spread over a piece's four
 * engine messages, 20.9 us per network hop), not the rings' the protocol holds.
 */
class NvlsTreeCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "nvls_tree"; }
    bool Supports(CollectiveOperation op) const override;

  protected:
    void CheckRequest(const CollectiveRequest& request) const override;

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;

    uint32_t m_channels{};
    uint64_t m_chunkBytes{};
    double m_efficiency{};
    Time m_nvLinkLatency;
    Time m_netHopLatency;
};

} // namespace ns3

#endif
