#include "flow-network.h"

#include "roce-frame.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

namespace
{
/** Add \p weight of \p resource to \p uses. */
void
AddUse(std::vector<FlowNetwork::Use>& uses, uint32_t resource, double weight)
{
    for (auto& u : uses)
    {
        if (u.resource == resource)
        {
            u.weight += weight;
            return;
        }
    }
    uses.push_back({resource, weight});
}
} // namespace

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowNetwork")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FlowNetwork>();
    return tid;
}

FlowNetwork::FlowNetwork() = default;

void
FlowNetwork::ReleaseConnections()
{
    m_recompute.Cancel();
    m_next.Cancel();
    std::vector<Flow> flows;
    flows.swap(m_flows);
    for (Flow& f : flows)
    {
        f.giveUp.Cancel();
        if (f.owner)
        {
            f.owner->Dispose();
        }
    }
    m_on.assign(m_capacity.size(), {});
    m_stamp.assign(m_capacity.size(), 0);
    m_limiters.clear();
    m_limiterResource.clear();
    m_freeLimiters.clear();
    m_dirty.clear();
    m_due = {};
}

void
FlowNetwork::DoDispose()
{
    ReleaseConnections();
    m_switches.clear();
    m_endpoints.clear();
    m_channels.clear();
    Object::DoDispose();
}

void
FlowNetwork::Setup(const FabricTopology& topology, std::vector<Ptr<FabricSwitch>> switches,
                   std::vector<Ptr<FabricEndpoint>> endpoints,
                   std::vector<Ptr<FabricChannel>> channels)
{
    m_topology = &topology;
    m_switches = std::move(switches);
    m_endpoints = std::move(endpoints);
    m_channels = std::move(channels);
    m_capacity.assign(2 * m_channels.size() + 1, 0.0);
    m_noPath = static_cast<uint32_t>(2 * m_channels.size()); // stays 0
    for (std::size_t l = 0; l < m_channels.size(); ++l)
    {
        const double bytesPerSecond = m_channels[l]->GetDataRate().GetBitRate() / 8.0;
        m_capacity[2 * l] = m_capacity[2 * l + 1] = bytesPerSecond;
    }
    m_on.assign(m_capacity.size(), {});
    m_stamp.assign(m_capacity.size(), 0);
    for (std::size_t l = 0; l < m_channels.size(); ++l)
    {
        m_channels[l]->TraceConnectWithoutContext(
            "LinkState",
            MakeCallback(&FlowNetwork::LinkStateChanged, this).Bind(static_cast<uint32_t>(l)));
        m_channels[l]->TraceConnectWithoutContext(
            "Rate",
            MakeCallback(&FlowNetwork::LinkRateChanged, this).Bind(static_cast<uint32_t>(l)));
    }
}

void
FlowNetwork::FollowRouting(Ptr<FabricRouting> routing)
{
    routing->TraceConnectWithoutContext("Recomputed", MakeCallback(&FlowNetwork::Retrace, this));
}

void
FlowNetwork::LinkStateChanged(uint32_t link, bool up)
{
    if (m_channels.empty())
    {
        return; // disposed
    }
    const double bytesPerSecond = up ? m_channels[link]->GetDataRate().GetBitRate() / 8.0 : 0.0;
    for (uint32_t r : {2 * link, 2 * link + 1})
    {
        m_capacity[r] = bytesPerSecond;
        m_dirty.push_back(r);
    }
    if (!up)
    {
        // A message source on it loses its message (Join marks it) and goes on sending into
        // the dead link, no longer held by it.
        std::vector<uint32_t> drain;
        for (uint32_t r : {2 * link, 2 * link + 1})
        {
            for (uint32_t flow : m_on[r])
            {
                if (!m_flows[flow].route.acknowledged)
                {
                    drain.push_back(flow);
                }
            }
        }
        for (uint32_t flow : drain)
        {
            Rejoin(flow);
        }
    }
    NS_LOG_INFO("link " << link << (up ? " up" : " down"));
    RequestRecompute();
}

