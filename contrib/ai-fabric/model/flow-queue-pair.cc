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
FlowQueuePair::Setup(Ptr<FlowNetwork> network, FlowNetwork::Route route,
                     FlowNetwork::RetryBudget budget)
{
    m_network = network;
    m_payloadMtu = route.payloadMtu;
    const double payloadPerWireByte =
        static_cast<double>(m_payloadMtu) / roce::WireBytesForPayload(m_payloadMtu);
    m_flow = network->AddFlow(std::move(route),
                              payloadPerWireByte,
                              MakeCallback(&FlowQueuePair::Sent, this),
                              Ptr<Object>(this));
    if (budget.fail.IsStrictlyPositive())
    {
        network->SetRetryBudget(m_flow, budget, MakeCallback(&FlowQueuePair::Failed, this));
    }
}

void
FlowQueuePair::Failed()
{
    NS_LOG_INFO("flow " << m_flow << ": no path for the retry budget, failing "
                        << m_messages.size() << " messages");
    m_failed = true;
    m_messages.clear(); // never sent, never completed
    if (!m_errorCallback.IsNull())
    {
        m_errorCallback();
    }
}

uint32_t
FlowQueuePair::LastFramePayload(uint64_t bytes) const
{
    const uint64_t mtu = m_payloadMtu;
    return bytes == 0 ? 0 : static_cast<uint32_t>((bytes - 1) % mtu + 1);
}

uint64_t
FlowQueuePair::Frames(uint64_t bytes) const
{
    return bytes == 0 ? 1 : (bytes + m_payloadMtu - 1) / m_payloadMtu;
}

uint64_t
FlowQueuePair::WireBytes(uint64_t bytes) const
{
    const uint64_t fullFrames = (bytes - LastFramePayload(bytes)) / m_payloadMtu;
    return fullFrames * roce::WireBytesForPayload(m_payloadMtu) +
           roce::WireBytesForPayload(LastFramePayload(bytes));
}

uint64_t
FlowQueuePair::PostSend(uint64_t bytes, CompletionCallback done)
{
    const uint64_t id = m_nextId++;
    if (m_failed)
    {
        return id; // the error state sends nothing more
    }
    m_messages.push_back({id, bytes, done});
    if (m_messages.size() == 1)
    {
        m_network->Send(m_flow, static_cast<double>(WireBytes(bytes)), Frames(bytes));
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
    if (m_network->TakeLost(m_flow))
    {
        // Frames of it were lost with a link, and nothing resends them: it never arrives.
        NS_LOG_INFO("flow " << m_flow << ": message " << m.id << " lost frames");
    }
    else
    {
        Deliver(std::move(m));
    }
    if (!m_messages.empty())
    {
        const uint64_t next = m_messages.front().bytes;
        m_network->Send(m_flow, static_cast<double>(WireBytes(next)), Frames(next));
    }
}

Time
FlowQueuePair::GetArrivalLatency(uint64_t bytes) const
{
    const FlowNetwork::Route& route = m_network->GetRoute(m_flow);
    return route.dataDelay + SecondsToTime(roce::WireBytesForPayload(LastFramePayload(bytes)) *
                                           route.dataSecondsPerByte);
}

Time
FlowQueuePair::GetAckLatency() const
{
    const FlowNetwork::Route& route = m_network->GetRoute(m_flow);
    return route.acknowledged ? route.ackDelay + SecondsToTime(roce::WireBytesForFrame(
                                                                   roce::kAckFrameBytes) *
                                                               route.ackSecondsPerByte)
                              : Time();
}

void
FlowQueuePair::Deliver(Message m)
{
    const FlowNetwork::Route& route = m_network->GetRoute(m_flow);
    const Time arrival = GetArrivalLatency(m.bytes);
    // A message never overtakes the one before it (a shorter last frame would), as frames in
    // PSN order on one path cannot.
    const Time now = Simulator::Now();
    m_lastArrival = std::max(m_lastArrival, now + arrival);
    if (m_peer)
    {
        Simulator::Schedule(m_lastArrival - now, &FlowQueuePair::Arrived, m_peer, m.bytes);
    }
    if (route.acknowledged)
    {
        m_lastAck = std::max(m_lastAck, now + arrival + GetAckLatency());
    }
    else
    {
        m_lastAck = m_lastArrival; // complete once its last frame has arrived
    }
    Simulator::Schedule(m_lastAck - now, &FlowQueuePair::Acknowledged, Ptr<FlowQueuePair>(this));
    m_unacked.push_back(std::move(m));
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
