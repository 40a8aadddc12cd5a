#include "fabric-fixture.h"

using namespace ns3;

namespace aifabric_test
{

FabricTopology
Star(uint32_t hosts, DataRate rate, double metres)
{
    FabricTopology topo;
    std::vector<uint32_t> h;
    for (uint32_t i = 0; i < hosts; ++i)
    {
        h.push_back(topo.AddHost("h" + std::to_string(i), i, 0));
    }
    const uint32_t sw = topo.AddNode(FabricTopology::Role::Leaf, "leaf");
    for (uint32_t i : h)
    {
        topo.AddLink(i, sw, rate, metres, FabricTopology::Medium::Copper);
    }
    return topo;
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
        }
    }
    return t;
}

void
RunAndDestroy()
{
    Simulator::Run();
    Simulator::Destroy();
}

} // namespace aifabric_test
