// fabric-bench: the same fat-tree permutation workload on ai-fabric and on plain ns-3.
//
// Each host sends a message to the host half the hosts away (always in another pod) at line
// rate in 4096-byte payloads over 100G links.  The baseline is what an ns-3 user would write
// without ai-fabric: point-to-point links, the Internet stack, global routing with ECMP, UDP.
// ns-3's ECMP (Ipv4GlobalRouting::RandomEcmpRouting) picks a next hop per packet, so ai-fabric
// runs with per-packet spraying too: the same load balancing, the same simulated outcome.
// Each run happens in its own child process so that its peak RSS is its own.
//
//   fabric-bench [--k=4,8] [--bytes=16777216] [--scheduler=ns3::FabricScheduler]
#include "bench-run.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cstdio>
#include <sstream>

using namespace ns3;

namespace
{
using aifabric_bench::InChild;
using aifabric_bench::Result; // packets: 4096-byte payloads received by the destinations

constexpr uint32_t kPayload = 4096;
const char* kRate = "100Gbps";

Result
RunAiFabric(uint32_t k, uint64_t bytes)
{
    Time::SetResolution(Time::PS);
    const auto start = std::chrono::steady_clock::now();
    FatTreeTopologyHelper fatTree(k);
    ClusterHelper cluster(k * k * k / 4, 1);
    cluster.SetNicRate(DataRate(kRate));
    fatTree.SetCluster(cluster);
    FabricNetworkHelper network;
    network.SetSwitchAttribute("LoadBalancing", EnumValue(FabricSwitch::PACKET_SPRAY));
    Ptr<FabricNetwork> net = network.Install(fatTree.Build());
    const uint32_t hosts = net->GetNHosts();
    MessageSourceHelper sources;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        sources.Install(net, h, (h + hosts / 2) % hosts, bytes, Time(0));
    }
    FabricStatsHelper stats;
    stats.Install(net, sources.GetSources());
    Simulator::Run();
    Result r;
    r.packets = stats.GetFramesDelivered();
    r.simSeconds = Simulator::Now().GetSeconds();
    r.events = Simulator::GetEventCount();
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Simulator::Destroy();
    return r;
}

uint64_t g_plainDelivered = 0;
Time g_plainLastRx;

void
CountRx(Ptr<const Packet>, const Address&)
{
    ++g_plainDelivered;
    g_plainLastRx = Simulator::Now();
}

Result
RunPlainNs3(uint32_t k, uint64_t bytes)
{
    const auto start = std::chrono::steady_clock::now();
    const FabricTopology topo = FatTreeTopologyHelper(k).Build(); // the same graph
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
    NodeContainer nodes;
    nodes.Create(topo.GetNNodes());
    InternetStackHelper internet;
    internet.Install(nodes);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(kRate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000)); // 4096-byte datagrams unfragmented
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddress(topo.GetNHosts());
    for (const auto& l : topo.Links())
    {
        p2p.SetChannelAttribute("Delay", TimeValue(l.Delay()));
        NetDeviceContainer d = p2p.Install(nodes.Get(l.a), nodes.Get(l.b));
        Ipv4InterfaceContainer ifs = addresses.Assign(d);
        addresses.NewNetwork();
        if (topo.GetNode(l.a).role == FabricTopology::Role::Host)
        {
            hostAddress[topo.HostIdOf(l.a)] = ifs.GetAddress(0);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    const uint32_t hosts = topo.GetNHosts();
    // Paced at the line rate net of IPv4 + UDP + PPP headers, so hosts do not queue.
    const double wire = kPayload + 8 + 20 + 2;
    const DataRate pace(static_cast<uint64_t>(DataRate(kRate).GetBitRate() * kPayload / wire));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const uint32_t dst = (h + hosts / 2) % hosts;
        Ptr<Node> dstNode = nodes.Get(topo.HostNode(dst));
        PacketSinkHelper sink("ns3::UdpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), 9000 + h));
        ApplicationContainer s = sink.Install(dstNode);
        s.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&CountRx));
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(hostAddress[dst], 9000 + h));
        onoff.SetConstantRate(pace, kPayload);
        onoff.SetAttribute("MaxBytes", UintegerValue(bytes));
        onoff.Install(nodes.Get(topo.HostNode(h)));
    }
    Simulator::Run();
    Result r;
    r.packets = g_plainDelivered;
    r.simSeconds = g_plainLastRx.GetSeconds(); // the run itself idles on to OnOff's stop time
    r.events = Simulator::GetEventCount();
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Simulator::Destroy();
    return r;
}

void
Print(const char* name, uint32_t k, const Result& r)
{
    const uint32_t hosts = k * k * k / 4;
    std::printf("%-10s k=%-2u %8lu %10.3f %9.2f %12.0f %11lu %9.1f %9.2f\n",
                name,
                k,
                static_cast<unsigned long>(r.packets),
                r.simSeconds * 1e3,
                r.wallSeconds,
                r.packets / r.wallSeconds,
                static_cast<unsigned long>(r.events),
                r.peakRssKb / 1024.0,
                r.peakRssKb / 1024.0 / hosts);
}
} // namespace

int
main(int argc, char** argv)
{
    std::string ks = "4,8";
    uint64_t bytes = 16ull << 20;
    CommandLine cmd;
    cmd.AddValue("k", "comma-separated fat-tree sizes", ks);
    cmd.AddValue("bytes", "bytes each host sends", bytes);
    std::string scheduler = "ns3::FabricScheduler";
    cmd.AddValue("scheduler", "the event scheduler both simulators run on", scheduler);
    cmd.Parse(argc, argv);
    // Both simulators on the same event scheduler (by default ai-fabric-run's), so the ratio
    // measures the models, not the queue.
    GlobalValue::Bind("SchedulerType", StringValue(scheduler));
    std::printf("fabric-bench: fat-tree, every host sends %lu bytes across pods at 100G, "
                "4096-byte payloads\n",
                static_cast<unsigned long>(bytes));
    std::printf("%-10s %-4s %8s %10s %9s %12s %11s %9s %9s\n", "simulator", "", "packets",
                "sim_ms", "wall_s", "packets/s", "events", "rss_MiB", "MiB/host");
    std::stringstream list(ks);
    std::string item;
    while (std::getline(list, item, ','))
    {
        const uint32_t k = static_cast<uint32_t>(std::stoul(item));
        const Result fabric = InChild([&]() { return RunAiFabric(k, bytes); }, "ai-fabric");
        const Result plain = InChild([&]() { return RunPlainNs3(k, bytes); }, "plain ns-3");
        Print("ai-fabric", k, fabric);
        Print("plain-ns3", k, plain);
        std::printf("ratio      k=%-2u speed (packets/s) %.2fx, memory per host %.2fx less\n",
                    k,
                    (fabric.packets / fabric.wallSeconds) / (plain.packets / plain.wallSeconds),
                    double(plain.peakRssKb) / double(fabric.peakRssKb));
    }
    return 0;
}
