#ifndef AI_FABRIC_IDEAL_PROTOCOL_H
#define AI_FABRIC_IDEAL_PROTOCOL_H

#include "collective-protocol.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Not one of NCCL's: the transfer alone.  Every wire byte is data, a message goes
 * whole (one slice per block), and no hop or launch latency is added, so a collective costs
 * what the fabric and the algorithm make it cost.  It separates the fabric's share of a
 * collective's time from the software's, and it is what the alpha-beta closed forms describe.
 */
class IdealProtocol : public CollectiveProtocol
{
  public:
    static TypeId GetTypeId();
    IdealProtocol()
        : CollectiveProtocol(1, 1)
    {
    }
    std::string GetShortName() const override { return "ideal"; }
};

} // namespace ns3

#endif
