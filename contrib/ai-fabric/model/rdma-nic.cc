#include "rdma-nic.h"

#include "fabric-endpoint.h"
#include "none-congestion-control.h"
#include "range-checkers.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaNic>()
            .AddAttribute("CongestionControl",
                          "TypeId of each queue pair's congestion control (a subclass of "
                          "ns3::RdmaCongestionControl).",
                          TypeIdValue(NoneCongestionControl::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_ccType),
                          MakeTypeIdChecker(RdmaCongestionControl::GetTypeId()))
            .AddTraceSource("QueuePairCreated",
                            "A queue pair was set up on this NIC (with its congestion control), "
                            "so observers can follow queue pairs made during the run.",
                            MakeTraceSourceAccessor(&RdmaNic::m_createdTrace),
                            "ns3::RdmaNic::QueuePairTracedCallback");
    return tid;
}

RdmaNic::RdmaNic()
    : m_ccType(NoneCongestionControl::GetTypeId()),
      m_qps(roce::kFirstDataQpn)
{
}

void
RdmaNic::DoDispose()
{
    m_endpoint = nullptr;
    m_qps.clear();
    Object::DoDispose();
}

void
RdmaNic::Install(Ptr<FabricEndpoint> endpoint)
{
    m_endpoint = endpoint;
    endpoint->SetTransport(this);
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQueuePair(const ObjectFactory& factory, uint32_t remoteHost, uint32_t remoteQpn)
{
    const auto qpn = static_cast<uint32_t>(m_qps.size());
    NS_ABORT_MSG_IF(qpn >= (1u << 24), "RdmaNic: QP numbers are 24 bits");
    Ptr<RdmaQueuePair> qp = factory.Create<RdmaQueuePair>();
    m_qps.push_back(qp);
    ObjectFactory cc(m_ccType.GetName());
    Ptr<RdmaCongestionControl> control = cc.Create<RdmaCongestionControl>();
    control->SetFabricRtt(m_fabricRtt);
    qp->Setup(m_endpoint, qpn, remoteHost, remoteQpn, control);
    m_createdTrace(qp);
    return qp;
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePair(uint32_t qpn) const
{
    return qpn < m_qps.size() ? m_qps[qpn] : nullptr;
}

RdmaQpCounters
RdmaNic::GetTotals() const
{
    RdmaQpCounters t;
    for (std::size_t q = roce::kFirstDataQpn; q < m_qps.size(); ++q)
    {
        t += m_qps[q]->GetCounters();
    }
    return t;
}

void
RdmaNic::Deliver(const FrameInfo& info)
{
    // A frame for no QP of ours (or from another host than the QP's peer: a MessageSource's
    // flow id in the DestQP field) is not the transport's.
    if (info.destQp < roce::kFirstDataQpn || info.destQp >= m_qps.size() ||
        m_qps[info.destQp]->GetRemoteHost() != info.srcHost)
    {
        NS_LOG_LOGIC("host " << m_endpoint->GetHostId() << ": no QP " << info.destQp << " for host "
                             << info.srcHost);
        return;
    }
    m_qps[info.destQp]->Receive(info);
}

} // namespace ns3
