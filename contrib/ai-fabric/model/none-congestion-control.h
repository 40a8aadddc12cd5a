#ifndef AI_FABRIC_NONE_CONGESTION_CONTROL_H
#define AI_FABRIC_NONE_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief No congestion control: always the line rate; PFC alone keeps the fabric lossless.
 */
class NoneCongestionControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();

  private:
    DataRate DoGetRate() override { return GetLineRate(); }
};

} // namespace ns3

#endif
