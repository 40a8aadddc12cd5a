#include "fabric-network-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-frame.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
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
    m_controlPath = nullptr;
    Object::DoDispose();
}

Ptr<Node>
FabricNetwork::GetHostNode(uint32_t hostId) const
{
    return m_nodes.Get(m_topology.HostNode(hostId));
}

void
FabricNetwork::SetLinkUp(uint32_t linkId, bool up)
{
    if (m_channels.at(linkId))
    {
        m_channels[linkId]->SetUp(up);
    }
    else
    {
        m_routing->SetRemoteLinkUp(linkId, up);
    }
}

Ptr<FabricEndpoint>
FabricNetwork::GetEndpoint(uint32_t hostId) const
{
    return m_endpoints[m_topology.HostNode(hostId)];
}

Ptr<FabricNetDevice>
FabricNetwork::GetPort(uint32_t nodeId, uint32_t linkId) const
{
    if (!IsLocal(nodeId))
    {
        return nullptr;
    }
    return DynamicCast<FabricNetDevice>(
        m_nodes.Get(nodeId)->GetDevice(m_topology.PortOf(nodeId, linkId)));
}

Time
FabricNetwork::GetForwardingLatency(uint32_t nodeId) const
{
    const FabricTopology::Node& node = m_topology.GetNode(nodeId);
    if (IsLocal(nodeId) && !node.links.empty())
    {
        return GetPort(nodeId, node.links.front())->GetForwardingLatency();
    }
    switch (node.role)
    {
    case FabricTopology::Role::Host:
    case FabricTopology::Role::NvlsEngine:
        return Time(0);
    case FabricTopology::Role::NvSwitch:
        return m_nvSwitchLatency;
    default:
        return m_switchLatency;
    }
}

Time
FabricNetwork::GetLargestBaseRtt() const
{
    using Role = FabricTopology::Role;
    // Tiers by the upper end's role: host-leaf links (1), leaf-spine (2), spine-core (3).
    const auto tierOf = [](Role r) {
        return r == Role::Leaf ? 1 : r == Role::Spine ? 2 : r == Role::Core ? 3 : 0;
    };
    uint32_t mtu = 0;
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        for (uint32_t l : m_topology.GetNode(m_topology.HostNode(h)).links)
        {
            if (m_topology.GetLink(l).medium != FabricTopology::Medium::NvLink)
            {
                mtu = std::max(mtu, GetPayloadMtu(m_topology.HostNode(h), l));
            }
        }
    }
    const uint32_t data = mtu + roce::kDataFrameOverheadBytes;
    std::array<int64_t, 4> dataPs{}; // slowest link of each tier, per direction
    std::array<int64_t, 4> ackPs{};
    std::array<Time, 4> forwarding{}; // slowest switch of each tier
    int top = 0;
    for (const FabricTopology::Link& link : m_topology.Links())
    {
        if (link.medium == FabricTopology::Medium::NvLink)
        {
            continue;
        }
        const Role a = m_topology.GetNode(link.a).role;
        const Role b = m_topology.GetNode(link.b).role;
        const int tier = std::max(tierOf(a), tierOf(b));
        if (tier == 0 || (tierOf(a) != 0 && tierOf(b) != 0 && tierOf(a) == tierOf(b)))
        {
            continue;
        }
        const uint64_t rate = link.rate.GetBitRate();
        const int64_t delay = link.Delay().GetPicoSeconds();
        dataPs[tier] = std::max(dataPs[tier], delay + roce::WirePicoSeconds(data, rate));
        ackPs[tier] =
            std::max(ackPs[tier], delay + roce::WirePicoSeconds(roce::kAckFrameBytes, rate));
        const uint32_t sw = tierOf(a) == tier ? link.a : link.b;
        forwarding[tier] = Max(forwarding[tier], GetForwardingLatency(sw));
        top = std::max(top, tier);
    }
    // Up through tiers 1..top and down again: two links of each tier, the top switch once and
    // the others twice, for the data frame and its ACK alike.
    Time rtt;
    for (int t = 1; t <= top; ++t)
    {
        rtt += PicoSeconds(2 * (dataPs[t] + ackPs[t]));
        rtt += (t == top ? 2 : 4) * forwarding[t];
    }
    return rtt;
}

