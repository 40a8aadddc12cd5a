// FabricScheduler: events of one instant run frame arrivals first, by receiving port, then the
// control path's notices by handler and sender, then the rest in scheduling order; checked
// against a sorted reference over a random mix.  The control path's own delivery order.
#include "fabric-checks.h"
#include "fabric-fixture.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace ns3;

namespace
{
void
Nothing()
{
}

void
Ignore(uint32_t, const std::vector<int64_t>&)
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

/** A MAC control frame's arrival at \p port, ordered as a channel orders it. */
Ptr<FrameArrival>
Arrival(const Ptr<FabricNetDevice>& port, bool pipelined)
{
    return Create<FrameArrival>(PeekPointer(port),
                                FabricChannel::TieKey(port->GetPortKey(), pipelined),
                                Create<Packet>(64),
                                nullptr,
                                0,
                                false);
}
} // namespace

TEST(EventOrder, FrameArrivalsFirstByPortThenControlNoticesThenOthersByUid)
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
        const uint32_t kind = rng() % 3;
        if (kind == 0)
        {
            const Ptr<FabricNetDevice>& port = ports[rng() % ports.size()];
            auto arrival = Arrival(port, rng() % 2 == 0);
            order = arrival->GetTieKey();
            impl = arrival;
        }
        else if (kind == 1)
        {
            auto notice = Create<ControlArrival>(MakeCallback(&Ignore), rng() % 3, rng() % 5,
                                                 std::vector<int64_t>{});
            order = notice->GetTieKey();
            impl = notice;
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
    EXPECT_LT(Arrival(ports[0], false)->GetTieKey(), Arrival(ports[0], true)->GetTieKey());
    EXPECT_LT(Arrival(ports[1], true)->GetTieKey(), Arrival(ports[0], false)->GetTieKey());
    // A notice goes after any frame (MAC addresses are 48 bits), then by handler, then sender.
    const auto notice = [](uint32_t id, uint32_t from) {
        return Create<ControlArrival>(MakeCallback(&Ignore), id, from, std::vector<int64_t>{})
            ->GetTieKey();
    };
    auto last = PortWithMac("ff:ff:ff:ff:ff:ff");
    EXPECT_LT(Arrival(last, true)->GetTieKey(), notice(0, 0));
    EXPECT_LT(notice(0, 7), notice(1, 0));
    EXPECT_LT(notice(1, 0), notice(1, 1));
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

// The queue against a sorted reference over a random program as a simulator runs it: frame
// arrivals and other events inserted from the current time on (ties, near, far: the radix
// heap's buckets; an arrival for now goes before the instant's later tie keys), taken out,
// peeked at and then preceded by an earlier one (as DistributedSimulatorImpl inserts other
// ranks' frames after peeking), and removed; now and then the queue is emptied and filled
// again.  A simulator numbers its events as it schedules them; with \p someUidsOutOfOrder one in
// 7 comes with a smaller uid than events before it (SetScheduler moving a queue's events to a
// new one inserts them in time order), and the queue must not rely on the order then.
namespace
{

void
RunRandomProgram(bool someUidsOutOfOrder)
{
    std::mt19937_64 rng(7);
    auto scheduler = CreateObject<FabricScheduler>();
    // Frame arrivals at two ports (their tie keys) and a plain event (the maximum).
    const std::vector<Ptr<FabricNetDevice>> ports{PortWithMac("02:00:00:00:00:09"),
                                                  PortWithMac("02:00:00:00:00:03")};
    const std::vector<Ptr<EventImpl>> impls{Arrival(ports[0], true),
                                            Arrival(ports[1], true),
                                            MakeEvent(&Nothing)};
    const std::vector<uint64_t> orders{Arrival(ports[0], true)->GetTieKey(),
                                       Arrival(ports[1], true)->GetTieKey(),
                                       std::numeric_limits<uint64_t>::max()};
    std::set<std::tuple<uint64_t, uint64_t, uint32_t>> reference; // (ts, order, uid)
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> made;       // kind and context by uid
    uint64_t now = 0;
    const auto insert = [&](uint64_t ts) {
        // Even uids in order; an odd one out of order is below those of the 1,000 before it
        // (unique: each odd uid comes from one sequence number).
        const auto seq = static_cast<uint32_t>(made.size());
        const bool outOfOrder = someUidsOutOfOrder && seq > 1000 && seq % 7 == 0;
        const uint32_t uid = outOfOrder ? 2 * seq - 2001 : 2 * seq;
        const uint32_t kind = rng() % impls.size();
        made[uid] = {kind, rng() % 1000};
        Scheduler::Event ev;
        ev.impl = PeekPointer(impls[kind]);
        ev.key.m_ts = ts;
        ev.key.m_uid = uid;
        ev.key.m_context = made[uid].second;
        scheduler->Insert(ev);
        reference.emplace(ts, orders[kind], uid);
    };
    const auto check = [&](const Scheduler::Event& ev) {
        const auto [ts, order, uid] = *reference.begin();
        EXPECT_EQ(ev.key.m_ts, ts);
        EXPECT_EQ(ev.key.m_uid, uid);
        EXPECT_EQ(ev.key.m_context, made[uid].second);
        EXPECT_EQ(ev.impl, PeekPointer(impls[made[uid].first]));
        return ev.key.m_uid == uid;
    };
    // Thousands pending up to a second ahead, so buckets fill several blocks.
    const auto fill = [&] {
        for (uint32_t i = 0; i < 3000; ++i)
        {
            insert(now + rng() % 1000000000000);
        }
    };
    fill();
    std::size_t mostPending = 0;
    uint32_t taken = 0;
    uint32_t early = 0;
    uint32_t emptied = 0;
    for (uint32_t op = 0; op < 200000; ++op)
    {
        ASSERT_EQ(scheduler->IsEmpty(), reference.empty());
        if (op % 40000 == 39999)
        {
            // Empty, and fill again from the last time taken.
            while (!reference.empty())
            {
                const Scheduler::Event ev = scheduler->RemoveNext();
                ASSERT_TRUE(check(ev));
                reference.erase(reference.begin());
                now = ev.key.m_ts;
            }
            ASSERT_TRUE(scheduler->IsEmpty());
            ++emptied;
            fill();
        }
        mostPending = std::max(mostPending, reference.size());
        const uint32_t what = rng() % 16;
        if (what < 7)
        {
            // Now, a few picoseconds, one of three instants a few nanoseconds ahead (ties
            // waiting in buckets, as a collective in step makes), up to a microsecond, or up to
            // a second ahead.
            const uint32_t range = rng() % 5;
            const uint64_t delay = range == 0   ? 0
                                   : range == 1 ? rng() % 16
                                   : range == 2 ? 1000 * (1 + rng() % 3)
                                   : range == 3 ? rng() % 1000000
                                                : rng() % 1000000000000;
            insert(now + delay);
        }
        else if (what < 14 && !reference.empty())
        {
            const Scheduler::Event ev = scheduler->RemoveNext();
            ASSERT_TRUE(check(ev));
            reference.erase(reference.begin());
            now = ev.key.m_ts;
            ++taken;
        }
        else if (what == 14 && !reference.empty())
        {
            const Scheduler::Event next = scheduler->PeekNext();
            ASSERT_TRUE(check(next));
            if (next.key.m_ts > now)
            {
                insert(now + rng() % (next.key.m_ts - now));
                ++early;
            }
        }
        else if (!reference.empty())
        {
            // Simulator::Remove of a random pending event.
            const uint64_t ahead = rng() % 2 == 0 ? rng() % 4000 : rng() % 2000000;
            auto it = reference.lower_bound({now + ahead, 0, 0});
            if (it == reference.end())
            {
                it = reference.begin();
            }
            Scheduler::Event ev;
            ev.key.m_ts = std::get<0>(*it);
            ev.key.m_uid = std::get<2>(*it);
            scheduler->Remove(ev);
            reference.erase(it);
        }
    }
    while (!reference.empty())
    {
        ASSERT_TRUE(check(scheduler->RemoveNext()));
        reference.erase(reference.begin());
    }
    EXPECT_TRUE(scheduler->IsEmpty());
    // The program did what it is for.
    EXPECT_GT(taken, 50000u);
    EXPECT_GT(early, 1000u);
    EXPECT_GT(mostPending, 2500u);
    EXPECT_EQ(emptied, 5u);
}

} // namespace

TEST(EventOrder, ARandomProgramComesOutInTimeOrderAsFromASortedSet)
{
    RunRandomProgram(false);
}

TEST(EventOrder, ARandomProgramWithUidsOutOfOrderComesOutAsFromASortedSet)
{
    RunRandomProgram(true);
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

namespace
{
/** What control-path handlers saw: (time, handler (bound), sender, values). */
using Seen = std::vector<std::tuple<int64_t, uint32_t, uint32_t, std::vector<int64_t>>>;

void
Record(Seen* seen, uint32_t id, uint32_t from, const std::vector<int64_t>& values)
{
    seen->emplace_back(Simulator::Now().GetPicoSeconds(), id, from, values);
}
} // namespace

// One process: a notice reaches its handler exactly its latency after it was sent, with its
// values; notices due at one instant run by handler, then sender, whenever they were sent.
TEST(ControlPath, NoticesArriveTheirLatencyLaterOrderedByHandlerThenSender)
{
    Simulator::SetScheduler(ObjectFactory("ns3::FabricScheduler"));
    auto path = CreateObject<FabricControlPath>();
    EXPECT_EQ(path->GetMinLatency(), Time(0));
    Seen seen;
    const uint32_t a = path->AddHandler(MakeBoundCallback(&Record, &seen, 0u));
    const uint32_t b = path->AddHandler(MakeBoundCallback(&Record, &seen, 1u));
    EXPECT_EQ(a, 0u);
    EXPECT_EQ(b, 1u);
    // Sent at 0: b from 3 and a from 9 due at 10 us; sent at 4 us: a from 2 due at 10 us too,
    // and a from 1 due at 4 us (zero latency).
    path->Broadcast(b, 3, {30}, MicroSeconds(10));
    path->Broadcast(a, 9, {90, -1}, MicroSeconds(10));
    Simulator::Schedule(MicroSeconds(4), [&path]() {
        path->Broadcast(0, 2, {20}, MicroSeconds(6));
        path->Broadcast(0, 1, {}, Time(0));
    });
    Simulator::Run();
    const Seen expected{{4000000, 0, 1, {}},
                        {10000000, 0, 2, {20}},
                        {10000000, 0, 9, {90, -1}},
                        {10000000, 1, 3, {30}}};
    EXPECT_EQ(seen, expected);
    EXPECT_THROW(path->Broadcast(2, 0, {}, Time(0)), std::invalid_argument); // no handler 2
    EXPECT_THROW(path->SetPartition(NodeContainer(), {}, {}, Time(0)), std::logic_error);
    Simulator::Destroy();
}
