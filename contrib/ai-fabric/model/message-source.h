#ifndef AI_FABRIC_MESSAGE_SOURCE_H
#define AI_FABRIC_MESSAGE_SOURCE_H

#include "fabric-endpoint.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

namespace ns3
{


/**
 * \ingroup ai-fabric
 * \brief Sends one message of N bytes as MTU-sized RoCEv2 SEND frames at a given rate.
 *
 * The simple traffic source of the fabric (no acknowledgements or congestion control: the RDMA
 * transport is a separate model).  Like a NIC fetching work, it hands the port a frame only
 * when the port's queue for its class is empty, so a port paused by PFC stops the source too;
 * with a DataRate below line rate it also paces frames at that rate.  Frames carry the
 * message's flow id as BTH DestQP and consecutive PSNs, and use SEND_FIRST/MIDDLE/LAST (or
 * SEND_ONLY).  The MessageStarted trace gives the stats helper what
 * it needs to match deliveries to messages.
 */
class MessageSource : public Application, public PortWaiter
{
  public:
    static TypeId GetTypeId();
    MessageSource();

    uint32_t GetFlowId() const { return m_flowId; }

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void SendNext();
    /** The port took a frame: SendNext. */
    void PortDequeued() override;
    void SendWhenPortHasRoom();
    /** Send one frame; false once the message is all sent. */
    bool SendFrame();

    uint32_t m_destination{};
    uint64_t m_bytes{};
    DataRate m_rate;
    uint8_t m_priority{};
    uint32_t m_flowId{};
    uint16_t m_udpSrcPort{};
    uint32_t m_payloadSize{};

    Ptr<FabricEndpoint> m_endpoint;
    Ptr<FabricNetDevice> m_port;
    FabricEndpoint::Route m_route;
    uint64_t m_bitRate{0};
    uint32_t m_segment{0};
    uint64_t m_remaining{0};
    uint32_t m_psn{0};
    EventId m_sendEvent;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t> m_startedTrace;
};

} // namespace ns3

#endif
