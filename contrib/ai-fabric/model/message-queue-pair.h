#ifndef AI_FABRIC_MESSAGE_QUEUE_PAIR_H
#define AI_FABRIC_MESSAGE_QUEUE_PAIR_H

#include "send-rate-limiter.h"

#include "ns3/callback.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One end of a reliable connection that carries messages in order: what collectives,
 * training jobs and RDMA traffic post their transfers on.
 *
 * Two fidelities implement it: RdmaQueuePair sends every message as RoCEv2 frames over the
 * packet-level fabric; FlowQueuePair carries it as a flow of the flow-level model
 * (FlowNetwork).  Whoever posts messages sees the same interface and the same callbacks.
 */
class MessageQueuePair : public Object
{
  public:
    /** Called when a posted message is acknowledged: message id, bytes. */
    using CompletionCallback = Callback<void, uint64_t, uint64_t>;
    /** Called when the responder has accepted a whole message from the peer: its bytes. */
    using ReceiveCallback = Callback<void, uint64_t>;
    /** Called once when the connection fails. */
    using ErrorCallback = Callback<void>;

    static TypeId GetTypeId();

    /**
     * Queue a message of \p bytes (0 is allowed: one frame without payload, as an IBA
     * zero-length SEND); \p done is called when it is acknowledged.  Returns its id.
     */
    virtual uint64_t PostSend(uint64_t bytes, CompletionCallback done = CompletionCallback()) = 0;
    /**
     * Send no faster than \p limiter lets its queue pairs together: the rate at which the
     * sender produces data, as a GPU's CTA does; null: no limit.
     */
    virtual void SetSendRateLimiter(Ptr<SendRateLimiter> limiter) = 0;
    /** Call \p failed once if the connection fails. */
    void SetErrorCallback(ErrorCallback failed) { m_errorCallback = failed; }
    /** Call \p received for every message from the peer, in order, when it has all arrived. */
    void SetReceiveCallback(ReceiveCallback received) { m_receiveCallback = received; }
    /** Whether the connection failed (it then sends nothing more). */
    bool IsFailed() const { return m_failed; }

  protected:
    void DoDispose() override;

    ReceiveCallback m_receiveCallback; //!< the application's, for messages from the peer
    ErrorCallback m_errorCallback;     //!< the application's, for a failure
    bool m_failed{false};              //!< set once the connection has failed
};

} // namespace ns3

#endif