uint32_t
FabricNetwork::GetPayloadMtu(uint32_t nodeId, uint32_t linkId) const
{
    if (IsLocal(nodeId))
    {
        return GetPort(nodeId, linkId)->GetPayloadMtu();
    }
    const bool nvlink = m_topology.GetLink(linkId).medium == FabricTopology::Medium::NvLink;
    return nvlink ? m_nvLinkPayloadMtu : m_payloadMtu;
}

int64_t
FabricNetwork::AssignStreams(int64_t stream)
{
    // NVLS engines' links come last and are inside their switches (no errors, no failures):
    // they take no streams, so the other links' and later consumers' stay as they were.
    const auto nLinks = static_cast<int64_t>(m_topology.Links().size() - m_topology.Count(FabricTopology::Role::NvlsEngine));
    for (int64_t id = 0; id < nLinks; ++id)
    {
        const auto& link = m_topology.GetLink(id);
        for (int64_t end = 0; end < 2; ++end)
        {
            if (Ptr<FabricNetDevice> port = GetPort(end ? link.b : link.a, id))
            {
                port->AssignStreams(stream + 2 * id + end);
            }
        }
        if (m_channels[id])
        {
            m_channels[id]->AssignStreams(stream + 2 * nLinks + 2 * id);
        }
    }
    return 4 * nLinks;
}

FabricNetworkHelper::FabricNetworkHelper()
{
    m_switchFactory.SetTypeId(FabricSwitch::GetTypeId());
    m_nvSwitchFactory.SetTypeId(FabricSwitch::GetTypeId());
    // NVLink is no INT fabric: HPCC's telemetry covers the Ethernet switches.
    m_nvSwitchFactory.Set("Telemetry", BooleanValue(false));
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
FabricNetworkHelper::SetPartition(std::vector<uint32_t> rankOfNode, uint32_t localRank)
{
    m_rankOfNode = std::move(rankOfNode);
    m_localRank = localRank;
}

Ptr<FabricControlPath>
FabricNetworkHelper::MakeControlPath(const FabricNetwork& net) const
{
    const auto ranks = m_rankOfNode.empty()
                           ? 1
                           : *std::max_element(m_rankOfNode.begin(), m_rankOfNode.end()) + 1;
    if (ranks == 1)
    {
        return CreateObject<FabricControlPath>();
    }
    TypeId remote;
    if (!TypeId::LookupByNameFailSafe("ns3::FabricRemoteControlPath", &remote))
    {
        throw std::invalid_argument("a fabric split over MPI ranks needs ai-fabric built with "
                                    "ns-3's mpi module (ns-3 from source, configured with "
                                    "--enable-mpi)");
    }
    ObjectFactory factory(remote.GetName());
    Ptr<FabricControlPath> path = factory.Create<FabricControlPath>();
    const FabricTopology& topo = net.m_topology;
    std::vector<uint32_t> ports(topo.GetNNodes());
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        ports[n] = static_cast<uint32_t>(topo.GetNode(n).links.size());
    }
    // ns-3's DistributedSimulatorImpl gives each rank the shortest delay of its own links to
    // other ranks as lookahead, and a rank runs ahead by its own: a notice, which goes to every
    // rank, must outlast the longest of them.
    std::vector<Time> own(ranks, Time::Max());
    for (const auto& l : topo.Links())
    {
        const uint32_t a = m_rankOfNode[l.a];
        const uint32_t b = m_rankOfNode[l.b];
        if (a != b)
        {
            own[a] = std::min(own[a], l.Delay());
            own[b] = std::min(own[b], l.Delay());
        }
    }
    Time lookahead(0);
    for (const Time& t : own)
    {
        if (t == Time::Max())
        {
            throw std::invalid_argument("an MPI rank has no link to another rank: the fabric "
                                        "split this way is not connected");
        }
        lookahead = std::max(lookahead, t);
    }
    path->SetPartition(net.m_nodes, m_rankOfNode, ports, lookahead);
    return path;
}