void
FlowNetwork::LinkRateChanged(uint32_t link, DataRate rate)
{
    if (m_channels.empty() || !m_channels[link]->IsUp())
    {
        return; // no capacity until it comes up, at the rate it has then
    }
    for (uint32_t r : {2 * link, 2 * link + 1})
    {
        m_capacity[r] = rate.GetBitRate() / 8.0;
        m_dirty.push_back(r);
    }
    RequestRecompute();
}

void
FlowNetwork::Retrace()
{
    if (m_channels.empty())
    {
        return; // disposed
    }
    for (uint32_t flow = 0; flow < m_flows.size(); ++flow)
    {
        Flow& f = m_flows[flow];
        const Route& old = f.route;
        // No path: it waits for one (not on its old one, which may come back before the
        // tables do).
        Route route = MakeRouteOrWait(old.src,
                                      old.dst,
                                      old.entropy,
                                      old.peerEntropy,
                                      old.ackInterval,
                                      old.sprayed);
        route.payloadMtu = old.payloadMtu; // the queue pair's, set when it was connected
        const bool moved =
            route.uses.size() != old.uses.size() ||
            !std::equal(route.uses.begin(), route.uses.end(), old.uses.begin(),
                        [](const Use& a, const Use& b) {
                            return a.resource == b.resource && a.weight == b.weight;
                        });
        if (!moved)
        {
            f.route = std::move(route); // the same links (delays too)
            continue;
        }
        if (!f.active)
        {
            f.route = std::move(route);
            continue;
        }
        f.route = std::move(route);
        Rejoin(flow);
    }
    RequestRecompute();
}

void
FlowNetwork::Rejoin(uint32_t flow)
{
    // As SetLimiter: it keeps its rate until the recompute this instant.
    Flow& f = m_flows[flow];
    const double rate = f.rate;
    Advance(f);
    Leave(flow);
    Join(flow);
    f.rate = rate;
}

void
FlowNetwork::SetRetryBudget(uint32_t flow, RetryBudget budget, Callback<void> failed)
{
    m_flows[flow].budget = budget;
    m_flows[flow].failed = failed;
}

bool
FlowNetwork::TakeLost(uint32_t flow)
{
    const bool lost = m_flows[flow].lost;
    m_flows[flow].lost = false;
    return lost;
}

void
FlowNetwork::LastResend(uint32_t flow)
{
    // The queue pair goes back and resends what is unacknowledged at its first link's rate; a
    // path back before that burst ends lets its later frames through (the receiver NAKs the
    // gap and it goes on), so it is doomed only once the burst has gone out.
    Flow& f = m_flows[flow];
    const uint32_t first = f.route.uses.front().resource;
    double burst = 0;
    if (first < m_noPath)
    {
        burst = f.remaining * 8 / m_channels[first / 2]->GetDataRate().GetBitRate();
    }
    const Time doomAt =
        std::min(PicoSeconds(static_cast<int64_t>(std::ceil(burst * 1e12))),
                 f.budget.fail - f.budget.lastResend);
    f.giveUp = Simulator::Schedule(doomAt, &FlowNetwork::Doom, this, flow);
}

void
FlowNetwork::Doom(uint32_t flow)
{
    Flow& f = m_flows[flow];
    NS_LOG_INFO("flow " << flow << ": no path at its last resend");
    Stop(flow);
    f.doomed = true;
    RequestRecompute();
    // Its failure comes at the timeout after the last resend.
    f.giveUp = Simulator::Schedule(f.stalledAt + f.budget.fail - Simulator::Now(),
                                   &FlowNetwork::GiveUp, this, flow);
}

