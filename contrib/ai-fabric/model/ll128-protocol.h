#ifndef AI_FABRIC_LL128_PROTOCOL_H
#define AI_FABRIC_LL128_PROTOCOL_H

#include "collective-protocol.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's LL128 protocol: 128-byte lines of 120 B data and an 8 B flag, relying on
 * NVLink's 128-byte store atomicity, so it keeps most of Simple's bandwidth at a lower
 * latency.  One-step slices of 576,000 B of data (614,400 B of lines) from the 4,915,200 B
 * buffer (NCCL_LL128_BUFFSIZE).
 */
class Ll128Protocol : public CollectiveProtocol
{
  public:
    static TypeId GetTypeId();
    /** Bytes of a line, and of data in it. */
    static constexpr uint64_t kLineBytes = 128;
    static constexpr uint64_t kLineData = 120;

    Ll128Protocol()
        : CollectiveProtocol(kLineBytes, kLineData)
    {
    }

    std::string GetShortName() const override { return "ll128"; }
};

} // namespace ns3

#endif