void
FabricNetworkHelper::SetRoutingAttribute(const std::string& n, const AttributeValue& v)
{
    m_routingFactory.Set(n, v);
}

Ptr<FabricNetDevice>
FabricNetworkHelper::MakePort(const FabricTopology::Link& link, Mac48Address address) const
{
    const bool nvlink = link.medium == FabricTopology::Medium::NvLink;
    Ptr<FabricNetDevice> dev =
        (nvlink ? m_nvLinkDeviceFactory : m_deviceFactory).Create<FabricNetDevice>();
    dev->SetAddress(address);
    return dev;
}

Mac48Address
FabricNetworkHelper::PortAddress(uint32_t linkId, bool endB)
{
    // Locally administered unicast (02:...), numbered by port: the same in every rank.
    const uint64_t port = 2 * uint64_t(linkId) + (endB ? 1 : 0) + 1;
    uint8_t bytes[6] = {0x02, 0, 0, 0, 0, 0};
    for (int i = 0; i < 5; ++i)
    {
        bytes[5 - i] = static_cast<uint8_t>(port >> (8 * i));
    }
    Mac48Address address;
    address.CopyFrom(bytes);
    return address;
}

Time
FabricNetworkHelper::ForwardingLatencyOf(const ObjectFactory& switchFactory)
{
    TimeValue latency;
    switchFactory.Create<FabricSwitch>()->GetAttribute("ForwardingLatency", latency);
    return latency.Get();
}

uint32_t
FabricNetworkHelper::PayloadMtuOf(const ObjectFactory& deviceFactory)
{
    UintegerValue mtu;
    deviceFactory.Create<FabricNetDevice>()->GetAttribute("PayloadMtu", mtu);
    return static_cast<uint32_t>(mtu.Get());
}

uint32_t
FabricNetworkHelper::EcmpSeedBase() const
{
    if (m_seedBase)
    {
        return *m_seedBase;
    }
    // Knuth's multiplicative hashing constants spread consecutive seeds and runs over the
    // 32-bit space.
    return 0x9e3779b9u * RngSeedManager::GetSeed() +
           0x85ebca6bu * static_cast<uint32_t>(RngSeedManager::GetRun() - 1);
}