void
FlowNetwork::GiveUp(uint32_t flow)
{
    NS_LOG_INFO("flow " << flow << " gave up: its retry budget is spent");
    ++m_flowsFailed;
    const Callback<void> failed = m_flows[flow].failed; // it may add flows to m_flows
    failed();
}

void
FlowNetwork::Stop(uint32_t flow)
{
    Leave(flow);
    Flow& f = m_flows[flow];
    f.stalled = false;
    Simulator::Remove(f.giveUp); // not Cancel: time would run on to it
}

void
FlowNetwork::TracePath(uint32_t src,
                       uint32_t dst,
                       uint16_t entropy,
                       bool sprayed,
                       double weight,
                       std::vector<Use>& uses,
                       Time& delay,
                       double& secondsPerByte,
                       bool countFirst) const
{
    const FabricTopology& topo = *m_topology;
    FrameInfo info;
    info.srcHost = src;
    info.dstHost = dst;
    info.udpSrcPort = entropy;
    const uint32_t target = topo.HostNode(dst);
    struct Branch
    {
        uint32_t node;
        double fraction;
        bool primary; //!< on the path whose latency is reported
        bool first;   //!< the sender
    };
    std::vector<Branch> stack{{topo.HostNode(src), weight, true, true}};
    std::size_t hops = 0;
    const std::size_t maxHops = 64 * static_cast<std::size_t>(topo.GetNNodes());
    std::vector<std::pair<uint16_t, double>> next;
    while (!stack.empty())
    {
        const Branch b = stack.back();
        stack.pop_back();
        if (b.node == target)
        {
            continue;
        }
        if (++hops > maxHops)
        {
            throw std::logic_error("FlowNetwork: the routes from endpoint " + std::to_string(src) +
                                   " to " + std::to_string(dst) + " loop");
        }
        next.clear();
        const auto noRoute = [&] {
            return std::invalid_argument("FlowNetwork: no route from endpoint " +
                                         std::to_string(src) + " to " + std::to_string(dst) +
                                         " at " + topo.GetNode(b.node).name);
        };
        if (Ptr<FabricSwitch> sw = m_switches[b.node])
        {
            const auto& ports = sw->NextHops(dst);
            if (ports.empty())
            {
                throw noRoute();
            }
            if (sprayed || sw->SpreadsFlows())
            {
                for (uint16_t p : ports)
                {
                    next.emplace_back(p, b.fraction / ports.size());
                }
            }
            else
            {
                next.emplace_back(sw->FlowEgress(ports, info), b.fraction);
            }
        }
        else
        {
            Ptr<FabricEndpoint> ep = m_endpoints[b.node];
            const auto& ports = ep->NextHops(dst);
            if (ports.empty() || (!b.first && !ep->IsTransit()))
            {
                throw noRoute();
            }
            if (sprayed)
            {
                // The sender's NIC sprays over its own ports that are up (not an NVLink port a
                // rail-only fabric also routes by), as RdmaQueuePair does; a transit host over
                // all its next hops.
                const uint32_t nicMtu = ep->GetSmallestMtuPort()->GetPayloadMtu();
                const auto used = [&](uint16_t p) {
                    return !b.first ||
                           (ep->GetPort(p)->GetPayloadMtu() == nicMtu &&
                            m_channels[topo.GetNode(b.node).links[p]]->IsUp());
                };
                const auto n =
                    static_cast<std::size_t>(std::count_if(ports.begin(), ports.end(), used));
                for (uint16_t p : ports)
                {
                    if (n == 0 || used(p))
                    {
                        next.emplace_back(p, b.fraction / double(n ? n : ports.size()));
                    }
                }
            }
            else
            {
                next.emplace_back(ep->HashEgress(ports, info), b.fraction);
            }
        }
        for (std::size_t i = 0; i < next.size(); ++i)
        {
            const uint32_t link = topo.GetNode(b.node).links[next[i].first];
            const auto& l = topo.GetLink(link);
            AddUse(uses, 2 * link + (l.a == b.node ? 0 : 1), next[i].second);
            const uint32_t peer = l.a == b.node ? l.b : l.a;
            const bool primary = b.primary && i == 0;
            if (primary)
            {
                delay += m_channels[link]->GetDelay();
                if (!b.first || countFirst)
                {
                    secondsPerByte += 8.0 / m_channels[link]->GetDataRate().GetBitRate();
                }
                if (m_switches[peer])
                {
                    delay += m_switches[peer]->GetForwardingLatency();
                }
            }
            stack.push_back({peer, next[i].second, primary, false});
        }
    }
}

