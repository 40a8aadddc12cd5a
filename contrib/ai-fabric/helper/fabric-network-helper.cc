#include "fabric-network-helper.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetworkHelper");
NS_OBJECT_ENSURE_REGISTERED(FabricNetwork);

TypeId
FabricNetwork::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricNetwork").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

void
FabricNetwork::DoDispose()
{
    m_switches.clear();
    m_endpoints.clear();
    m_channels.clear();
    m_routing = nullptr;
    Object::DoDispose();
}

Ptr<Node>
FabricNetwork::GetHostNode(uint32_t hostId) const
{
    return m_nodes.Get(m_topology.HostNode(hostId));
}

Ptr<FabricEndpoint>
FabricNetwork::GetEndpoint(uint32_t hostId) const
{
    return m_endpoints[m_topology.HostNode(hostId)];
}

Ptr<FabricNetDevice>
FabricNetwork::GetPort(uint32_t nodeId, uint32_t linkId) const
{
    return DynamicCast<FabricNetDevice>(
        m_nodes.Get(nodeId)->GetDevice(m_topology.PortOf(nodeId, linkId)));
}

int64_t
FabricNetwork::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (uint32_t n = 0; n < m_nodes.GetN(); ++n)
    {
        Ptr<Node> node = m_nodes.Get(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            used += DynamicCast<FabricNetDevice>(node->GetDevice(d))->AssignStreams(stream + used);
        }
    }
    for (const auto& ch : m_channels)
    {
        used += ch->AssignStreams(stream + used);
    }
    return used;
}

FabricNetworkHelper::FabricNetworkHelper()
{
    m_switchFactory.SetTypeId(FabricSwitch::GetTypeId());
    m_nvSwitchFactory.SetTypeId(FabricSwitch::GetTypeId());
    m_mmuFactory.SetTypeId(SharedBufferMmu::GetTypeId());
    m_deviceFactory.SetTypeId(FabricNetDevice::GetTypeId());
    m_nvLinkDeviceFactory.SetTypeId(FabricNetDevice::GetTypeId());
    // Intra-server transfers move in 64 KiB segments so NVLink-class bandwidth does not flood
    // the event queue; timing per segment stays exact (serialization + latency).
    m_nvLinkDeviceFactory.Set("PayloadMtu", UintegerValue(65536));
    m_channelFactory.SetTypeId(FabricChannel::GetTypeId());
    m_routingFactory.SetTypeId(FabricRouting::GetTypeId());
}

void
FabricNetworkHelper::SetSwitchAttribute(const std::string& n, const AttributeValue& v)
{
    m_switchFactory.Set(n, v);
}

void
FabricNetworkHelper::SetNvSwitchAttribute(const std::string& n, const AttributeValue& v)
{
    m_nvSwitchFactory.Set(n, v);
}

void
FabricNetworkHelper::SetMmuAttribute(const std::string& n, const AttributeValue& v)
{
    m_mmuFactory.Set(n, v);
}

void
FabricNetworkHelper::SetDeviceAttribute(const std::string& n, const AttributeValue& v)
{
    m_deviceFactory.Set(n, v);
    if (n != "PayloadMtu")
    {
        m_nvLinkDeviceFactory.Set(n, v);
    }
}

void
FabricNetworkHelper::SetNvLinkDeviceAttribute(const std::string& n, const AttributeValue& v)
{
    m_nvLinkDeviceFactory.Set(n, v);
}

void
FabricNetworkHelper::SetRoutingAttribute(const std::string& n, const AttributeValue& v)
{
    m_routingFactory.Set(n, v);
}

Ptr<FabricSwitch>
FabricNetworkHelper::MakeSwitch(const FabricTopology::Node& node, uint32_t id) const
{
    const bool nv = node.role == FabricTopology::Role::NvSwitch;
    Ptr<FabricSwitch> sw = (nv ? m_nvSwitchFactory : m_switchFactory).Create<FabricSwitch>();
    sw->SetAttribute("EcmpSeed", UintegerValue(m_commonSeed ? m_seedBase : m_seedBase + id));
    sw->SetMmu(m_mmuFactory.Create<SharedBufferMmu>());
    return sw;
}

Ptr<FabricNetwork>
FabricNetworkHelper::Install(const FabricTopology& topology) const
{
    NS_ABORT_MSG_IF(Time::GetResolution() > Time::PS,
                    "ai-fabric needs Time::SetResolution(Time::PS) (or finer) before the "
                    "simulation is built: frame times at 400G are fractions of a nanosecond");
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->m_topology = topology;
    const FabricTopology& topo = net->m_topology;
    const uint32_t nNodes = topo.GetNNodes();
    net->m_nodes.Create(nNodes);
    net->m_switches.resize(nNodes);
    net->m_endpoints.resize(nNodes);

    // Channels first, then each node's ports in port order (its links' order).
    for (const auto& l : topo.Links())
    {
        Ptr<FabricChannel> ch = m_channelFactory.Create<FabricChannel>();
        ch->SetAttribute("DataRate", DataRateValue(l.rate));
        ch->SetAttribute("Delay", TimeValue(l.Delay()));
        net->m_channels.push_back(ch);
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        const auto& node = topo.GetNode(n);
        Ptr<Node> ns3Node = net->m_nodes.Get(n);
        Ptr<FabricSwitch> sw;
        Ptr<FabricEndpoint> ep;
        if (node.role == FabricTopology::Role::Host)
        {
            ep = CreateObject<FabricEndpoint>();
            ep->SetHostId(topo.HostIdOf(n));
            ep->SetTransit(topo.HostsAreTransit());
            ns3Node->AggregateObject(ep);
            net->m_endpoints[n] = ep;
        }
        else
        {
            sw = MakeSwitch(node, n);
            ns3Node->AggregateObject(sw);
            net->m_switches[n] = sw;
        }
        for (uint32_t linkId : node.links)
        {
            const bool nvlink = topo.GetLink(linkId).medium == FabricTopology::Medium::NvLink;
            Ptr<FabricNetDevice> dev =
                (nvlink ? m_nvLinkDeviceFactory : m_deviceFactory).Create<FabricNetDevice>();
            ns3Node->AddDevice(dev);
            dev->Attach(net->m_channels[linkId]);
            if (sw)
            {
                sw->AddPort(dev);
            }
            else
            {
                ep->AddPort(dev);
            }
        }
        if (sw && !sw->Finalize())
        {
            Ptr<SharedBufferMmu> mmu = sw->GetMmu();
            throw std::invalid_argument(
                "switch " + node.name + ": BufferSize of " +
                std::to_string(mmu->GetBufferSize()) + " B cannot hold the " +
                std::to_string(mmu->GetCarvedBytes()) + " B of reserves (ReservePerQueue x " +
                std::to_string(sw->GetNPorts()) + " ports x 8 priorities) and PFC headroom its " +
                "ports need; allowed: more than " + std::to_string(mmu->GetCarvedBytes()) + " B");
        }
    }
    net->m_routing = m_routingFactory.Create<FabricRouting>();
    net->m_routing->Install(&net->m_topology, net->m_switches, net->m_endpoints, net->m_channels);
    return net;
}

} // namespace ns3
