#include "flow-queue-pair.h"

#include "roce-frame.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowQueuePair");
NS_OBJECT_ENSURE_REGISTERED(FlowQueuePair);

namespace
{
Time
SecondsToTime(double seconds)
{
    return PicoSeconds(static_cast<int64_t>(std::llround(seconds * 1e12)));
}
} // namespace

TypeId
FlowQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowQueuePair")
                            .SetParent<MessageQueuePair>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FlowQueuePair>();
    return tid;
}

FlowQueuePair::FlowQueuePair() = default;

void
FlowQueuePair::DoDispose()
{
    m_network = nullptr;
    m_peer = nullptr;
    m_messages.clear();
    m_unacked.clear();
    MessageQueuePair::DoDispose();
}

void
FlowQueuePair::Setup(Ptr<FlowNetwork> network, FlowNetwork::Route route)
{
    m_network = network;
    m_route = route;
    const double payloadPerWireByte =
        static_cast<double>(route.payloadMtu) / roce::WireBytesForPayload(route.payloadMtu);
    m_flow = network->AddFlow(std::move(route),
                              payloadPerWireByte,
                              MakeCallback(&FlowQueuePair::Sent, this),
                              Ptr<Object>(this));
}

uint32_t
FlowQueuePair::LastFramePayload(uint64_t bytes) const
{
    const uint64_t mtu = m_route.payloadMtu;
    return bytes == 0 ? 0 : static_cast<uint32_t>((bytes - 1) % mtu + 1);
}

uint64_t
FlowQueuePair::WireBytes(uint64_t bytes) const
{
    const uint64_t fullFrames = (bytes - LastFramePayload(bytes)) / m_route.payloadMtu;
    return fullFrames * roce::WireBytesForPayload(m_route.payloadMtu) +
           roce::WireBytesForPayload(LastFramePayload(bytes));
}

uint64_t
FlowQueuePair::PostSend(uint64_t bytes, CompletionCallback done)
{
    const uint64_t id = m_nextId++;
    m_messages.push_back({id, bytes, done});
    if (m_messages.size() == 1)
    {
        m_network->Send(m_flow, static_cast<double>(WireBytes(bytes)));
    }
    return id;
}

void
FlowQueuePair::SetSendRateLimiter(Ptr<SendRateLimiter> limiter)
{
    m_network->SetLimiter(m_flow, limiter);
}

void
FlowQueuePair::Sent()
{
    Message m = std::move(m_messages.front());
    m_messages.pop_front();
    const Time arrival = m_route.dataDelay +
                         SecondsToTime(roce::WireBytesForPayload(LastFramePayload(m.bytes)) *
                                       m_route.dataSecondsPerByte);
    const Time ack =
        arrival + m_route.ackDelay +
        SecondsToTime(roce::WireBytesForFrame(roce::kAckFrameBytes) * m_route.ackSecondsPerByte);
    // A message never overtakes the one before it (a shorter last frame would), as frames in
    // PSN order on one path cannot.
    const Time now = Simulator::Now();
    m_lastArrival = std::max(m_lastArrival, now + arrival);
    m_lastAck = std::max(m_lastAck, now + ack);
    Simulator::Schedule(m_lastArrival - now, &FlowQueuePair::Arrived, m_peer, m.bytes);
    Simulator::Schedule(m_lastAck - now, &FlowQueuePair::Acknowledged, Ptr<FlowQueuePair>(this));
    m_unacked.push_back(std::move(m));
    if (!m_messages.empty())
    {
        m_network->Send(m_flow, static_cast<double>(WireBytes(m_messages.front().bytes)));
    }
}

void
FlowQueuePair::Arrived(uint64_t bytes)
{
    if (!m_receiveCallback.IsNull())
    {
        m_receiveCallback(bytes);
    }
}

void
FlowQueuePair::Acknowledged()
{
    if (m_unacked.empty())
    {
        return; // disposed since
    }
    Message m = std::move(m_unacked.front());
    m_unacked.pop_front();
    if (!m.done.IsNull())
    {
        m.done(m.id, m.bytes);
    }
}

} // namespace ns3
