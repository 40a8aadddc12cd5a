#include "rdma-helper.h"

#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
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
    if (m_flowLevel)
    {
        if (network->GetObject<FlowNetwork>())
        {
            return;
        }
        const FabricTopology& topo = network->GetTopology();
        std::vector<Ptr<FabricSwitch>> switches(topo.GetNNodes());
        std::vector<Ptr<FabricEndpoint>> endpoints(topo.GetNNodes());
        std::vector<Ptr<FabricChannel>> channels(topo.Links().size());
        for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
        {
            if (!network->IsLocal(n))
            {
                throw std::invalid_argument("the flow-level fabric runs in one process");
            }
            switches[n] = network->GetSwitch(n);
        }
        for (uint32_t e = 0; e < network->GetNEndpoints(); ++e)
        {
            endpoints[topo.HostNode(e)] = network->GetEndpoint(e);
        }
        for (uint32_t l = 0; l < channels.size(); ++l)
        {
            channels[l] = network->GetChannel(l);
        }
        Ptr<FlowNetwork> flows = CreateObject<FlowNetwork>();
        flows->Setup(topo, std::move(switches), std::move(endpoints), std::move(channels));
        flows->FollowRouting(network->GetRouting());
        network->AggregateObject(flows);
        Simulator::ScheduleDestroy(&FlowNetwork::ReleaseConnections, flows);
        return;
    }
    const Time fabricRtt = network->GetLargestBaseRtt(); // the same on every rank
    for (uint32_t h = 0; h < network->GetNEndpoints(); ++h)
    {
        if (!network->IsHostLocal(h))
        {
            continue; // another rank's host
        }
        Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
        network->GetHostNode(h)->AggregateObject(nic);
        nic->SetFabricRtt(fabricRtt);
        nic->Install(network->GetEndpoint(h));
    }
}

void
RdmaHelper::CheckEnds(Ptr<FabricNetwork> network, uint32_t a, uint32_t b)
{
    const uint32_t hosts = network->GetNEndpoints();
    if (a >= hosts || b >= hosts || a == b)
    {
        throw std::invalid_argument("RDMA connection " + std::to_string(a) + " <-> " +
                                    std::to_string(b) + ": endpoints must differ and be < " +
                                    std::to_string(hosts));
    }
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaHelper::Connect(Ptr<FabricNetwork> network, uint32_t a, uint32_t b) const
{
    CheckEnds(network, a, b);
    if (m_flowLevel)
    {
        throw std::invalid_argument("RdmaHelper::Connect at flow level (ConnectMessages)");
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

std::pair<Ptr<MessageQueuePair>, Ptr<MessageQueuePair>>
RdmaHelper::ConnectMessages(Ptr<FabricNetwork> network, uint32_t a, uint32_t b) const
{
    if (!m_flowLevel)
    {
        auto [qpA, qpB] = Connect(network, a, b);
        return {qpA, qpB};
    }
    CheckEnds(network, a, b);
    Ptr<FlowNetwork> flows = network->GetObject<FlowNetwork>();
    if (!flows)
    {
        throw std::invalid_argument("RdmaHelper::Connect before RdmaHelper::Install");
    }
    // The queue pairs' settings, as the packet-level ones would have them.
    Ptr<RdmaQueuePair> settings = m_qpFactory.Create<RdmaQueuePair>();
    UintegerValue ackInterval;
    UintegerValue udpSrcPort;
    UintegerValue retryCount;
    TimeValue rto;
    TimeValue rtoMax;
    EnumValue entropyMode;
    settings->GetAttribute("AckInterval", ackInterval);
    settings->GetAttribute("Entropy", entropyMode);
    settings->GetAttribute("UdpSourcePort", udpSrcPort);
    settings->GetAttribute("RetryCount", retryCount);
    settings->GetAttribute("RetransmissionTimeout", rto);
    settings->GetAttribute("RetransmissionTimeoutMax", rtoMax);
    // RdmaQueuePair's retry budget: it resends at each of RetryCount timeouts in a row, each
    // twice the last up to the cap, and fails at the next.
    FlowNetwork::RetryBudget budget;
    Time timeout = rto.Get();
    for (uint64_t i = 0; i <= retryCount.Get(); ++i)
    {
        budget.lastResend = budget.fail;
        budget.fail += timeout;
        timeout = std::min(2 * timeout, std::max(rtoMax.Get(), rto.Get()));
    }
    // B's number first, as Connect takes it.
    const uint32_t qpnB = network->TakeRemoteQpn(b);
    const uint32_t qpnA = network->TakeRemoteQpn(a);
    const auto entropy = [&](uint32_t host, uint32_t qpn) {
        return udpSrcPort.Get() != 0 ? static_cast<uint16_t>(udpSrcPort.Get())
                                     : roce::QueuePairEntropy(host, qpn);
    };
    const uint16_t portA = entropy(a, qpnA);
    const uint16_t portB = entropy(b, qpnB);
    const auto interval = static_cast<uint32_t>(ackInterval.Get());
    Ptr<FlowQueuePair> qpA = CreateObject<FlowQueuePair>();
    Ptr<FlowQueuePair> qpB = CreateObject<FlowQueuePair>();
    // A connection made while a failure leaves no route waits for one, and may give up.
    const bool sprayed = entropyMode.Get() != RdmaQueuePair::FIXED_ENTROPY;
    qpA->Setup(flows, flows->MakeRouteOrWait(a, b, portA, portB, interval, sprayed), budget);
    qpB->Setup(flows, flows->MakeRouteOrWait(b, a, portB, portA, interval, sprayed), budget);
    qpA->SetPeer(qpB);
    qpB->SetPeer(qpA);
    return {qpA, qpB};
}

} // namespace ns3
