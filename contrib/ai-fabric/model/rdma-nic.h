#ifndef AI_FABRIC_RDMA_NIC_H
#define AI_FABRIC_RDMA_NIC_H

#include "fabric-endpoint.h"
#include "rdma-queue-pair.h"

#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class FabricEndpoint;

/**
 * \ingroup ai-fabric
 * \brief The RDMA engine of a fabric host, aggregated to its Node beside its FabricEndpoint.
 *
 * Creates reliable-connection queue pairs, numbered from 1 on this host, each with its own
 * congestion control made from the CongestionControl TypeId, and hands every arriving RoCEv2
 * frame to the queue pair its BTH DestQP names (a vector index, no lookup).
 */
class RdmaNic : public Object, public FabricTransport
{
  public:
    static TypeId GetTypeId();
    RdmaNic();

    /** Follow \p endpoint's deliveries; call once, after the endpoint has its ports. */
    void Install(Ptr<FabricEndpoint> endpoint);
    /**
     * A queue pair toward \p remoteHost's queue pair \p remoteQpn, made by \p factory (its
     * attributes: priority, ACK interval, timeout, ...).  The port is the one routing picks
     * for the QP's UDP source port.
     */
    Ptr<RdmaQueuePair> CreateQueuePair(const ObjectFactory& factory, uint32_t remoteHost,
                                       uint32_t remoteQpn);
    /** The fabric's largest base round trip, given to each queue pair's congestion control
     * (RdmaCongestionControl::SetFabricRtt); RdmaHelper sets it. */
    void SetFabricRtt(Time rtt) { m_fabricRtt = rtt; }
    /** The QP number the next CreateQueuePair will use. */
    uint32_t GetNextQpn() const { return static_cast<uint32_t>(m_qps.size()); }
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t qpn) const;
    /** The counters of every queue pair of this NIC, summed. */
    RdmaQpCounters GetTotals() const;

  protected:
    void DoDispose() override;

  private:
    void Deliver(const FrameInfo& info) override;

    Ptr<FabricEndpoint> m_endpoint;
    TypeId m_ccType;
    Time m_fabricRtt;
    /** By QP number; the reserved ones below roce::kFirstDataQpn are null. */
    std::vector<Ptr<RdmaQueuePair>> m_qps;
    TracedCallback<Ptr<RdmaQueuePair>> m_createdTrace; //!< a queue pair was set up
};

} // namespace ns3

#endif
