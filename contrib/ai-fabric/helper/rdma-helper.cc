#include "rdma-helper.h"

#include <stdexcept>
#include <string>

namespace ns3
{

RdmaHelper::RdmaHelper()
{
    m_nicFactory.SetTypeId(RdmaNic::GetTypeId());
    m_qpFactory.SetTypeId(RdmaQueuePair::GetTypeId());
}

void
RdmaHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
RdmaHelper::SetQueuePairAttribute(const std::string& name, const AttributeValue& value)
{
    m_qpFactory.Set(name, value);
}

void
RdmaHelper::Install(Ptr<FabricNetwork> network) const
{
    for (uint32_t h = 0; h < network->GetNEndpoints(); ++h)
    {
        if (!network->IsHostLocal(h))
        {
            continue; // another rank's host
        }
        Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
        network->GetHostNode(h)->AggregateObject(nic);
        nic->Install(network->GetEndpoint(h));
    }
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaHelper::Connect(Ptr<FabricNetwork> network, uint32_t a, uint32_t b) const
{
    const uint32_t hosts = network->GetNEndpoints();
    if (a >= hosts || b >= hosts || a == b)
    {
        throw std::invalid_argument("RDMA connection " + std::to_string(a) + " <-> " +
                                    std::to_string(b) + ": endpoints must differ and be < " +
                                    std::to_string(hosts));
    }
    Ptr<RdmaNic> nicA = network->GetHostNode(a)->GetObject<RdmaNic>();
    Ptr<RdmaNic> nicB = network->GetHostNode(b)->GetObject<RdmaNic>();
    if ((network->IsHostLocal(a) && !nicA) || (network->IsHostLocal(b) && !nicB))
    {
        throw std::invalid_argument("RdmaHelper::Connect before RdmaHelper::Install");
    }
    // Another rank's end is numbered as that rank numbers it; both ends start at the same PSN
    // (one factory).
    const uint32_t qpnB = nicB ? nicB->GetNextQpn() : network->TakeRemoteQpn(b);
    Ptr<RdmaQueuePair> qpA;
    uint32_t qpnA;
    if (nicA)
    {
        qpA = nicA->CreateQueuePair(m_qpFactory, b, qpnB);
        qpnA = qpA->GetLocalQpn();
    }
    else
    {
        qpnA = network->TakeRemoteQpn(a);
    }
    Ptr<RdmaQueuePair> qpB = nicB ? nicB->CreateQueuePair(m_qpFactory, a, qpnA) : nullptr;
    for (const auto& [qp, peer] : {std::pair{qpA, qpB}, std::pair{qpB, qpA}})
    {
        if (qp)
        {
            qp->SetExpectedPsn((peer ? peer : qp)->GetStartingPsn());
        }
    }
    return {qpA, qpB};
}

} // namespace ns3
