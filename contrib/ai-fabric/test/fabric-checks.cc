#include "fabric-checks.h"

#include "ns3/fabric-network-helper.h"
#include "ns3/message-source-helper.h"
#include "ns3/roce-frame.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <vector>

namespace ns3
{
namespace checks
{

namespace
{
/** One switch with \p hosts hosts, each on its own cable of \p metres. */
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

struct Arrivals
{
    std::vector<Time> times;
    void Record(Ptr<const Packet>, const FrameInfo&) { times.push_back(Simulator::Now()); }
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

} // namespace checks
} // namespace ns3
