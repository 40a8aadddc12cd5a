#include "fabric-checks.h"

#include "ns3/boolean.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-stats-helper.h"
#include "ns3/fabric-switch.h"
#include "ns3/leaf-spine-topology-helper.h"
#include "ns3/message-source-helper.h"
#include "ns3/queue-size.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/roce-frame.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <vector>

namespace ns3
{
namespace checks
{

void
UsePicoseconds()
{
    if (Time::GetResolution() != Time::PS)
    {
        Time::SetResolution(Time::PS);
    }
}

FabricTopology
Star(uint32_t hosts, DataRate rate, double metres)
{
    FabricTopology t;
    std::vector<uint32_t> h;
    for (uint32_t i = 0; i < hosts; ++i)
    {
        h.push_back(t.AddHost("h" + std::to_string(i), i, 0));
    }
    const uint32_t leaf = t.AddNode(FabricTopology::Role::Leaf, "leaf");
    for (uint32_t i : h)
    {
        t.AddLink(i, leaf, rate, metres, FabricTopology::Medium::Copper);
    }
    return t;
}

FabricTotals
Totals(Ptr<FabricNetwork> net)
{
    FabricTotals t;
    t.dropsByReason.assign(static_cast<std::size_t>(DropReason::kCount), 0);
    const FabricTopology& topo = net->GetTopology();
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        Ptr<Node> node = net->GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            const auto& c = DynamicCast<FabricNetDevice>(node->GetDevice(d))->GetCounters();
            if (topo.GetNode(n).role == FabricTopology::Role::Host)
            {
                t.hostDataFramesSent += c.txFrames;
            }
            for (std::size_t r = 0; r < c.dropFrames.size(); ++r)
            {
                t.framesDropped += c.dropFrames[r];
                t.dropsByReason[r] += c.dropFrames[r];
            }
            t.pfcPausesSent += c.pfcPauseSent;
            t.ecnMarked += c.ecnMarked;
            t.framesTrimmed += c.trimmedFrames;
        }
    }
    return t;
}

namespace
{
struct Arrivals
{
    std::vector<Time> times;

    void Record(const FrameInfo&)
    {
        times.push_back(Simulator::Now());
    }
};
} // namespace

TimeCheck
OneFrameOneHop(uint64_t gbps, uint32_t payload)
{
    const double metres = 7;
    FabricNetworkHelper helper;
    helper.SetSwitchAttribute("ForwardingLatency", TimeValue(NanoSeconds(450)));
    Ptr<FabricNetwork> net = helper.Install(Star(2, DataRate(gbps * 1000000000ull), metres));
    Arrivals arrivals;
    net->GetEndpoint(1)->TraceConnectWithoutContext("Deliver",
                                                    MakeCallback(&Arrivals::Record, &arrivals));
    MessageSourceHelper sources;
    sources.SetAttribute("PayloadSize", UintegerValue(payload));
    sources.Install(net, 0, 1, payload, MicroSeconds(1));
    Simulator::Run();
    Simulator::Destroy();
    // Store and forward: two serializations, two 7 m cables (35 ns each), the switch pipeline.
    const int64_t wirePs = roce::WireBytesForPayload(payload) * 8 * 1000 / int64_t(gbps);
    TimeCheck c;
    c.measured = arrivals.times.size() == 1 ? arrivals.times[0] : Time(-1);
    c.expected = PicoSeconds(1000000 + 2 * wirePs + 2 * 35000 + 450000);
    return c;
}

IncastCheck
Incast(uint32_t senders, bool pfc, DataRate rate, double metres, QueueSize buffer)
{
    FabricNetworkHelper helper;
    helper.SetMmuAttribute("PfcEnabled", BooleanValue(pfc));
    helper.SetMmuAttribute("BufferSize", QueueSizeValue(buffer));
    Ptr<FabricNetwork> net = helper.Install(Star(senders + 1, rate, metres));
    MessageSourceHelper sources;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        sources.Install(net, s, 0, 1 << 20, MicroSeconds(1));
    }
    FabricStatsHelper stats;
    stats.Install(net, sources);
    Simulator::Run();
    IncastCheck r;
    r.totals = Totals(net);
    Ptr<SharedBufferMmu> mmu = net->GetSwitch(senders + 1)->GetMmu();
    r.leafBufferPeak = mmu->GetPeakUsed();
    r.headroomCap = mmu->GetHeadroomCap(1);
    for (uint16_t port = 1; port <= senders; ++port)
    {
        r.headroomPeak = std::max(r.headroomPeak, mmu->GetHeadroomPeak(port));
    }
    r.delivered = stats.GetFramesDelivered();
    r.framesPerSender = (1 << 20) / 4096;
    for (const auto& f : stats.Flows())
    {
        r.completeFlows += f.Complete();
    }
    Simulator::Destroy();
    return r;
}

/** Frames sent by \p node on each of its links toward a node with \p role. */
std::vector<uint64_t>
UplinkFrames(Ptr<FabricNetwork> net, uint32_t node, FabricTopology::Role role)
{
    const FabricTopology& topo = net->GetTopology();
    std::vector<uint64_t> out;
    for (uint32_t l : topo.GetNode(node).links)
    {
        const auto& link = topo.GetLink(l);
        const uint32_t peer = link.a == node ? link.b : link.a;
        if (topo.GetNode(peer).role == role)
        {
            out.push_back(net->GetPort(node, l)->GetCounters().txFrames);
        }
    }
    return out;
}

double
ChiSquare(const std::vector<uint64_t>& counts)
{
    double total = 0;
    for (auto c : counts)
    {
        total += double(c);
    }
    const double expected = total / counts.size();
    double chi = 0;
    for (auto c : counts)
    {
        chi += (double(c) - expected) * (double(c) - expected) / expected;
    }
    return chi;
}

SpreadCheck
EcmpSpread()
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(LeafSpineTopologyHelper(2, 8, 1).Build());
    MessageSourceHelper sources;
    for (uint32_t f = 0; f < 800; ++f)
    {
        sources.Install(net, f % 8, 8 + (f / 8) % 8, 1000, MicroSeconds(f));
    }
    Simulator::Run();
    const uint32_t leaf0 = net->GetTopology().GetNHosts();
    SpreadCheck r;
    r.uplinkFrames = UplinkFrames(net, leaf0, FabricTopology::Role::Spine);
    Simulator::Destroy();
    r.chiSquare = ChiSquare(r.uplinkFrames);
    r.bound = 24.3;
    return r;
}

} // namespace checks
} // namespace ns3
