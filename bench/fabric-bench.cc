// fabric-bench: fat-tree permutation workloads, open loop against plain ns-3 and closed loop
// on ai-fabric's RDMA transport alone.
//
// Open loop ("open"): each host sends a message to the host half the hosts away (always in another
// pod) at line rate in 4096-byte payloads over 100G links.  The baseline is what an ns-3 user would
// write without ai-fabric: point-to-point links, the Internet stack, global routing with ECMP, UDP.
// ns-3's ECMP (Ipv4GlobalRouting::RandomEcmpRouting) picks a next hop per packet, so ai-fabric
// runs with per-packet spraying too: the same load balancing, the same simulated outcome.
//
// Closed loop ("closed"): htsim's RoCE workload (the speed issue's yardstick): 100G links of 1 us
// (200 m cables), no switch latency, a reliable queue pair per host to the host half the hosts
// away, 4096-byte payloads, an ACK per data frame, flow-hash ECMP, PFC, no congestion control
// (htsim_roce has none); 128 MiB a flow at k=4, 4 MiB at larger k (--closed-bytes sets one size
// for all).  It reports data frames per wall second and simulator events per data frame.  With
// --htsim=<htsim_roce binary> (Broadcom's csg-htsim, built outside this repository) it runs
// htsim on the same workload in the same invocation and prints the ratio.
//
// Each run happens in its own child process so that its peak RSS is its own.
//
//   fabric-bench [--workload=open,closed] [--k=4,8] [--bytes=16777216] [--closed-bytes=N]
//                [--htsim=PATH] [--scheduler=ns3::FabricScheduler]
//                [--simulator=ns3::FabricSimulatorImpl]
#include "bench-run.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{
using aifabric_bench::DataFramesSent;
using aifabric_bench::Finish;
using aifabric_bench::InChild;
using aifabric_bench::Result; // packets: 4096-byte payloads received by the destinations

constexpr uint32_t kPayload = 4096;
const char* kRate = "100Gbps";

/** The k-ary fat-tree of single-NIC hosts at kRate that both workloads run on. */
FatTreeTopologyHelper
FatTree(uint32_t k)
{
    FatTreeTopologyHelper fatTree(k);
    ClusterHelper cluster(k * k * k / 4, 1);
    cluster.SetNicRate(DataRate(kRate));
    fatTree.SetCluster(cluster);
    return fatTree;
}

Result
RunAiFabric(uint32_t k, uint64_t bytes)
{
    Time::SetResolution(Time::PS);
    const auto start = std::chrono::steady_clock::now();
    FatTreeTopologyHelper fatTree = FatTree(k);
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
    stats.Install(net, sources);
    Simulator::Run();
    return Finish(start, stats.GetFramesDelivered(), Simulator::Now().GetSeconds());
}

Result
RunClosedLoop(uint32_t k, uint64_t bytes)
{
    Time::SetResolution(Time::PS);
    const auto start = std::chrono::steady_clock::now();
    FatTreeTopologyHelper fatTree = FatTree(k);
    fatTree.SetCableLengths(200, 200, 200); // 1 us at 5 ns/m
    FabricNetworkHelper network;
    network.SetSwitchAttribute("ForwardingLatency", TimeValue(Time(0))); // as htsim's default
    network.SetDeviceAttribute("EcnEnabled", BooleanValue(false)); // htsim_roce marks nothing
    Ptr<FabricNetwork> net = network.Install(fatTree.Build());
    RdmaHelper rdma;
    rdma.SetNicAttribute("CongestionControl", StringValue("ns3::NoneCongestionControl"));
    rdma.SetQueuePairAttribute("AckInterval", UintegerValue(1));
    rdma.Install(net);
    const uint32_t hosts = net->GetNHosts();
    Time last;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        Ptr<RdmaQueuePair> qp = rdma.Connect(net, h, (h + hosts / 2) % hosts).first;
        qp->PostSend(bytes, MakeCallback(+[](Time* t, uint64_t, uint64_t) {
                                             *t = Simulator::Now();
                                         }).Bind(&last));
    }
    Simulator::Run();
    return Finish(start, DataFramesSent(net), last.GetSeconds());
}

