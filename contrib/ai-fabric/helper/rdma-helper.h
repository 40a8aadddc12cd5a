#ifndef AI_FABRIC_RDMA_HELPER_H
#define AI_FABRIC_RDMA_HELPER_H

#include "ns3/fabric-network-helper.h"
#include "ns3/flow-queue-pair.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Puts an RdmaNic on every host of a fabric and connects reliable queue pairs; or, at
 * flow fidelity, models the fabric as a FlowNetwork and connects FlowQueuePairs.
 */
class RdmaHelper
{
  public:
    RdmaHelper();
    /** An RdmaNic attribute, e.g. "CongestionControl". */
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /** A queue-pair attribute for every QP connected from now on, e.g. "AckInterval". */
    void SetQueuePairAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Carry messages as flows of the flow-level model (FlowNetwork) instead of frames: the
     * queue pairs' attributes that matter there (AckInterval, UdpSrcPort) still apply.
     */
    void SetFlowLevel(bool flow) { m_flowLevel = flow; }
    bool IsFlowLevel() const { return m_flowLevel; }
    /**
     * At flow level, run each pipelined collective in its steady state (SteadyStateSchedule:
     * a flow per connection for the whole collective) instead of step by step.
     */
    void SetSteadyStateCollectives(bool steady) { m_steadyState = steady; }
    bool IsSteadyStateCollectives() const { return m_flowLevel && m_steadyState; }
    /**
     * Aggregate an RdmaNic to every host of \p network (of this rank, in a distributed run);
     * at flow level, a FlowNetwork of \p network to \p network (once).  Throws
     * std::invalid_argument for a flow-level install on part of a distributed fabric.
     */
    void Install(Ptr<FabricNetwork> network) const;
    /**
     * Connect host \p a to host \p b with one queue pair at each end; returns (a's, b's).
     * In a distributed run another rank's end is null: every rank makes the same Connect
     * calls in the same order, so each numbers the queue pairs alike.
     * Throws std::invalid_argument for equal or unknown hosts.
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ptr<FabricNetwork> network,
                                                              uint32_t a, uint32_t b) const;
    /**
     * Connect host \p a to host \p b at this helper's fidelity: RdmaQueuePairs as Connect
     * makes them, or at flow level FlowQueuePairs numbered and routed as those would be.
     */
    std::pair<Ptr<MessageQueuePair>, Ptr<MessageQueuePair>> ConnectMessages(
        Ptr<FabricNetwork> network, uint32_t a, uint32_t b) const;

  private:
    ObjectFactory m_nicFactory;
    ObjectFactory m_qpFactory;
    bool m_flowLevel{false};
    bool m_steadyState{false};

    /** Throws std::invalid_argument unless \p a and \p b are distinct endpoints. */
    static void CheckEnds(Ptr<FabricNetwork> network, uint32_t a, uint32_t b);
};

} // namespace ns3

#endif
