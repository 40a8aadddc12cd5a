#ifndef AI_FABRIC_RDMA_HELPER_H
#define AI_FABRIC_RDMA_HELPER_H

#include "ns3/fabric-network-helper.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Puts an RdmaNic on every host of a fabric and connects reliable queue pairs.
 */
class RdmaHelper
{
  public:
    RdmaHelper();
    /** An RdmaNic attribute, e.g. "CongestionControl". */
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /** A queue-pair attribute for every QP connected from now on, e.g. "AckInterval". */
    void SetQueuePairAttribute(const std::string& name, const AttributeValue& value);
    /** Aggregate an RdmaNic to every host of \p network (of this rank, in a distributed run). */
    void Install(Ptr<FabricNetwork> network) const;
    /**
     * Connect host \p a to host \p b with one queue pair at each end; returns (a's, b's).
     * In a distributed run another rank's end is null: every rank makes the same Connect
     * calls in the same order, so each numbers the queue pairs alike.
     * Throws std::invalid_argument for equal or unknown hosts.
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ptr<FabricNetwork> network,
                                                              uint32_t a, uint32_t b) const;

  private:
    ObjectFactory m_nicFactory;
    ObjectFactory m_qpFactory;
};

} // namespace ns3

#endif