FlowNetwork::Route
FlowNetwork::MakeRouteOrWait(uint32_t src,
                             uint32_t dst,
                             uint16_t entropy,
                             uint16_t peerEntropy,
                             uint32_t ackInterval,
                             bool sprayed) const
{
    try
    {
        return MakeRoute(src, dst, entropy, peerEntropy, ackInterval, sprayed);
    }
    catch (const std::invalid_argument&)
    {
        const Ptr<FabricEndpoint> host = m_endpoints[m_topology->HostNode(src)];
        if (host->GetNPorts() == 0 ||
            std::all_of(m_channels.begin(), m_channels.end(),
                        [](const Ptr<FabricChannel>& c) { return c->IsUp(); }))
        {
            throw; // no failure took it: the fabric has no route at all
        }
        Route r;
        r.uses = {{m_noPath, 1.0}};
        r.payloadMtu = host->GetSmallestMtuPort()->GetPayloadMtu(); // the NIC's
        r.acknowledged = ackInterval != 0;
        r.src = src;
        r.dst = dst;
        r.entropy = entropy;
        r.peerEntropy = peerEntropy;
        r.ackInterval = ackInterval;
        r.sprayed = sprayed;
        return r;
    }
}

FlowNetwork::Route
FlowNetwork::MakeRoute(uint32_t src,
                       uint32_t dst,
                       uint16_t entropy,
                       uint16_t peerEntropy,
                       uint32_t ackInterval,
                       bool sprayed) const
{
    Route r;
    Ptr<FabricNetDevice> port =
        m_endpoints[m_topology->HostNode(src)]->PortToward(dst, entropy);
    if (!port)
    {
        throw std::invalid_argument("FlowNetwork: no route from endpoint " + std::to_string(src) +
                                    " to " + std::to_string(dst));
    }
    r.payloadMtu = port->GetPayloadMtu();
    if (sprayed)
    {
        // A sprayed queue pair's frames fit its NIC's ports when it has one toward dst.
        const Ptr<FabricEndpoint> host = m_endpoints[m_topology->HostNode(src)];
        const uint32_t nicMtu = host->GetSmallestMtuPort()->GetPayloadMtu();
        for (uint16_t p : host->NextHops(dst))
        {
            r.payloadMtu = host->GetPort(p)->GetPayloadMtu() == nicMtu ? nicMtu : r.payloadMtu;
        }
    }
    r.src = src;
    r.dst = dst;
    r.entropy = entropy;
    r.peerEntropy = peerEntropy;
    r.ackInterval = ackInterval;
    r.sprayed = sprayed;
    const double frameWireBytes = roce::WireBytesForPayload(r.payloadMtu);
    TracePath(src, dst, entropy, sprayed, 1.0, r.uses, r.dataDelay, r.dataSecondsPerByte, false);
    // A hop's uses sum to 1 (a sprayed one's split over its next hops).
    for (const Use& u : r.uses)
    {
        r.hopsPerFrame += u.weight;
    }
    if (ackInterval == 0)
    {
        r.acknowledged = false;
        return r;
    }
    const std::size_t dataUses = r.uses.size();
    const double ackWeight = static_cast<double>(roce::WireBytesForFrame(roce::kAckFrameBytes)) /
                             (static_cast<double>(ackInterval) * frameWireBytes);
    TracePath(dst,
              src,
              peerEntropy,
              sprayed,
              ackWeight,
              r.uses,
              r.ackDelay,
              r.ackSecondsPerByte,
              true);
    for (std::size_t i = dataUses; i < r.uses.size(); ++i)
    {
        r.hopsPerFrame += r.uses[i].weight / ackWeight / ackInterval;
    }
    return r;
}

