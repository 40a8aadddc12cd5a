#ifndef AI_FABRIC_LL_PROTOCOL_H
#define AI_FABRIC_LL_PROTOCOL_H

#include "collective-protocol.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's LL (low latency) protocol: 16-byte lines of 4 B data and a 4 B flag, twice,
 * written in one store, so the receiver polls data and flag together (no fence): half the
 * wire bytes are flags.  One-step slices of 32 KiB of data (64 KiB of lines) from the
 * 512 KiB buffer (NCCL_LL_BUFFSIZE).  NCCL also caps LL's rate by the GPUs' polling
 * (llMaxBw), which this model does not.
 */
class LlProtocol : public CollectiveProtocol
{
  public:
    static TypeId GetTypeId();
    /** Bytes of a line, and of data in it. */
    static constexpr uint64_t kLineBytes = 16;
    static constexpr uint64_t kLineData = 8;

    LlProtocol()
        : CollectiveProtocol(kLineBytes, kLineData)
    {
    }

    std::string GetShortName() const override { return "ll"; }
};

} // namespace ns3

#endif
