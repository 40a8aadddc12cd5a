#ifndef AI_FABRIC_FLOW_QUEUE_PAIR_H
#define AI_FABRIC_FLOW_QUEUE_PAIR_H

#include "flow-network.h"
#include "message-queue-pair.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One end of a connection in the flow-level fabric: its messages, in order, are one
 * FlowNetwork flow.
 *
 * A message of B bytes is ceil(B / MTU) frames (one for 0 bytes), its wire bytes those
 * frames' with every header, ICRC, FCS, preamble and gap, as RdmaQueuePair sends them.  It is
 * sent at the flow's share once the messages before it are; its last frame reaches the peer
 * after the route's delay (the peer's receive callback), and its ACK returns after the route
 * back's (the completion callback), on the path the flow takes when it is sent.  The route is the one RdmaQueuePair's frames take: the
 * same UDP source port from the same host and queue-pair number.  On a route that is not
 * acknowledged (a message source's, MessageSourceHelper::ConnectFlowLevel) a message completes
 * when its last frame arrives, and there need be no peer.
 */
class FlowQueuePair : public MessageQueuePair
{
  public:
    static TypeId GetTypeId();
    FlowQueuePair();

    /**
     * Carry this end's messages as a flow of \p network on \p route (its frames of
     * route.payloadMtu whatever path it takes later).  With \p budget (a queue pair's retry
     * budget; fail 0: none), a flow without a path for that long fails the connection (its
     * messages never complete; the error callback is called): FlowNetwork::SetRetryBudget.
     */
    void Setup(Ptr<FlowNetwork> network, FlowNetwork::Route route,
               FlowNetwork::RetryBudget budget = FlowNetwork::RetryBudget());
    /** The other end: it receives what this end sends. */
    void SetPeer(Ptr<FlowQueuePair> peer) { m_peer = peer; }

    uint64_t PostSend(uint64_t bytes, CompletionCallback done = CompletionCallback()) override;
    void SetSendRateLimiter(Ptr<SendRateLimiter> limiter) override;
    /** Frames of a message of \p bytes on this end's route (one for 0 bytes). */
    uint64_t Frames(uint64_t bytes) const;
    /** Wire bytes of a message of \p bytes on this end's route. */
    uint64_t WireBytes(uint64_t bytes) const;
    /**
     * From the instant a message of \p bytes has left at its rate to its arrival at the
     * peer, on the route the flow takes now: the route's delay and its last frame's store and
     * forward.
     */
    Time GetArrivalLatency(uint64_t bytes) const;
    /** From its arrival to its ACK's, on the route back (zero when not acknowledged). */
    Time GetAckLatency() const;
    /** The flow-level fabric it is a flow of. */
    Ptr<FlowNetwork> GetNetwork() const { return m_network; }
    /** The route its flow takes now. */
    const FlowNetwork::Route& GetRoute() const { return m_network->GetRoute(m_flow); }

  protected:
    void DoDispose() override;

  private:
    struct Message
    {
        uint64_t id;
        uint64_t bytes;
        CompletionCallback done;
    };
    /** Payload of the last frame of a message of \p bytes (0 for 0 bytes: one empty frame). */
    uint32_t LastFramePayload(uint64_t bytes) const;
    /** The flow has sent the first message. */
    void Sent();
    /** Schedule \p m's arrival at the peer and its completion. */
    void Deliver(Message m);
    /** The peer's message of \p bytes has arrived whole. */
    void Arrived(uint64_t bytes);
    /** The oldest sent message is acknowledged. */
    void Acknowledged();
    /** The flow gave up: the connection fails. */
    void Failed();

    Ptr<FlowNetwork> m_network;
    uint32_t m_payloadMtu{0};
    uint32_t m_flow{0};
    Ptr<FlowQueuePair> m_peer;
    std::deque<Message> m_messages; //!< posted, not yet sent; the first is being sent
    std::deque<Message> m_unacked;  //!< sent, waiting for their ACK
    uint64_t m_nextId{0};
    Time m_lastArrival; //!< of the last message sent: the next arrives no sooner
    Time m_lastAck;     //!< of the last message sent: the next completes no sooner
};

} // namespace ns3

#endif