/**
 * htsim_roce (\p binary) on the closed-loop workload: its traffic matrix written to a file of
 * its own, its command line as documented in the module chapter.  Packets are the bytes of the
 * flows it reports finished over 4096.  Exits the benchmark if htsim fails.
 */
Result
RunHtsim(const std::string& binary, uint32_t k, uint64_t bytes)
{
    const uint32_t hosts = k * k * k / 4;
    char dir[] = "/tmp/fabric-bench-htsim-XXXXXX";
    if (!mkdtemp(dir))
    {
        std::perror("mkdtemp");
        std::exit(1);
    }
    const std::string tm = std::string(dir) + "/permutation.cm";
    const std::string out = std::string(dir) + "/htsim.out";
    {
        std::ofstream f(tm);
        f << "Nodes " << hosts << "\nConnections " << hosts << "\n";
        for (uint32_t h = 0; h < hosts; ++h)
        {
            f << h << "->" << (h + hosts / 2) % hosts << " start 0 size " << bytes << "\n";
        }
    }
    const std::string nodes = std::to_string(hosts);
    const std::vector<const char*> args = {
        binary.c_str(), "-nodes", nodes.c_str(), "-tiers", "3", "-linkspeed", "100000",
        "-hop_latency", "1", "-switch_latency", "0", "-mtu", "4096", "-q", "1000",
        "-queue_type", "lossless_input", "-pfc_thresholds", "12", "15", "-strat", "ecmp_host",
        "-paths", "1", "-end", "1000000", "-seed", "13", "-o", "htsim.dat", "-tm",
        "permutation.cm", nullptr};
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0)
    {
        // In the scratch folder (htsim writes its -o file there), output to htsim.out.
        const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || chdir(dir) != 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
        {
            _exit(127);
        }
        execv(binary.c_str(), const_cast<char* const*>(args.data()));
        _exit(127);
    }
    int status = 0;
    struct rusage usage
    {
    };
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid)
    {
        std::perror("fabric-bench: running htsim");
        std::exit(1);
    }
    Result r;
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.peakRssKb = usage.ru_maxrss;
    std::ifstream f(out);
    std::string line;
    uint64_t delivered = 0;
    uint32_t flows = 0;
    while (std::getline(f, line))
    {
        // "Flow Roce_3_11 417 finished at 11010.7 total bytes 134217728" (time in us)
        const auto at = line.find(" finished at ");
        const auto total = line.find(" total bytes ");
        if (line.rfind("Flow ", 0) == 0 && at != std::string::npos && total != std::string::npos)
        {
            const double finished = std::strtod(line.c_str() + at + 13, nullptr);
            const uint64_t flowBytes = std::strtoull(line.c_str() + total + 13, nullptr, 10);
            r.simSeconds = std::max(r.simSeconds, finished * 1e-6);
            delivered += (flowBytes + kPayload - 1) / kPayload; // frames, as ai-fabric counts
            ++flows;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || flows != hosts)
    {
        std::fprintf(stderr,
                     "fabric-bench: htsim (%s) failed or finished %u of %u flows: see %s\n",
                     binary.c_str(), flows, hosts, out.c_str());
        std::exit(1);
    }
    r.packets = delivered;
    std::remove(tm.c_str());
    std::remove(out.c_str());
    std::remove((std::string(dir) + "/htsim.dat").c_str());
    rmdir(dir);
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
    // The run itself idles on to OnOff's stop time: the last reception ends the workload.
    return Finish(start, g_plainDelivered, g_plainLastRx.GetSeconds());
}

