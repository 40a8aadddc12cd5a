#include "collective-checks.h"

#include "fabric-checks.h"

#include "ns3/config.h"
#include "ns3/fat-tree-topology-helper.h"
#include "ns3/ideal-protocol.h"
#include "ns3/queue-size.h"
#include "ns3/rdma-helper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>

namespace ns3
{
namespace checks
{

ScopedDefaults::ScopedDefaults(const std::string& type, const Attributes& values)
    : m_type(type)
{
    const TypeId tid = TypeId::LookupByName(type);
    for (const auto& [name, value] : values)
    {
        TypeId::AttributeInformation info;
        NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info), type << " has no " << name);
        m_saved.emplace_back(name, info.initialValue);
        Config::SetDefault(type + "::" + name, StringValue(value));
    }
}

ScopedDefaults::~ScopedDefaults()
{
    for (const auto& [name, value] : m_saved)
    {
        Config::SetDefault(m_type + "::" + name, *value);
    }
}

CollectiveRun
RunOnFatTree(const std::string& algorithm, CollectiveOperation op, uint64_t bytes, uint32_t ranks,
             const Attributes& attributes)
{
    FatTreeTopologyHelper fatTree(4);
    fatTree.SetCluster(ClusterHelper(16, 1));
    return RunCollective(fatTree.Build(), algorithm, op, bytes, ranks, attributes);
}

CollectiveRun
RunOnStar(const std::string& algorithm, CollectiveOperation op, uint64_t bytes, uint32_t ranks,
          const Attributes& attributes)
{
    return RunCollective(Star(16, DataRate("400Gbps"), 3), algorithm, op, bytes, ranks, attributes);
}

CollectiveRun
RunCollective(const FabricTopology& topology, const std::string& algorithm,
              CollectiveOperation op, uint64_t bytes, uint32_t ranks, const Attributes& attributes,
              const NetworkHook& hook, const std::string& congestionControl)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(topology);
    if (hook)
    {
        hook(net);
    }
    RdmaHelper rdma;
    if (!congestionControl.empty())
    {
        rdma.SetNicAttribute("CongestionControl",
                             TypeIdValue(TypeId::LookupByName(congestionControl)));
    }
    rdma.Install(net);
    std::vector<uint32_t> hosts;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        hosts.push_back(r);
    }
    Ptr<CollectiveGroup> group = CollectiveHelper().Install(net, rdma, hosts);
    Ptr<CollectiveAlgorithm> algo = CollectiveAlgorithm::Create(algorithm);
    algo->SetAttribute("Protocol", TypeIdValue(IdealProtocol::GetTypeId()));
    for (const auto& [name, value] : attributes)
    {
        algo->SetAttribute(name, StringValue(value));
    }
    CollectiveRun run;
    struct Sink
    {
        CollectiveResult* out;
        void Done(const CollectiveResult& r) { *out = r; }
    } sink{&run.result};
    group->Run(algo, group->MakeRequest(op, bytes), MakeCallback(&Sink::Done, &sink));
    Simulator::Run();
    const FabricTotals totals = Totals(net);
    run.framesDropped = totals.framesDropped;
    run.pfcPauses = totals.pfcPausesSent;
    run.ecnMarked = totals.ecnMarked;
    Simulator::Destroy();
    return run;
}

uint32_t
FatTreeModel::Hops(uint32_t a, uint32_t b)
{
    if (a / 2 == b / 2)
    {
        return 2;
    }
    return a / 4 == b / 4 ? 4 : 6;
}

double
FatTreeModel::PropagationDelay(uint32_t a, uint32_t b)
{
    const double ns = 5e-9; // per metre
    switch (Hops(a, b))
    {
    case 2:
        return 2 * 3 * ns;
    case 4:
        return (2 * 3 + 2 * 30) * ns;
    default:
        return (2 * 3 + 2 * 30 + 2 * 100) * ns;
    }
}

double
FatTreeModel::Alpha(uint32_t hops, double propagation) const
{
    return propagation + (hops - 1) * (forwarding + dataWire * 8 / rate);
}

double
FatTreeModel::AckLatency(uint32_t hops, double propagation) const
{
    return propagation + (hops - 1) * forwarding + hops * ackWire * 8 / rate;
}

double
RingAllReduceModel(const FatTreeModel& m, uint32_t p, uint64_t n)
{
    const double block = double(n) / p;
    const double frames = std::ceil(block / m.mtu);
    double worst = 0;
    for (uint32_t end = 0; end < p; ++end) // the rank whose last receive ends the window
    {
        double t = 0;
        for (uint32_t s = 0; s < 2 * (p - 1); ++s)
        {
            const uint32_t to = (end + 2 * p - s) % p;
            const uint32_t from = (to + p - 1) % p;
            t += m.Alpha(from, to) + frames * m.mtu * m.Beta() + (s < p - 1 ? block * m.gamma : 0);
        }
        // The last message's sender finishes when its acknowledgement comes back.
        worst = std::max(worst, t + m.AckLatency((end + p - 1) % p, end));
    }
    return worst;
}

DeterminismCheck
RunTwice(uint64_t bytes)
{
    // ECN thresholds low enough that the pairwise steps' queues are marked at random (the
    // defaults scale to 1.6 MB at 400G).
    const ScopedDefaults thresholds("ns3::FabricNetDevice",
                                    {{"EcnKminPer25G", "2KB"}, {"EcnKmaxPer25G", "8KB"}});
    DeterminismCheck check;
    for (CollectiveRun* run : {&check.first, &check.second})
    {
        FatTreeTopologyHelper fatTree(4);
        fatTree.SetCluster(ClusterHelper(16, 1));
        RngSeedManager::SetSeed(7);
        RngSeedManager::SetRun(1);
        *run = RunCollective(fatTree.Build(), "pairwise", ALL_TO_ALL, bytes, 16, {},
                             [](Ptr<FabricNetwork> net) { net->AssignStreams(100); },
                             "ns3::DcqcnCongestionControl");
    }
    return check;
}

} // namespace checks
} // namespace ns3