uint32_t
FlowNetwork::AddFlow(Route route, double payloadPerWireByte, SentCallback sent,
                     Ptr<Object> owner)
{
    Flow f;
    f.route = std::move(route);
    f.payloadPerWireByte = payloadPerWireByte;
    f.sent = sent;
    f.owner = owner;
    m_flows.push_back(std::move(f));
    return static_cast<uint32_t>(m_flows.size() - 1);
}

void
FlowNetwork::SetLimiter(uint32_t flow, Ptr<SendRateLimiter> limiter)
{
    Flow& f = m_flows[flow];
    if (f.active && f.limiter != limiter)
    {
        // It keeps its rate (and finish time) until the recompute this instant.
        const double rate = f.rate;
        Advance(f);
        Leave(flow);
        f.limiter = limiter;
        Join(flow);
        f.rate = rate;
        RequestRecompute();
        return;
    }
    f.limiter = limiter;
}

uint32_t
FlowNetwork::LimiterResource(const Ptr<SendRateLimiter>& limiter)
{
    auto [it, added] = m_limiterResource.emplace(PeekPointer(limiter), 0);
    if (added)
    {
        if (m_freeLimiters.empty())
        {
            it->second = static_cast<uint32_t>(m_on.size());
            m_on.emplace_back();
            m_stamp.push_back(0);
            m_limiters.emplace_back();
        }
        else
        {
            it->second = m_freeLimiters.back();
            m_freeLimiters.pop_back();
        }
        m_limiters[it->second - m_capacity.size()] = {limiter,
                                                      limiter->GetRate().GetBitRate() / 8.0};
    }
    return it->second;
}

void
FlowNetwork::Join(uint32_t flow)
{
    Flow& f = m_flows[flow];
    f.active = true;
    f.current = f.route.uses;
    if (!f.route.acknowledged)
    {
        // A message source's frames into a link that is down are lost (its message for
        // good): it goes on sending, no longer held by that link.
        const auto dead = [this](const Use& u) {
            return u.resource < m_capacity.size() && m_capacity[u.resource] == 0;
        };
        if (std::any_of(f.current.begin(), f.current.end(), dead))
        {
            f.lost = true;
            f.current.erase(std::remove_if(f.current.begin(), f.current.end(), dead),
                            f.current.end());
            if (f.current.empty())
            {
                f.current = f.route.uses; // its own link is dead: it cannot send
            }
        }
    }
    if (f.limiter && f.limiter->GetRate().GetBitRate() > 0)
    {
        f.current.push_back({LimiterResource(f.limiter), f.payloadPerWireByte});
    }
    NS_ABORT_MSG_IF(f.current.empty(), "FlowNetwork: flow " << flow << " uses no link");
    for (const Use& u : f.current)
    {
        m_on[u.resource].push_back(flow);
        m_dirty.push_back(u.resource);
    }
}

void
FlowNetwork::Leave(uint32_t flow)
{
    Flow& f = m_flows[flow];
    f.active = false;
    f.rate = 0;
    for (const Use& u : f.current)
    {
        auto& on = m_on[u.resource];
        const auto it = std::find(on.begin(), on.end(), flow);
        NS_ASSERT(it != on.end());
        *it = on.back();
        on.pop_back();
        m_dirty.push_back(u.resource);
        if (on.empty() && u.resource >= m_capacity.size())
        {
            // The limiter's last flow left: its resource id is free for another.
            Limiter& limiter = m_limiters[u.resource - m_capacity.size()];
            m_limiterResource.erase(PeekPointer(limiter.limiter));
            limiter = Limiter();
            m_freeLimiters.push_back(u.resource);
        }
    }
    f.current.clear();
}

