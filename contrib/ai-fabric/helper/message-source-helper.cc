#include "message-source-helper.h"

#include "ns3/data-rate.h"
#include "ns3/flow-network.h"
#include "ns3/flow-queue-pair.h"
#include "ns3/roce-frame.h"
#include "ns3/uinteger.h"

#include <cmath>

#include <stdexcept>
#include <string>

namespace ns3
{

MessageSourceHelper::MessageSourceHelper()
{
    m_factory.SetTypeId(MessageSource::GetTypeId());
}

void
MessageSourceHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

namespace
{
/** Throws std::invalid_argument unless \p src and \p dst are different hosts of \p network. */
void
CheckHosts(const Ptr<FabricNetwork>& network, uint32_t src, uint32_t dst)
{
    const uint32_t hosts = network->GetNHosts();
    if (src >= hosts || dst >= hosts || src == dst)
    {
        throw std::invalid_argument("message " + std::to_string(src) + " -> " +
                                    std::to_string(dst) + ": hosts must differ and be < " +
                                    std::to_string(hosts));
    }
}
} // namespace

Ptr<MessageSource>
MessageSourceHelper::Install(Ptr<FabricNetwork> network, uint32_t src, uint32_t dst,
                             uint64_t bytes, Time start)
{
    CheckHosts(network, src, dst);
    if (bytes == 0)
    {
        throw std::invalid_argument("message bytes = 0: must be > 0");
    }
    const uint32_t flowId = m_nextFlowId++;
    m_messages.push_back({flowId, src, dst, bytes});
    if (!network->IsHostLocal(src))
    {
        return nullptr; // another rank's host sends it
    }
    Ptr<MessageSource> app = m_factory.Create<MessageSource>();
    app->SetAttribute("Destination", UintegerValue(dst));
    app->SetAttribute("MessageBytes", UintegerValue(bytes));
    app->SetAttribute("FlowId", UintegerValue(flowId));
    app->SetStartTime(start);
    network->GetHostNode(src)->AddApplication(app);
    m_sources.Add(app);
    return app;
}

Ptr<MessageQueuePair>
MessageSourceHelper::ConnectFlowLevel(Ptr<FabricNetwork> network, uint32_t src, uint32_t dst)
{
    CheckHosts(network, src, dst);
    Ptr<FlowNetwork> flows = network->GetObject<FlowNetwork>();
    if (!flows)
    {
        throw std::invalid_argument("MessageSourceHelper::ConnectFlowLevel: the network has no "
                                    "flow-level fabric (RdmaHelper::SetFlowLevel, then Install)");
    }
    // The source's settings, as the packet-level one would have them.
    Ptr<MessageSource> settings = m_factory.Create<MessageSource>();
    UintegerValue udpSrcPort;
    UintegerValue payloadSize;
    DataRateValue rate;
    settings->GetAttribute("UdpSourcePort", udpSrcPort);
    settings->GetAttribute("PayloadSize", payloadSize);
    settings->GetAttribute("DataRate", rate);
    const uint32_t flowId = m_nextFlowId++;
    const auto entropy = udpSrcPort.Get() != 0 ? static_cast<uint16_t>(udpSrcPort.Get())
                                               : roce::EntropyPort(flowId);
    FlowNetwork::Route route = flows->MakeRouteOrWait(src, dst, entropy, 0, 0, false);
    if (payloadSize.Get() != 0)
    {
        route.payloadMtu = static_cast<uint32_t>(payloadSize.Get());
    }
    const uint32_t segment = route.payloadMtu;
    Ptr<FlowQueuePair> qp = CreateObject<FlowQueuePair>();
    qp->Setup(flows, std::move(route));
    if (rate.Get().GetBitRate() != 0)
    {
        // MessageSource paces a frame per its wire time at DataRate: in payload, the rate
        // times the share of payload in a frame's wire bytes.
        const double payloadShare =
            static_cast<double>(segment) / roce::WireBytesForPayload(segment);
        qp->SetSendRateLimiter(Create<SendRateLimiter>(DataRate(static_cast<uint64_t>(
            std::llround(static_cast<double>(rate.Get().GetBitRate()) * payloadShare)))));
    }
    return qp;
}

} // namespace ns3
