#include "collective-fixture.h"

#include "fabric-fixture.h"

#include <stdexcept>

using namespace ns3;

namespace aifabric_test
{

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
              const NetworkHook& hook)
{
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(topology);
    if (hook)
    {
        hook(net);
    }
    RdmaHelper rdma;
    rdma.Install(net);
    std::vector<uint32_t> hosts;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        hosts.push_back(r);
    }
    Ptr<CollectiveGroup> group = CollectiveHelper().Install(net, rdma, hosts);
    Ptr<CollectiveAlgorithm> algo = CollectiveAlgorithm::Create(algorithm);
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

} // namespace aifabric_test
