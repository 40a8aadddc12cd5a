// FabricScheduler: events of one instant run frame arrivals first, by receiving port, then the
// rest in scheduling order; checked against a sorted reference over a random mix.
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
    EXPECT_LT(Create<FrameArrival>(ports[0], Create<Packet>(64), 0, false, false)->GetTieKey(),
              Create<FrameArrival>(ports[0], Create<Packet>(64), 0, false, true)->GetTieKey());
    EXPECT_LT(Create<FrameArrival>(ports[1], Create<Packet>(64), 0, false, true)->GetTieKey(),
              Create<FrameArrival>(ports[0], Create<Packet>(64), 0, false, false)->GetTieKey());
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
