#include "message-queue-pair.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MessageQueuePair");
NS_OBJECT_ENSURE_REGISTERED(MessageQueuePair);

TypeId
MessageQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MessageQueuePair").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

void
MessageQueuePair::DoDispose()
{
    m_receiveCallback = ReceiveCallback();
    m_errorCallback = ErrorCallback();
    Object::DoDispose();
}

} // namespace ns3
