#include "fabric-routing.h"

#include "fabric-channel.h"
#include "fabric-endpoint.h"
#include "fabric-switch.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRouting");
NS_OBJECT_ENSURE_REGISTERED(FabricRouting);

namespace
{
using Graph = boost::adjacency_list<boost::vecS,
                                    boost::vecS,
                                    boost::undirectedS,
                                    boost::no_property,
                                    boost::property<boost::edge_weight_t, uint32_t>>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();

/**
 * Shows the search every switch, the destination, and hosts only where hosts relay; an NVLS
 * engine never relays.
 */
struct VisibleNode
{
    const FabricTopology* topology{nullptr};
    Vertex destination{0};
    bool operator()(Vertex v) const
    {
        const FabricTopology::Role role = topology->GetNode(v).role;
        if (v == destination || role == FabricTopology::Role::NvlsEngine)
        {
            return v == destination;
        }
        return topology->HostsAreTransit() || role != FabricTopology::Role::Host;
    }
};

uint32_t
LinkCost(const FabricTopology::Link& l)
{
    return l.medium == FabricTopology::Medium::NvLink ? FabricRouting::kNvLinkCost
                                                      : FabricRouting::kEthernetCost;
}
} // namespace

TypeId
FabricRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricRouting")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricRouting>()
            .AddAttribute("ConvergenceDelay",
                          "Time from a link changing state to every table reflecting it: "
                          "detection (BFD: 3 x 10-50 ms intervals, RFC 5880) plus route "
                          "computation and FIB update.  Default 50 ms.",
                          TimeValue(MilliSeconds(50)),
                          MakeTimeAccessor(&FabricRouting::m_convergenceDelay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Recomputed",
                            "Forwarding tables were recomputed and installed.",
                            MakeTraceSourceAccessor(&FabricRouting::m_recomputedTrace),
                            "ns3::TracedCallback::Void");
    return tid;
}

FabricRouting::FabricRouting() = default;

void
FabricRouting::DoDispose()
{
    m_switches.clear();
    m_endpoints.clear();
    m_channels.clear();
    Object::DoDispose();
}

std::vector<ForwardingTable>
FabricRouting::ComputeTables(const FabricTopology& topo, const std::vector<bool>& linkUp)
{
    const uint32_t nNodes = topo.GetNNodes();
    const uint32_t nHosts = topo.GetNEndpoints();
    Graph g(nNodes);
    for (uint32_t i = 0; i < topo.Links().size(); ++i)
    {
        if (linkUp[i])
        {
            const auto& l = topo.GetLink(i);
            boost::add_edge(l.a, l.b, LinkCost(l), g);
        }
    }
    std::vector<ForwardingTable> tables(nNodes, ForwardingTable(nHosts));
    std::vector<uint32_t> dist(nNodes);
    ForwardingTable::PortSet ports;
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const Vertex d = topo.HostNode(h);
        VisibleNode visible{&topo, d};
        boost::filtered_graph<Graph, boost::keep_all, VisibleNode> view(g, boost::keep_all(), visible);
        std::fill(dist.begin(), dist.end(), kUnreachable);
        boost::dijkstra_shortest_paths(
            view,
            d,
            boost::distance_map(boost::make_iterator_property_map(dist.begin(),
                                                                  boost::get(boost::vertex_index, g)))
                .distance_inf(kUnreachable));
        for (uint32_t s = 0; s < nNodes; ++s)
        {
            if (s == d)
            {
                continue;
            }
            // Next hops: every port whose neighbour is visible and on a shortest path.
            const auto& links = topo.GetNode(s).links;
            uint64_t best = kUnreachable;
            ports.clear();
            for (uint32_t port = 0; port < links.size(); ++port)
            {
                const auto& l = topo.GetLink(links[port]);
                const uint32_t n = (l.a == s) ? l.b : l.a;
                if (!linkUp[links[port]] || dist[n] == kUnreachable)
                {
                    continue;
                }
                const uint64_t cost = uint64_t(dist[n]) + LinkCost(l);
                if (cost < best)
                {
                    best = cost;
                    ports.clear();
                }
                if (cost == best)
                {
                    ports.push_back(static_cast<uint16_t>(port));
                }
            }
            if (!ports.empty())
            {
                tables[s].SetNextHops(h, ports);
            }
        }
    }
    return tables;
}

void
FabricRouting::Install(const FabricTopology* topology,
                       const std::vector<Ptr<FabricSwitch>>& switches,
                       const std::vector<Ptr<FabricEndpoint>>& endpoints,
                       const std::vector<Ptr<FabricChannel>>& channels)
{
    m_topology = topology;
    m_switches = switches;
    m_endpoints = endpoints;
    m_channels = channels;
    m_remoteDownHolds.assign(channels.size(), 0);
    for (const auto& ch : m_channels)
    {
        if (!ch)
        {
            continue; // another rank's link (a distributed run)
        }
        ch->TraceConnectWithoutContext("LinkState",
                                       MakeCallback(&FabricRouting::LinkStateChanged, this));
    }
    Recompute();
}

void
FabricRouting::SetRemoteLinkUp(uint32_t linkId, bool up)
{
    NS_ABORT_MSG_IF(m_channels.at(linkId), "FabricRouting: link " << linkId << " has a channel here");
    uint32_t& holds = m_remoteDownHolds[linkId];
    if (up ? holds == 0 || --holds > 0 : holds++ > 0)
    {
        return; // no change of state
    }
    LinkStateChanged(up);
}

void
FabricRouting::LinkStateChanged(bool up)
{
    // One recomputation covers every change seen before it runs.
    if (!m_pending.IsRunning())
    {
        m_pending = Simulator::Schedule(m_convergenceDelay, &FabricRouting::Recompute, this);
    }
}

void
FabricRouting::Recompute()
{
    std::vector<bool> up(m_channels.size());
    for (std::size_t i = 0; i < m_channels.size(); ++i)
    {
        up[i] = m_channels[i] ? m_channels[i]->IsUp() : m_remoteDownHolds[i] == 0;
    }
    std::vector<ForwardingTable> tables = ComputeTables(*m_topology, up);
    for (uint32_t n = 0; n < tables.size(); ++n)
    {
        if (m_switches[n])
        {
            m_switches[n]->SetForwardingTable(std::move(tables[n]));
        }
        else if (m_endpoints[n])
        {
            m_endpoints[n]->SetForwardingTable(std::move(tables[n]));
        }
    }
    ++m_recomputations;
    NS_LOG_INFO("routing recomputed (" << m_recomputations << ") at "
                                       << Simulator::Now().As(Time::US));
    m_recomputedTrace();
}

} // namespace ns3
