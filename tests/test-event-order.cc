// FabricScheduler: events of one instant run frame arrivals first, by receiving port, then the
// rest in scheduling order; checked against a sorted reference over a random mix.
#include "fabric-checks.h"
#include "fabric-fixture.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

using namespace ns3;

namespace
{
void
Nothing()
{
}

/** A port whose MAC address (its tie key) is \p mac. */
Ptr<FabricNetDevice>
PortWithMac(const char* mac)
{
    auto port = CreateObject<FabricNetDevice>();
    port->SetAddress(Mac48Address(mac));
    return port;
}
} // namespace

TEST(EventOrder, FrameArrivalsFirstByPortThenOthersByUid)
{
    const std::vector<Ptr<FabricNetDevice>> ports{PortWithMac("02:00:00:00:00:07"),
                                                  PortWithMac("02:00:00:00:00:02"),
                                                  PortWithMac("02:00:00:00:01:00")};
    std::mt19937 rng(1);
    auto scheduler = CreateObject<FabricScheduler>();
    std::vector<Ptr<EventImpl>> impls; // keep every event alive
    // (ts, order, uid) of each inserted event; order is the tie key, or max for non-frames.
    std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> expected;
    for (uint32_t uid = 0; uid < 2000; ++uid)
    {
        const uint64_t ts = rng() % 20; // many ties
        Ptr<EventImpl> impl;
        uint64_t order = std::numeric_limits<uint64_t>::max();
        if (rng() % 2 == 0)
        {
            auto arrival = Create<FrameArrival>(ports[rng() % ports.size()],
                                                Create<Packet>(64),
                                                nullptr,
                                                0,
                                                false,
                                                rng() % 2 == 0);
            order = arrival->GetTieKey();
            impl = arrival;
        }
        else
        {
            impl = MakeEvent(&Nothing);
        }
        impls.push_back(impl);
        Scheduler::Event ev;
        ev.impl = PeekPointer(impl);
        ev.key.m_ts = ts;
        ev.key.m_uid = uid;
        ev.key.m_context = 0;
        scheduler->Insert(ev);
        expected.emplace_back(ts, order, uid);
    }
    // Remove every tenth event, as Simulator::Remove would.
    for (uint32_t uid = 0; uid < 2000; uid += 10)
    {
        Scheduler::Event ev;
        ev.impl = PeekPointer(impls[uid]);
        ev.key.m_ts = std::get<0>(expected[uid]);
        ev.key.m_uid = uid;
        scheduler->Remove(ev);
    }
    expected.erase(std::remove_if(expected.begin(),
                                  expected.end(),
                                  [](const auto& e) { return std::get<2>(e) % 10 == 0; }),
                   expected.end());
    std::sort(expected.begin(), expected.end());
    // Two arrivals at one port and instant differ only in pipelining: the MAC control frame
    // (not pipelined) goes first.
    EXPECT_LT(Create<FrameArrival>(ports[0], Create<Packet>(64), nullptr, 0, false, false)->GetTieKey(),
              Create<FrameArrival>(ports[0], Create<Packet>(64), nullptr, 0, false, true)->GetTieKey());
    EXPECT_LT(Create<FrameArrival>(ports[1], Create<Packet>(64), nullptr, 0, false, true)->GetTieKey(),
              Create<FrameArrival>(ports[0], Create<Packet>(64), nullptr, 0, false, false)->GetTieKey());
    for (const auto& [ts, order, uid] : expected)
    {
        ASSERT_FALSE(scheduler->IsEmpty());
        EXPECT_EQ(scheduler->PeekNext().key.m_uid, uid);
        const Scheduler::Event ev = scheduler->RemoveNext();
        ASSERT_EQ(ev.key.m_uid, uid);
        EXPECT_EQ(ev.key.m_ts, ts);
        EXPECT_EQ(ev.impl, PeekPointer(impls[uid]));
    }
    EXPECT_TRUE(scheduler->IsEmpty());
}

// Found by the placement study (a job failed on a NIC paused for 268 ms with every XOFF
// answered by an XON): an XON arriving exactly when the XOFF before it takes effect (its
// response time later) runs first under FabricScheduler, ns-3 judges the pending pause start
// expired and does not cancel it, and the port stayed paused for good.  The pause events now
// check their own state.
TEST(EventOrder, AnXonArrivingAsTheXoffTakesEffectLeavesThePortRunning)
{
    ObjectFactory scheduler("ns3::FabricScheduler");
    Simulator::SetScheduler(scheduler);
    Ptr<FabricNetwork> net =
        FabricNetworkHelper().Install(checks::Star(2, DataRate("400Gbps"), 3));
    const FabricTopology& topo = net->GetTopology();
    const uint32_t host = topo.HostNode(0);
    const uint32_t link = topo.GetNode(host).links[0];
    const auto& l = topo.GetLink(link);
    Ptr<FabricNetDevice> nic = net->GetPort(host, link);
    Ptr<FabricNetDevice> switchPort = net->GetPort(l.a == host ? l.b : l.a, link);
    // 905 quanta of 512 bit times at 400 Gb/s: 1.1584 us.
    const Time response =
        PicoSeconds(uint64_t(nic->GetPfcResponseQuanta()) * 512 * 1000000000000ull / 400000000000ull);
    const uint8_t priority = 3;
    Simulator::Schedule(MicroSeconds(1), &FabricNetDevice::AssertPause, switchPort, priority, true);
    Simulator::Schedule(MicroSeconds(1) + response, &FabricNetDevice::AssertPause, switchPort,
                        priority, false);
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    EXPECT_FALSE(nic->IsPaused(priority));
    EXPECT_LT(nic->GetPausedTime(), response);
    Simulator::Destroy();
}

TEST(EventOrder, RecycledEventsAreAllFreedWhenTheRunEnds)
{
    // Frame arrivals and port completions recycle their memory: each must be freed once it has
    // run, or a long run leaks one per frame.  An 8-to-1 incast queues frames at the switch, so
    // ports schedule completions as well as arrivals.
    const uint64_t before = RecycledEvent::GetLive();
    RdmaHelper rdma;
    Ptr<FabricNetwork> net = aifabric_test::DcqcnStar(8, rdma);
    for (uint32_t s = 1; s <= 8; ++s)
    {
        rdma.Connect(net, s, 0).first->PostSend(256 << 10);
    }
    Simulator::Stop(MicroSeconds(50));
    Simulator::Run();
    EXPECT_GT(RecycledEvent::GetLive(), before); // frames on the wires, ports busy
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(RecycledEvent::GetLive(), before);
}