void
FlowNetwork::Send(uint32_t flow, double wireBytes, uint64_t frames)
{
    Flow& f = m_flows[flow];
    if (f.doomed)
    {
        return; // its queue pair fails soon and sends nothing more
    }
    m_dataFrames += frames;
    m_frameHops += static_cast<double>(frames) * f.route.hopsPerFrame;
    f.remaining = wireBytes;
    f.updated = Simulator::Now();
    if (f.active)
    {
        NS_ABORT_MSG_IF(m_sending != flow,
                        "FlowNetwork: flow " << flow << " is already sending");
        f.continued = true;
        Schedule(flow);
        return;
    }
    Join(flow);
    RequestRecompute();
}

void
FlowNetwork::RequestRecompute()
{
    if (!m_recompute.IsRunning())
    {
        m_recompute = Simulator::ScheduleNow(&FlowNetwork::Recompute, this);
    }
}

void
FlowNetwork::Advance(Flow& f)
{
    const Time now = Simulator::Now();
    if (f.rate > 0)
    {
        f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.updated).GetSeconds());
    }
    f.updated = now;
}

void
FlowNetwork::Schedule(uint32_t flow)
{
    Flow& f = m_flows[flow];
    ++f.epoch;
    if (f.rate <= 0)
    {
        return; // a link of its path is down: no finish until it has a rate again
    }
    f.finish = Simulator::Now() + PicoSeconds(static_cast<int64_t>(
                                      std::ceil(f.remaining / f.rate * 1e12)));
    m_due.push({f.finish.GetPicoSeconds(), flow, f.epoch});
}

double
FlowNetwork::Capacity(uint32_t resource) const
{
    return resource < m_capacity.size() ? m_capacity[resource]
                                         : m_limiters[resource - m_capacity.size()].bytesPerSecond;
}

void
FlowNetwork::Recompute()
{
    ++m_recomputations;
    // Only the flows that share a resource, directly or through others, with one that
    // started or stopped can change rate: that connected component is refilled.
    ++m_visit;
    m_componentFlows.clear();
    m_componentResources.clear();
    for (std::size_t i = 0; i < m_dirty.size(); ++i)
    {
        const uint32_t r = m_dirty[i];
        if (m_stamp[r] == m_visit)
        {
            continue;
        }
        m_stamp[r] = m_visit;
        if (m_on[r].empty())
        {
            continue; // nothing to share (a limiter's freed id among them)
        }
        m_componentResources.push_back(r);
        for (uint32_t flow : m_on[r])
        {
            Flow& f = m_flows[flow];
            if (f.visit == m_visit)
            {
                continue;
            }
            f.visit = m_visit;
            m_componentFlows.push_back(flow);
            for (const Use& u : f.current)
            {
                if (m_stamp[u.resource] != m_visit)
                {
                    m_dirty.push_back(u.resource);
                }
            }
        }
    }
    m_dirty.clear();
    Fill();
    for (uint32_t flow : m_componentFlows)
    {
        Flow& f = m_flows[flow];
        if (f.changed)
        {
            Schedule(flow);
        }
        if (f.rate <= 0 && !f.stalled)
        {
            f.stalled = true;
            if (f.budget.fail.IsStrictlyPositive())
            {
                f.stalledAt = Simulator::Now();
                f.giveUp =
                    Simulator::Schedule(f.budget.lastResend, &FlowNetwork::LastResend, this, flow);
            }
        }
        else if (f.rate > 0 && f.stalled)
        {
            f.stalled = false;
            Simulator::Remove(f.giveUp);
        }
    }
    Arm();
}