void
Print(const char* name, uint32_t k, const Result& r)
{
    // htsim counts no events: its columns read "-".
    const uint32_t hosts = k * k * k / 4;
    char events[24] = "-";
    char perPacket[24] = "-";
    if (r.events)
    {
        std::snprintf(events, sizeof events, "%lu", static_cast<unsigned long>(r.events));
        std::snprintf(perPacket, sizeof perPacket, "%.2f", double(r.events) / double(r.packets));
    }
    std::printf("%-10s k=%-2u %8lu %10.3f %9.2f %12.0f %11s %9.1f %9.2f %8s\n",
                name,
                k,
                static_cast<unsigned long>(r.packets),
                r.simSeconds * 1e3,
                r.wallSeconds,
                r.packets / r.wallSeconds,
                events,
                r.peakRssKb / 1024.0,
                r.peakRssKb / 1024.0 / hosts,
                perPacket);
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
    std::string workloads = "open,closed";
    cmd.AddValue("workload", "comma-separated: open (against plain ns-3), closed (RDMA)",
                 workloads);
    uint64_t closedBytes = 0;
    cmd.AddValue("closed-bytes", "bytes each closed-loop flow sends (0: 128 MiB at k=4, 4 MiB "
                 "at larger k)", closedBytes);
    std::string htsim;
    cmd.AddValue("htsim", "an htsim_roce binary to run beside the closed loop", htsim);
    std::string scheduler = "ns3::FabricScheduler";
    cmd.AddValue("scheduler", "the event scheduler both simulators run on", scheduler);
    std::string core = "ns3::FabricSimulatorImpl";
    cmd.AddValue("simulator",
                 "the simulator core both simulators run on (ns3::FabricSimulatorImpl, on "
                 "ns3::FabricScheduler only, or ns3::DefaultSimulatorImpl)",
                 core);
    cmd.Parse(argc, argv);
    // Before the simulation allocates: the heap on huge pages (not with --HugePageHeap=0).
    UseHugePageHeap();
    // Both simulators on the same core and event scheduler (by default ai-fabric-run's), so the
    // ratio measures the models, not the queue.
    if (!aifabric_bench::UseSimulator("fabric-bench", core, scheduler))
    {
        return 2;
    }
    bool open = false;
    bool closed = false;
    std::stringstream names(workloads);
    std::string name;
    while (std::getline(names, name, ','))
    {
        if (name != "open" && name != "closed")
        {
            std::fprintf(stderr, "fabric-bench: --workload: %s is not open or closed\n",
                         name.c_str());
            return 2;
        }
        (name == "open" ? open : closed) = true;
    }
    if (open)
    {
        std::printf("open loop: every host sends %lu bytes across pods at 100G, 4096-byte "
                    "payloads\n",
                    static_cast<unsigned long>(bytes));
    }
    if (closed)
    {
        std::printf("closed loop: a queue pair per host across pods, 100G, 1 us links, %s\n",
                    closedBytes ? (std::to_string(closedBytes) + " bytes a flow").c_str()
                                : "128 MiB a flow at k=4, 4 MiB at larger k");
    }
    std::printf("%-10s %-4s %8s %10s %9s %12s %11s %9s %9s %8s\n", "simulator", "", "packets",
                "sim_ms", "wall_s", "packets/s", "events", "rss_MiB", "MiB/host", "ev/pkt");
    std::stringstream list(ks);
    std::string item;
    while (std::getline(list, item, ','))
    {
        const uint32_t k = static_cast<uint32_t>(std::stoul(item));
        if (open)
        {
            const Result fabric = InChild([&]() { return RunAiFabric(k, bytes); }, "ai-fabric");
            const Result plain = InChild([&]() { return RunPlainNs3(k, bytes); }, "plain ns-3");
            Print("ai-fabric", k, fabric);
            Print("plain-ns3", k, plain);
            std::printf("ratio      k=%-2u speed (packets/s) %.2fx, memory per host %.2fx less\n",
                        k,
                        (fabric.packets / fabric.wallSeconds) / (plain.packets / plain.wallSeconds),
                        double(plain.peakRssKb) / double(fabric.peakRssKb));
        }
        if (closed)
        {
            const uint64_t flowBytes = closedBytes ? closedBytes : k <= 4 ? 128ull << 20 : 4ull << 20;
            const Result ours =
                InChild([&]() { return RunClosedLoop(k, flowBytes); }, "closed loop");
            Print("closed", k, ours);
            if (!htsim.empty())
            {
                const Result theirs = RunHtsim(htsim, k, flowBytes);
                Print("htsim", k, theirs);
                std::printf("ratio      k=%-2u closed loop vs htsim: speed (packets/s) %.2fx, "
                            "peak RSS %.2fx htsim's\n",
                            k,
                            (ours.packets / ours.wallSeconds) / (theirs.packets / theirs.wallSeconds),
                            double(ours.peakRssKb) / double(theirs.peakRssKb));
            }
        }
        std::fflush(stdout);
    }
    return 0;
}
