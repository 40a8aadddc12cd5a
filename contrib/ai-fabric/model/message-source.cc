#include "message-source.h"

#include "fabric-channel.h"
#include "fabric-endpoint.h"
#include "range-checkers.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MessageSource");
NS_OBJECT_ENSURE_REGISTERED(MessageSource);

TypeId
MessageSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MessageSource")
            .SetParent<Application>()
            .SetGroupName("AiFabric")
            .AddConstructor<MessageSource>()
            .AddAttribute("Destination",
                          "Host id of the receiver.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageSource::m_destination),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MessageBytes",
                          "Bytes of payload to send.",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&MessageSource::m_bytes),
                          MakeUintegerChecker<uint64_t>(1, kMaxByteCount))
            .AddAttribute("DataRate",
                          "Pacing rate on the wire (frames and their overheads); 0 means no "
                          "pacing: as fast as the egress port takes frames (its line rate).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&MessageSource::m_rate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("Priority",
                          "802.1Q PCP / traffic class of the frames.  Default 3, the class "
                          "RoCE deployments commonly make lossless.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&MessageSource::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("FlowId",
                          "Identifier of the message, carried as BTH DestQP (24 bits).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageSource::m_flowId),
                          MakeUintegerChecker<uint32_t>(0, (1u << 24) - 1))
            .AddAttribute("UdpSourcePort",
                          "UDP source port, the flow's ECMP entropy; 0 derives one from the "
                          "flow id in the dynamic range 49152-65535 (RFC 6335).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageSource::m_udpSrcPort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("PayloadSize",
                          "Payload bytes per frame; 0 means the egress port's PayloadMtu.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageSource::m_payloadSize),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("MessageStarted",
                            "The first frame is sent: flow id, source host, destination host, "
                            "message bytes.",
                            MakeTraceSourceAccessor(&MessageSource::m_startedTrace),
                            "ns3::MessageSource::StartedTracedCallback");
    return tid;
}

MessageSource::MessageSource() = default;

void
MessageSource::PortDequeued()
{
    SendNext();
}

void
MessageSource::DoDispose()
{
    m_endpoint = nullptr;
    m_port = nullptr;
    Application::DoDispose();
}

void
MessageSource::StartApplication()
{
    m_endpoint = GetNode()->GetObject<FabricEndpoint>();
    NS_ABORT_MSG_IF(!m_endpoint, "MessageSource needs a FabricEndpoint on its node");
    if (m_udpSrcPort == 0)
    {
        m_udpSrcPort = roce::EntropyPort(m_flowId);
    }
    m_port = m_endpoint->PortToward(m_destination, m_udpSrcPort);
    if (!m_port)
    {
        // A failure took every route: the frames are sent, and dropped as NoRoute, as they
        // would be on a dead link (the message is lost).
        NS_LOG_WARN("host " << m_endpoint->GetHostId() << " has no route to host "
                            << m_destination << " as its message starts");
        m_port = m_endpoint->GetSmallestMtuPort();
    }
    m_segment = m_payloadSize ? m_payloadSize : m_port->GetPayloadMtu();
    m_bitRate = m_rate.GetBitRate();
    m_remaining = m_bytes;
    m_psn = 0;
    m_startedTrace(m_flowId, m_endpoint->GetHostId(), m_destination, m_bytes);
    SendNext();
}

void
MessageSource::StopApplication()
{
    m_sendEvent.Cancel();
}

void
MessageSource::SendNext()
{
    while (SendFrame())
    {
        if (m_bitRate)
        {
            const uint32_t frame = m_segment + roce::kDataFrameOverheadBytes;
            m_sendEvent =
                Simulator::Schedule(PicoSeconds(roce::WirePicoSeconds(frame, m_bitRate)),
                                    &MessageSource::SendWhenPortHasRoom,
                                    this);
            return;
        }
        if (m_port->GetQueueBytes(m_priority) > 0)
        {
            SendWhenPortHasRoom();
            return;
        }
    }
}

void
MessageSource::SendWhenPortHasRoom()
{
    if (m_port->GetQueueBytes(m_priority) > 0)
    {
        m_endpoint->NotifyWhenPortDequeues(m_port->GetIfIndex(), this);
        return;
    }
    SendNext();
}

bool
MessageSource::SendFrame()
{
    const bool first = (m_remaining == m_bytes);
    const auto payload = static_cast<uint32_t>(std::min<uint64_t>(m_remaining, m_segment));
    m_remaining -= payload;
    const bool last = (m_remaining == 0);
    DataFrameSpec spec;
    spec.dstHost = m_destination;
    spec.udpSrcPort = m_udpSrcPort;
    spec.priority = m_priority;
    spec.destQp = m_flowId;
    spec.psn = m_psn++;
    spec.payloadBytes = payload;
    spec.opcode = roce::SendOpcode(first, last);
    m_endpoint->Send(spec, m_route);
    m_route.Follow(m_port);
    return !last;
}

} // namespace ns3
