#include "fabric-fixture.h"

using namespace ns3;

namespace aifabric_test
{

void
RunAndDestroy()
{
    Simulator::Run();
    Simulator::Destroy();
}

RdmaHelper
RdmaRunning(TypeId tid)
{
    RdmaHelper rdma;
    rdma.SetNicAttribute("CongestionControl", TypeIdValue(tid));
    return rdma;
}

Ptr<FabricNetwork>
DcqcnStar(uint32_t senders, RdmaHelper& rdma)
{
    Ptr<FabricNetwork> net =
        FabricNetworkHelper().Install(Star(senders + 1, DataRate("100Gbps"), 2));
    rdma.SetNicAttribute("CongestionControl", TypeIdValue(DcqcnCongestionControl::GetTypeId()));
    rdma.Install(net);
    return net;
}

Ptr<FabricNetwork>
PausingIncast(uint32_t senders)
{
    FabricNetworkHelper helper;
    helper.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize("4MiB")));
    Ptr<FabricNetwork> net = helper.Install(Star(senders + 1, DataRate("100Gbps"), 2));
    MessageSourceHelper sources;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        sources.Install(net, s, 0, 1 << 20, MicroSeconds(1));
    }
    return net;
}

} // namespace aifabric_test
