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
    for (uint32_t h = 0; h < network->GetNHosts(); ++h)
    {
        Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
        network->GetHostNode(h)->AggregateObject(nic);
        nic->Install(network->GetEndpoint(h));
    }
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaHelper::Connect(Ptr<FabricNetwork> network, uint32_t a, uint32_t b) const
{
    const uint32_t hosts = network->GetNHosts();
    if (a >= hosts || b >= hosts || a == b)
    {
        throw std::invalid_argument("RDMA connection " + std::to_string(a) + " <-> " +
                                    std::to_string(b) + ": hosts must differ and be < " +
                                    std::to_string(hosts));
    }
    Ptr<RdmaNic> nicA = network->GetHostNode(a)->GetObject<RdmaNic>();
    Ptr<RdmaNic> nicB = network->GetHostNode(b)->GetObject<RdmaNic>();
    if (!nicA || !nicB)
    {
        throw std::invalid_argument("RdmaHelper::Connect before RdmaHelper::Install");
    }
    Ptr<RdmaQueuePair> qpA = nicA->CreateQueuePair(m_qpFactory, b, nicB->GetNextQpn());
    Ptr<RdmaQueuePair> qpB = nicB->CreateQueuePair(m_qpFactory, a, qpA->GetLocalQpn());
    qpA->SetExpectedPsn(qpB->GetStartingPsn());
    qpB->SetExpectedPsn(qpA->GetStartingPsn());
    return {qpA, qpB};
}

} // namespace ns3
