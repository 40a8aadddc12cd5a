// A 16:1 incast of RDMA queue pairs at 100 Gb/s through one switch, with or without DCQCN:
// prints each sender's completion time, the PFC pauses the switch sent and the CNPs the
// receiver returned.  With DCQCN the senders slow down before the switch must pause them.
//
//   rdma-incast [--senders=16] [--bytes=4194304] [--cc=dcqcn|none]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    uint32_t senders = 16;
    uint64_t bytes = 4 << 20;
    std::string cc = "dcqcn";
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "hosts sending to host 0", senders);
    cmd.AddValue("bytes", "message size per sender", bytes);
    cmd.AddValue("cc", "congestion control: dcqcn or none", cc);
    cmd.Parse(argc, argv);

    LeafSpineTopologyHelper leafSpine(1, senders + 1, senders + 1);
    leafSpine.SetAttribute("NicRate", DataRateValue(DataRate("100Gbps")));
    Ptr<FabricNetwork> net = FabricNetworkHelper().Install(leafSpine.Build());

    RdmaHelper rdma;
    rdma.SetNicAttribute("CongestionControl",
                         TypeIdValue(cc == "dcqcn" ? DcqcnCongestionControl::GetTypeId()
                                                   : NoneCongestionControl::GetTypeId()));
    rdma.Install(net);
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    struct Clock
    {
        uint32_t sender;
        void Done(uint64_t, uint64_t)
        {
            std::cout << "sender " << sender << " done at " << Simulator::Now().As(Time::US)
                      << "\n";
        }
    };
    std::vector<Clock> clocks(senders + 1);
    for (uint32_t s = 1; s <= senders; ++s)
    {
        clocks[s].sender = s;
        qps.push_back(rdma.Connect(net, s, 0));
        qps.back().first->PostSend(bytes, MakeCallback(&Clock::Done, &clocks[s]));
    }
    Simulator::Run();

    uint64_t pauses = 0;
    const FabricTopology& topo = net->GetTopology();
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        Ptr<Node> node = net->GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (auto port = DynamicCast<FabricNetDevice>(node->GetDevice(d)))
            {
                pauses += port->GetCounters().pfcPauseSent;
            }
        }
    }
    uint64_t cnps = 0;
    for (const auto& [requester, responder] : qps)
    {
        cnps += responder->GetCounters().cnpsSent;
    }
    std::cout << "congestion control " << cc << ": " << pauses << " PFC pauses, " << cnps
              << " CNPs; " << senders << " x " << bytes << " B at 100 Gb/s take at least "
              << Seconds(8.0 * senders * bytes / 100e9).As(Time::US) << "\n";
    Simulator::Destroy();
    return 0;
}
