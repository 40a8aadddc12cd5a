#include "fabric-endpoint.h"

#include "ecmp-hash.h"
#include "fabric-simulator-impl.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricEndpoint");
NS_OBJECT_ENSURE_REGISTERED(FabricEndpoint);

TypeId
FabricEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricEndpoint")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricEndpoint>()
            .AddAttribute(
                "EcmpSeed",
                "Seed of the hash choosing among equal-cost ports of a multi-port "
                "host.",
                UintegerValue(0),
                MakeUintegerAccessor(&FabricEndpoint::SetEcmpSeed, &FabricEndpoint::GetEcmpSeed),
                MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Deliver",
                            "A data frame addressed to this host arrived: its FrameInfo "
                            "(no packet: the port's Rx trace has one).",
                            MakeTraceSourceAccessor(&FabricEndpoint::m_deliverTrace),
                            "ns3::FabricEndpoint::DeliverTracedCallback");
    return tid;
}

FabricEndpoint::FabricEndpoint() = default;

void
FabricEndpoint::DoDispose()
{
    m_ports.clear();
    m_waiters.clear();
    m_transport = nullptr;
    Object::DoDispose();
}

void
FabricEndpoint::AddPort(Ptr<FabricNetDevice> port)
{
    NS_ABORT_MSG_IF(port->GetIfIndex() != m_ports.size(),
                    "FabricEndpoint ports must be the node's devices in order");
    m_ports.push_back(port);
    ++m_tableVersion; // routes chosen before may now pick another port
    m_waiters.emplace_back();
    port->SetOwner(this);
}

uint16_t
FabricEndpoint::HashEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const
{
    return hops.size() == 1 ? hops[0] : hops[FlowHash(info, m_seed) % hops.size()];
}

Ptr<FabricNetDevice>
FabricEndpoint::GetSmallestMtuPort() const
{
    Ptr<FabricNetDevice> smallest;
    for (const Ptr<FabricNetDevice>& port : m_ports)
    {
        if (!smallest || port->GetPayloadMtu() < smallest->GetPayloadMtu())
        {
            smallest = port;
        }
    }
    return smallest;
}

Ptr<FabricNetDevice>
FabricEndpoint::PortToward(uint32_t dstHost, uint16_t udpSrcPort) const
{
    const auto& hops = m_table.NextHops(dstHost);
    if (hops.empty())
    {
        return nullptr;
    }
    FrameInfo info;
    info.srcHost = m_hostId;
    info.dstHost = dstHost;
    info.udpSrcPort = udpSrcPort;
    return m_ports[HashEgress(hops, info)];
}

bool
FabricEndpoint::Send(DataFrameSpec spec)
{
    Route route;
    return Send(spec, route);
}

void
FabricEndpoint::Choose(Route& route, uint32_t dstHost, uint16_t udpSrcPort) const
{
    if (route.tableVersion != m_tableVersion || route.dstHost != dstHost ||
        route.udpSrcPort != udpSrcPort)
    {
        const Ptr<FabricNetDevice> port = PortToward(dstHost, udpSrcPort);
        route.tableVersion = m_tableVersion;
        route.dstHost = dstHost;
        route.udpSrcPort = udpSrcPort;
        route.port = PeekPointer(port);
    }
}

bool
FabricEndpoint::Send(DataFrameSpec spec, Route& route)
{
    Choose(route, spec.dstHost, spec.udpSrcPort);
    spec.srcHost = m_hostId;
    const FrameInfo info = roce::InfoOf(spec);
    if (!route.port)
    {
        NS_LOG_WARN("host " << m_hostId << " has no route to " << spec.dstHost);
        GetSmallestMtuPort()->RecordDrop(info, FabricNetDevice::Side::Out, DropReason::NoRoute);
        return false;
    }
    return route.port->Enqueue(info, 0);
}

void
FabricEndpoint::NotifyWhenPortDequeues(uint32_t port, PortWaiter* waiter)
{
    m_waiters[port].push_back(waiter);
}

void
FabricEndpoint::FrameDequeued(uint16_t port, uint16_t, uint8_t, uint32_t)
{
    auto& waiters = m_waiters[port];
    if (!waiters.empty())
    {
        PortWaiter* waiter = waiters.front();
        waiters.pop_front();
        waiter->PortDequeued();
    }
}

void
FabricEndpoint::SetTransport(FabricTransport* transport)
{
    NS_ABORT_MSG_IF(m_transport, "host " << m_hostId << " already has a transport");
    m_transport = transport;
}

void
FabricEndpoint::ReceiveFrame(FabricNetDevice* port, const FrameInfo& info)
{
    if (info.dstHost == m_hostId)
    {
        ++m_delivered;
        m_payloadDelivered += info.payloadBytes;
        m_lastDelivery = FabricNow();
        if (m_transport)
        {
            m_transport->Deliver(info);
        }
        m_deliverTrace(info);
        return;
    }
    if (!m_transit)
    {
        port->RecordDrop(info, FabricNetDevice::Side::In, DropReason::NoRoute);
        return;
    }
    const auto& hops = m_table.NextHops(info.dstHost);
    if (hops.empty())
    {
        port->RecordDrop(info, FabricNetDevice::Side::In, DropReason::NoRoute);
        return;
    }
    m_ports[HashEgress(hops, info)]->Enqueue(info, static_cast<uint16_t>(port->GetIfIndex()));
}

} // namespace ns3
