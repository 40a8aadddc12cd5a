#include "message-source-helper.h"

#include "ns3/uinteger.h"

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

Ptr<MessageSource>
MessageSourceHelper::Install(Ptr<FabricNetwork> network, uint32_t src, uint32_t dst,
                             uint64_t bytes, Time start)
{
    const uint32_t hosts = network->GetNHosts();
    if (src >= hosts || dst >= hosts || src == dst)
    {
        throw std::invalid_argument("message " + std::to_string(src) + " -> " +
                                    std::to_string(dst) + ": hosts must differ and be < " +
                                    std::to_string(hosts));
    }
    if (bytes == 0)
    {
        throw std::invalid_argument("message bytes = 0: must be > 0");
    }
    Ptr<MessageSource> app = m_factory.Create<MessageSource>();
    app->SetAttribute("Destination", UintegerValue(dst));
    app->SetAttribute("MessageBytes", UintegerValue(bytes));
    app->SetAttribute("FlowId", UintegerValue(m_nextFlowId++));
    app->SetStartTime(start);
    network->GetHostNode(src)->AddApplication(app);
    m_sources.Add(app);
    return app;
}

} // namespace ns3