void
FlowNetwork::Fill()
{
    // Progressive filling over the component: every unfrozen flow's rate rises by the same
    // step until a resource is full; its flows freeze at that level.  m_componentResources is
    // kept to the resources that still have unfrozen flows.
    const std::size_t resources = m_on.size();
    m_left.resize(resources);
    m_full.resize(resources);
    m_weightSum.resize(resources);
    m_unfrozenOn.resize(resources);
    for (uint32_t r : m_componentResources)
    {
        m_left[r] = Capacity(r);
        m_full[r] = 1e-9 * m_left[r];
        m_weightSum[r] = 0;
        m_unfrozenOn[r] = 0;
    }
    for (uint32_t flow : m_componentFlows)
    {
        Flow& f = m_flows[flow];
        Advance(f);
        f.frozen = false;
        for (const Use& u : f.current)
        {
            m_weightSum[u.resource] += u.weight;
            ++m_unfrozenOn[u.resource];
        }
    }
    std::size_t unfrozen = m_componentFlows.size();
    double level = 0;
    while (unfrozen > 0)
    {
        double step = std::numeric_limits<double>::infinity();
        for (uint32_t r : m_componentResources)
        {
            step = std::min(step, m_left[r] / m_weightSum[r]);
        }
        NS_ABORT_MSG_IF(!std::isfinite(step), "FlowNetwork: a flow uses no link");
        level += step;
        for (uint32_t r : m_componentResources)
        {
            m_left[r] -= step * m_weightSum[r];
        }
        for (uint32_t r : m_componentResources)
        {
            if (m_unfrozenOn[r] == 0 || m_left[r] > m_full[r])
            {
                continue;
            }
            for (uint32_t flow : m_on[r])
            {
                Flow& f = m_flows[flow];
                if (f.frozen)
                {
                    continue;
                }
                f.frozen = true;
                // A rate that did not change keeps its finish time (no new heap entry).
                f.changed = std::abs(level - f.rate) > 1e-12 * level;
                if (f.changed)
                {
                    f.rate = level;
                }
                --unfrozen;
                for (const Use& u : f.current)
                {
                    m_weightSum[u.resource] -= u.weight;
                    --m_unfrozenOn[u.resource];
                }
            }
        }
        m_componentResources.erase(std::remove_if(m_componentResources.begin(),
                                                  m_componentResources.end(),
                                                  [this](uint32_t r) {
                                                      return m_unfrozenOn[r] == 0;
                                                  }),
                                   m_componentResources.end());
    }
}

void
FlowNetwork::Arm()
{
    while (!m_due.empty() && (!m_flows[m_due.top().flow].active ||
                              m_flows[m_due.top().flow].epoch != m_due.top().epoch))
    {
        m_due.pop();
    }
    m_next.Cancel();
    if (!m_due.empty())
    {
        m_next = Simulator::Schedule(PicoSeconds(m_due.top().at) - Simulator::Now(),
                                     &FlowNetwork::Finish,
                                     this);
    }
}

void
FlowNetwork::Finish()
{
    const int64_t now = Simulator::Now().GetPicoSeconds();
    std::vector<uint32_t> due;
    while (!m_due.empty() && m_due.top().at <= now)
    {
        const Due d = m_due.top();
        m_due.pop();
        if (m_flows[d.flow].active && m_flows[d.flow].epoch == d.epoch)
        {
            due.push_back(d.flow);
        }
    }
    bool stopped = false;
    for (uint32_t flow : due)
    {
        {
            Flow& f = m_flows[flow];
            f.remaining = 0;
            f.updated = Simulator::Now();
            f.continued = false;
        }
        m_sending = flow;
        const SentCallback sent = m_flows[flow].sent; // it may add flows to m_flows
        sent();
        m_sending = UINT32_MAX;
        if (!m_flows[flow].continued)
        {
            Stop(flow);
            stopped = true;
        }
    }
    if (stopped)
    {
        RequestRecompute();
    }
    else if (!m_recompute.IsRunning())
    {
        Arm();
    }
}

} // namespace ns3
