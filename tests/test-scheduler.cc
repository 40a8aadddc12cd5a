// Class scheduling at an egress: strict priority starves the lower class; DWRR shares equally.
#include "fabric-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace aifabric_test;

namespace
{
/** Two senders on classes 3 and 5 into one receiver; frames of each class delivered by \p at. */
std::pair<uint64_t, uint64_t>
DeliveredByClass(FabricNetDevice::Scheduler scheduler, Time at)
{
    FabricNetworkHelper helper;
    helper.SetDeviceAttribute("Scheduler", EnumValue(scheduler));
    Ptr<FabricNetwork> net = helper.Install(Star(3, DataRate("100Gbps"), 2));
    MessageSourceHelper low;
    low.SetAttribute("Priority", UintegerValue(3));
    low.Install(net, 1, 0, 4 << 20, Time(0));
    MessageSourceHelper high;
    high.SetAttribute("Priority", UintegerValue(5));
    high.SetAttribute("FlowId", UintegerValue(1));
    high.Install(net, 2, 0, 4 << 20, Time(0));
    std::pair<uint64_t, uint64_t> counts{0, 0};
    auto count = [&counts, at](const FrameInfo& info) {
        if (Simulator::Now() <= at)
        {
            ++(info.priority == 3 ? counts.first : counts.second);
        }
    };
    net->GetEndpoint(0)->TraceConnectWithoutContext("Deliver",
                                                    Callback<void, const FrameInfo&>(count));
    RunAndDestroy();
    return counts;
}
} // namespace

TEST(Scheduler, StrictPriorityServesHigherClassFirst)
{
    const auto [low, high] = DeliveredByClass(FabricNetDevice::STRICT_PRIORITY, MicroSeconds(300));
    EXPECT_GT(high, 10 * std::max<uint64_t>(low, 1));
}

TEST(Scheduler, DwrrSharesEqually)
{
    const auto [low, high] = DeliveredByClass(FabricNetDevice::DWRR, MicroSeconds(300));
    ASSERT_GT(low + high, 500u);
    EXPECT_NEAR(double(low) / double(high), 1.0, 0.05);
}
