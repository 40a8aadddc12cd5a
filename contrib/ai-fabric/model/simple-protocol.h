#ifndef AI_FABRIC_SIMPLE_PROTOCOL_H
#define AI_FABRIC_SIMPLE_PROTOCOL_H

#include "collective-protocol.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's Simple protocol: data in bulk (every wire byte is data), a flag after each
 * step behind a memory fence, so the highest bandwidth and the highest latency.  A ring's
 * all-reduce, reduce-scatter and all-gather cut blocks into 4-step chunks of two 2-step
 * slices (NCCL's CHUNKSTEPS = NCCL_STEPS / 2, SLICESTEPS = NCCL_STEPS / 4): messages of up
 * to 1 MiB from the 4 MiB buffer (NCCL_BUFFSIZE).
 */
class SimpleProtocol : public CollectiveProtocol
{
  public:
    static TypeId GetTypeId();
    SimpleProtocol()
        : CollectiveProtocol(1, 1)
    {
    }
    std::string GetShortName() const override { return "simple"; }
    uint32_t GetChunkSteps(bool ringPass) const override;
    uint32_t GetSliceSteps(bool ringPass) const override;
};

} // namespace ns3

#endif