Ptr<FabricSwitch>
FabricNetworkHelper::MakeSwitch(const FabricTopology::Node& node, uint32_t id,
                                uint32_t seedBase) const
{
    const bool nv = node.role == FabricTopology::Role::NvSwitch;
    Ptr<FabricSwitch> sw = (nv ? m_nvSwitchFactory : m_switchFactory).Create<FabricSwitch>();
    sw->SetAttribute("EcmpSeed", UintegerValue(m_commonSeed ? seedBase : seedBase + id));
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
    NS_ABORT_MSG_IF(!m_rankOfNode.empty() && m_rankOfNode.size() != nNodes,
                    "FabricNetworkHelper: a partition of " << m_rankOfNode.size()
                                                           << " nodes for a fabric of " << nNodes);
    net->m_rankOfNode = m_rankOfNode;
    const uint32_t seedBase = EcmpSeedBase();
    net->m_localRank = m_localRank;
    net->m_remoteQps.assign(topo.GetNEndpoints(), roce::kFirstDataQpn); // above IBA's QP0 and QP1
    net->m_switchLatency = ForwardingLatencyOf(m_switchFactory);
    net->m_nvSwitchLatency = ForwardingLatencyOf(m_nvSwitchFactory);
    net->m_payloadMtu = PayloadMtuOf(m_deviceFactory);
    net->m_nvLinkPayloadMtu = PayloadMtuOf(m_nvLinkDeviceFactory);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        net->m_nodes.Add(CreateObject<Node>(net->GetRank(n)));
    }
    net->m_switches.resize(nNodes);
    net->m_endpoints.resize(nNodes);

    // Channels first, then each node's ports in port order (its links' order).
    ObjectFactory remoteChannelFactory;
    for (const auto& l : topo.Links())
    {
        const bool localA = net->IsLocal(l.a);
        const bool localB = net->IsLocal(l.b);
        Ptr<FabricChannel> ch;
        if (localA && localB)
        {
            ch = m_channelFactory.Create<FabricChannel>();
        }
        else if (localA || localB)
        {
            if (remoteChannelFactory.GetTypeId() == TypeId())
            {
                TypeId remote;
                if (!TypeId::LookupByNameFailSafe("ns3::FabricRemoteChannel", &remote))
                {
                    throw std::invalid_argument(
                        "a fabric split over MPI ranks needs ai-fabric built with ns-3's mpi "
                        "module (ns-3 from source, configured with --enable-mpi)");
                }
                remoteChannelFactory = m_channelFactory;
                remoteChannelFactory.SetTypeId(remote);
            }
            ch = remoteChannelFactory.Create<FabricChannel>();
        }
        if (ch)
        {
            ch->SetAttribute("DataRate", DataRateValue(l.rate));
            ch->SetAttribute("Delay", TimeValue(l.Delay()));
        }
        net->m_channels.push_back(ch);
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        if (!net->IsLocal(n))
        {
            continue;
        }
        const auto& node = topo.GetNode(n);
        Ptr<Node> ns3Node = net->m_nodes.Get(n);
        Ptr<FabricSwitch> sw;
        Ptr<FabricEndpoint> ep;
        if (node.role == FabricTopology::Role::Host || node.role == FabricTopology::Role::NvlsEngine)
        {
            ep = CreateObject<FabricEndpoint>();
            ep->SetHostId(topo.HostIdOf(n));
            ep->SetTransit(node.role == FabricTopology::Role::Host && topo.HostsAreTransit());
            ns3Node->AggregateObject(ep);
            net->m_endpoints[n] = ep;
        }
        else
        {
            sw = MakeSwitch(node, n, seedBase);
            ns3Node->AggregateObject(sw);
            net->m_switches[n] = sw;
        }
        for (uint32_t linkId : node.links)
        {
            const auto& link = topo.GetLink(linkId);
            Ptr<FabricNetDevice> dev = MakePort(link, PortAddress(linkId, link.b == n));
            ns3Node->AddDevice(dev);
            const uint32_t peer = link.a == n ? link.b : link.a;
            if (!net->IsLocal(peer))
            {
                // The far end's port lives in another rank: a stand-in, not on its node's device
                // list, tells the remote channel where frames go (node id, interface index) and
                // the far end's forwarding latency.
                Ptr<FabricNetDevice> farEnd = MakePort(link, PortAddress(linkId, link.b == peer));
                farEnd->SetNode(net->m_nodes.Get(peer));
                farEnd->SetIfIndex(topo.PortOf(peer, linkId));
                farEnd->SetForwardingLatency(net->GetForwardingLatency(peer));
                farEnd->Attach(net->m_channels[linkId]);
            }
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
            throw BufferSizeError(
                "switch " + node.name + ": BufferSize of " +
                std::to_string(mmu->GetBufferSize()) + " B cannot hold the " +
                std::to_string(mmu->GetCarvedBytes()) + " B of reserves (ReservePerQueue x " +
                std::to_string(sw->GetNPorts()) + " ports x 8 priorities) and PFC headroom its " +
                "ports need; allowed: more than " + std::to_string(mmu->GetCarvedBytes()) + " B");
        }
    }
    net->m_routing = m_routingFactory.Create<FabricRouting>();
    net->m_routing->Install(&net->m_topology, net->m_switches, net->m_endpoints, net->m_channels);
    net->m_controlPath = MakeControlPath(*net);
    return net;
}

} // namespace ns3
