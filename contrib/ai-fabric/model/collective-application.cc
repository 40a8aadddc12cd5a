#include "collective-application.h"

#include "fabric-simulator-impl.h"
#include "recycled-event.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveApplication");
NS_OBJECT_ENSURE_REGISTERED(CollectiveApplication);

/**
 * A step's timed event (a message's delivery after the hop latency, an engine's reduction or
 * copy), from RecycledEvent's free lists: ns-3's MakeEvent allocates one per step.
 */
class CollectiveApplication::StepEvent final : public RecycledEvent
{
  public:
    StepEvent(CollectiveApplication* app,
              void (CollectiveApplication::*handler)(uint32_t),
              uint32_t step)
        : m_app(app),
          m_handler(handler),
          m_step(step)
    {
    }

  private:
    void Notify() override
    {
        (m_app->*m_handler)(m_step);
    }

    CollectiveApplication* m_app;
    void (CollectiveApplication::*m_handler)(uint32_t);
    uint32_t m_step;
};

void
CollectiveApplication::ScheduleStep(Time delay,
                                    void (CollectiveApplication::*handler)(uint32_t),
                                    uint32_t i)
{
    // Never cancelled: the simulator owns the event (no EventId to make).
    FabricScheduleWithContext(Simulator::GetContext(), delay, new StepEvent(this, handler, i));
}

/** This rank's end of one (peer, channel) connection and the schedule's traffic on it. */
struct CollectiveApplication::Connection
{
    CollectiveApplication* app;
    uint32_t peer;
    uint32_t channel;
    Ptr<MessageQueuePair> qp;
    MessageSteps sends;            //!< the schedule's SEND steps on it, in order
    uint32_t nextPost{0};          //!< next of those to post
    std::deque<uint32_t> inFlight; //!< posted, not yet acknowledged
    MessageSteps recvs;            //!< the schedule's RECV steps on it, in order
    uint32_t nextMatch{0};         //!< the RECV the next arriving message belongs to
    /** Messages (wire bytes, arrival) that arrived before their schedule began. */
    std::deque<std::pair<uint64_t, Time>> early;
    Time hop; //!< the protocol's latency on messages from the peer
    /** Every message's completion (made once: a callback per message costs an allocation). */
    MessageQueuePair::CompletionCallback sent;

    void Sent(uint64_t, uint64_t) { app->MessageSent(*this); }
    void Arrived(uint64_t bytes) { app->MessageArrived(*this, bytes); }
};

TypeId
CollectiveApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveApplication")
            .SetParent<Application>()
            .SetGroupName("AiFabric")
            .AddConstructor<CollectiveApplication>()
            .AddTraceSource("Step",
                            "A step finished: its record (rank, kind, peer, bytes, start, end).",
                            MakeTraceSourceAccessor(&CollectiveApplication::m_stepTrace),
                            "ns3::CollectiveApplication::StepTracedCallback")
            .AddTraceSource("Done",
                            "This rank finished a schedule: rank, start, finish.",
                            MakeTraceSourceAccessor(&CollectiveApplication::m_doneTrace),
                            "ns3::CollectiveApplication::DoneTracedCallback")
            .AddTraceSource("Failed",
                            "A queue pair of this rank exceeded its retry count: the rank stopped.",
                            MakeTraceSourceAccessor(&CollectiveApplication::m_failedTrace),
                            "ns3::CollectiveApplication::FailedTracedCallback");
    return tid;
}

CollectiveApplication::CollectiveApplication() = default;
CollectiveApplication::~CollectiveApplication() = default;

void
CollectiveApplication::DoDispose()
{
    m_engines.clear();
    m_rounds.clear();
    for (auto& c : m_connections)
    {
        c->qp->SetReceiveCallback(MessageQueuePair::ReceiveCallback());
        c->qp->SetErrorCallback(MessageQueuePair::ErrorCallback());
    }
    m_connections.clear();
    m_connectionIndex.clear();
    m_indexSorted = true;
    m_lastConnection = nullptr;
    m_accelerator = nullptr;
    m_failureCallback = Callback<void, uint32_t>(); // it holds the group: break the cycle
    m_pending.clear();
    m_schedule = nullptr;
    Application::DoDispose();
}

void
CollectiveApplication::Setup(uint32_t rank, Ptr<Accelerator> accelerator)
{
    m_rank = rank;
    m_accelerator = accelerator;
}

void
CollectiveApplication::AddConnection(uint32_t peer, uint32_t channel, Ptr<MessageQueuePair> qp)
{
    auto c = std::make_unique<Connection>();
    c->app = this;
    c->peer = peer;
    c->channel = channel;
    c->qp = qp;
    c->sent = MakeCallback(&Connection::Sent, c.get());
    qp->SetReceiveCallback(MakeCallback(&Connection::Arrived, c.get()));
    qp->SetErrorCallback(MakeCallback(&CollectiveApplication::ConnectionFailed, this));
    m_connectionIndex.emplace_back(ConnectionKey(peer, channel), c.get());
    m_indexSorted = false; // sorted at the next search: adding many costs one sort
    m_connections.push_back(std::move(c));
}

CollectiveApplication::Connection*
CollectiveApplication::FindConnection(uint32_t peer, uint32_t channel) const
{
    if (!m_indexSorted)
    {
        std::sort(m_connectionIndex.begin(),
                  m_connectionIndex.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        const auto twice =
            std::adjacent_find(m_connectionIndex.begin(),
                               m_connectionIndex.end(),
                               [](const auto& a, const auto& b) { return a.first == b.first; });
        NS_ABORT_MSG_IF(twice != m_connectionIndex.end(),
                        "rank " << m_rank << " has two connections to " << (twice->first >> 32)
                                << " on channel " << static_cast<uint32_t>(twice->first));
        m_indexSorted = true;
    }
    const uint64_t key = ConnectionKey(peer, channel);
    const auto it = std::lower_bound(m_connectionIndex.begin(),
                                     m_connectionIndex.end(),
                                     key,
                                     [](const auto& entry, uint64_t k) { return entry.first < k; });
    return it != m_connectionIndex.end() && it->first == key ? it->second : nullptr;
}

bool
CollectiveApplication::HasConnection(uint32_t peer, uint32_t channel) const
{
    return FindConnection(peer, channel) != nullptr;
}

Ptr<MessageQueuePair>
CollectiveApplication::GetConnection(uint32_t peer, uint32_t channel) const
{
    const Connection* c = FindConnection(peer, channel);
    return c ? c->qp : nullptr;
}

void
CollectiveApplication::Execute(std::shared_ptr<const CollectiveSchedule> schedule,
                               DoneCallback done)
{
    NS_ABORT_MSG_IF(m_rank >= schedule->GetNRanks(),
                    "rank " << m_rank << " is not in a schedule of " << schedule->GetNRanks());
    for (const Ptr<CollectiveApplication>& engine : m_engines)
    {
        if (engine->GetRank() < schedule->GetNRanks())
        {
            engine->ServeRound(schedule);
        }
    }
    m_pending.push_back({std::move(schedule), done});
    if (m_running && !IsBusy())
    {
        Begin();
    }
}

void
CollectiveApplication::AddEngine(Ptr<CollectiveApplication> engine)
{
    m_engines.push_back(engine);
    ++engine->m_served;
}

void
CollectiveApplication::ServeRound(const std::shared_ptr<const CollectiveSchedule>& schedule)
{
    // The first of the served ranks to run the schedule starts this round on the engine; the
    // last closes the round.
    uint32_t& count = m_rounds[schedule.get()];
    if (count++ == 0)
    {
        Execute(schedule);
    }
    if (count == m_served)
    {
        m_rounds.erase(schedule.get());
    }
}

void
CollectiveApplication::StartApplication()
{
    m_running = true;
    if (!IsBusy() && !m_pending.empty())
    {
        Begin();
    }
}

void
CollectiveApplication::StopApplication()
{
    m_running = false;
}

CollectiveApplication::Connection&
CollectiveApplication::ConnectionOf(const CollectiveStep& step)
{
    if (m_lastConnection && m_lastConnection->peer == step.peer &&
        m_lastConnection->channel == step.channel)
    {
        return *m_lastConnection;
    }
    Connection* c = FindConnection(step.peer, step.channel);
    NS_ABORT_MSG_IF(!c,
                    "rank " << m_rank << " has no connection to rank " << step.peer
                            << " on channel " << step.channel);
    m_lastConnection = c;
    return *c;
}

void
CollectiveApplication::ConnectionFailed()
{
    if (m_failed)
    {
        return;
    }
    NS_LOG_INFO("rank " << m_rank << ": a queue pair failed; the rank stops");
    m_failed = true;
    m_ready.clear();
    m_failedTrace(m_rank);
    if (!m_failureCallback.IsNull())
    {
        m_failureCallback(m_rank);
    }
}

void
CollectiveApplication::Begin()
{
    if (m_failed)
    {
        return;
    }
    m_schedule = m_pending.front().schedule;
    m_done = m_pending.front().done;
    m_pending.pop_front();
    m_started = FabricNow();
    m_launched = false;
    const uint32_t n = m_schedule->GetNSteps(m_rank);
    m_stepsLeft = n;
    // One send budget per channel: the CTA that runs it feeds all of its queue pairs.
    const Ptr<const CollectiveProtocol> protocol = m_schedule->GetProtocol();
    // A steady-state schedule's connection may carry several channels (their budgets too).
    const DataRate channelRate = protocol ? protocol->GetChannelWireRate() *
                                                static_cast<double>(m_schedule->GetChannelsPerConnection())
                                          : DataRate(0);
    std::map<uint32_t, Ptr<SendRateLimiter>> limiters;
    for (auto& c : m_connections)
    {
        Ptr<SendRateLimiter>& limiter = limiters[c->channel];
        if (!limiter && channelRate.GetBitRate() > 0)
        {
            limiter = Create<SendRateLimiter>(channelRate);
        }
        c->qp->SetSendRateLimiter(limiter);
        c->sends = m_schedule->GetMessageSteps(m_rank, CollectiveStep::SEND, c->peer, c->channel);
        c->recvs = m_schedule->GetMessageSteps(m_rank, CollectiveStep::RECV, c->peer, c->channel);
        c->nextPost = c->nextMatch = 0;
        c->hop = m_schedule->GetHopLatency(m_rank, c->peer);
    }
    // Every SEND and RECV must have its connection (else it would never run).
    for (const auto& [peer, channel] : m_schedule->GetPeers(m_rank))
    {
        NS_ABORT_MSG_IF(!HasConnection(peer, channel),
                        "rank " << m_rank << " has no connection to rank " << peer << " on channel "
                                << channel);
    }
    for (auto& c : m_connections)
    {
        while (!c->early.empty() && c->nextMatch < c->recvs.size())
        {
            const auto [bytes, arrival] = c->early.front();
            c->early.pop_front();
            Match(*c, bytes, arrival);
        }
    }
    if (n == 0)
    {
        Simulator::ScheduleNow(&CollectiveApplication::End, this);
        return;
    }
    const Time launch = m_schedule->GetLaunchLatency();
    m_stepsBegan = FabricNow() + launch;
    if (launch.IsStrictlyPositive())
    {
        Simulator::Schedule(launch, &CollectiveApplication::Launch, this);
    }
    else
    {
        Launch();
    }
}

void
CollectiveApplication::Launch()
{
    // The steps without dependencies start in index order: the schedule's start steps, and
    // the RECVs whose messages came before the launch (a RECV without dependencies keeps no
    // state once launched otherwise).  What they release waits on the ready list until all
    // of them have started.
    m_launched = true;
    std::vector<uint32_t> arrived;
    for (uint32_t i : m_live.Keys())
    {
        // Before the launch only arrivals are live.
        if (m_schedule->GetStep(m_rank, i).kind == CollectiveStep::RECV &&
            m_schedule->GetDeps(m_rank, i).empty())
        {
            arrived.push_back(i);
        }
    }
    std::sort(arrived.begin(), arrived.end());
    const std::vector<uint32_t> start = m_schedule->GetStartSteps(m_rank);
    auto s = start.begin();
    auto a = arrived.begin();
    while (!m_failed && (s != start.end() || a != arrived.end()))
    {
        if (a == arrived.end() || (s != start.end() && *s < *a))
        {
            StartStep(*s++);
            continue;
        }
        Live* live = m_live.Find(*a);
        NS_ASSERT(live);
        live->word |= kStarted;
        live->start = FabricNow();
        FinishStep(*a++);
    }
    RunReady();
}

CollectiveApplication::Live&
CollectiveApplication::Touch(uint32_t i)
{
    const auto [live, added] = m_live.Insert(i);
    if (added)
    {
        const std::size_t deps = m_schedule->GetDeps(m_rank, i).size();
        NS_ABORT_MSG_IF(deps > kWaitingMask,
                        "rank " << m_rank << " step " << i << ": " << deps << " dependencies");
        live->word = static_cast<uint32_t>(deps);
    }
    return *live;
}

void
CollectiveApplication::RunReady()
{
    // A worklist, not recursion: a chain of steps that finish at once stays flat.
    while (!m_failed && !m_ready.empty())
    {
        const uint32_t i = m_ready.front();
        m_ready.pop_front();
        StartStep(i);
    }
}

void
CollectiveApplication::StartStep(uint32_t i)
{
    const CollectiveStep step = m_schedule->GetStep(m_rank, i);
    Live& live = Touch(i);
    live.word |= kStarted;
    live.start = FabricNow();
    switch (step.kind)
    {
    case CollectiveStep::SEND:
        PostReadySends(ConnectionOf(step));
        break;
    case CollectiveStep::RECV:
        if (live.word & kArrived)
        {
            FinishStep(i);
        }
        break;
    case CollectiveStep::REDUCE:
        ScheduleStep(m_accelerator->Reduce(step.bytes) - FabricNow(),
                     &CollectiveApplication::Finished,
                     i);
        break;
    case CollectiveStep::COPY:
        ScheduleStep(m_accelerator->Copy(step.bytes) - FabricNow(),
                     &CollectiveApplication::Finished,
                     i);
        break;
    case CollectiveStep::JOIN:
        FinishStep(i);
        break;
    }
}

void
CollectiveApplication::Finished(uint32_t i)
{
    FinishStep(i);
    RunReady();
}

void
CollectiveApplication::PostReadySends(Connection& c)
{
    while (c.nextPost < c.sends.size())
    {
        const uint32_t i = c.sends[c.nextPost];
        const Live* live = m_live.Find(i);
        if (!live || !(live->word & kStarted))
        {
            break;
        }
        ++c.nextPost;
        c.inFlight.push_back(i);
        c.qp->PostSend(m_schedule->WireBytes(m_schedule->GetStep(m_rank, i).bytes, m_rank, c.peer),
                       c.sent);
    }
}

void
CollectiveApplication::MessageSent(Connection& c)
{
    NS_ABORT_MSG_IF(c.inFlight.empty(), "rank " << m_rank << ": an acknowledgement for no send");
    const uint32_t i = c.inFlight.front();
    c.inFlight.pop_front();
    FinishStep(i);
    RunReady();
}

void
CollectiveApplication::MessageArrived(Connection& c, uint64_t bytes)
{
    if (!m_schedule || c.nextMatch >= c.recvs.size())
    {
        c.early.emplace_back(bytes, FabricNow()); // for a schedule not begun yet
        return;
    }
    Match(c, bytes, FabricNow());
}

void
CollectiveApplication::Match(Connection& c, uint64_t bytes, Time arrival)
{
    const uint32_t i = c.recvs[c.nextMatch++];
    const uint64_t expected =
        m_schedule->WireBytes(m_schedule->GetStep(m_rank, i).bytes, c.peer, m_rank);
    NS_ABORT_MSG_IF(bytes != expected, "rank " << m_rank << " step " << i << " expected "
                                               << expected << " B from rank " << c.peer
                                               << " and got " << bytes << " B");
    const Time wait = arrival + c.hop - FabricNow();
    if (wait.IsStrictlyPositive())
    {
        ScheduleStep(wait, &CollectiveApplication::Deliver, i);
    }
    else
    {
        Deliver(i);
    }
}

void
CollectiveApplication::Deliver(uint32_t i)
{
    const Live* live = m_live.Find(i);
    const bool started =
        live ? (live->word & kStarted) != 0 : m_launched && m_schedule->GetDeps(m_rank, i).empty();
    if (!started)
    {
        Touch(i).word |= kArrived;
        return;
    }
    FinishStep(i);
    RunReady();
}

void
CollectiveApplication::FinishStep(uint32_t i)
{
    if (m_failed)
    {
        return;
    }
    const CollectiveStep step = m_schedule->GetStep(m_rank, i);
    Time start = m_stepsBegan; // a RECV without dependencies: the launch
    if (const Live* live = m_live.Find(i))
    {
        start = live->start;
        m_live.Erase(i);
    }
    if (step.kind != CollectiveStep::JOIN) // no work: nothing to trace
    {
        ++m_stepsFinished;
        m_stepTrace(CollectiveStepRecord{m_rank,
                                         i,
                                         step.kind,
                                         step.peer,
                                         step.channel,
                                         step.bytes,
                                         start,
                                         FabricNow()});
    }
    for (uint32_t j : m_schedule->GetDependents(m_rank, i))
    {
        Live& dependent = Touch(j);
        NS_ASSERT((dependent.word & kWaitingMask) != 0);
        if ((--dependent.word & kWaitingMask) != 0)
        {
            continue;
        }
        if (m_schedule->GetStep(m_rank, j).kind == CollectiveStep::JOIN)
        {
            // At once, not through the ready list: what waits on the join becomes ready where
            // it would without it, so the order steps start in does not change.
            StartStep(j);
        }
        else
        {
            m_ready.push_back(j);
        }
    }
    if (--m_stepsLeft == 0)
    {
        // A steady-state schedule's rank ends no sooner than its steps' critical path.
        const Time early = m_stepsBegan + m_schedule->GetCriticalPath(m_rank) - FabricNow();
        if (early.IsStrictlyPositive())
        {
            Simulator::Schedule(early, &CollectiveApplication::End, this);
        }
        else
        {
            Simulator::ScheduleNow(&CollectiveApplication::End, this);
        }
    }
}

void
CollectiveApplication::ReleaseSteps()
{
    m_schedule->ReleaseIndex(m_rank);
    m_live.Clear();
    for (auto& c : m_connections)
    {
        c->sends = MessageSteps();
        c->recvs = MessageSteps();
    }
}

void
CollectiveApplication::End()
{
    m_finished = FabricNow();
    NS_LOG_INFO("rank " << m_rank << " finished " << m_schedule->GetAlgorithm() << " in "
                        << (m_finished - m_started).As(Time::US));
    m_doneTrace(m_rank, m_started, m_finished);
    DoneCallback done = m_done;
    ReleaseSteps();
    m_schedule = nullptr;
    m_done = DoneCallback();
    if (!done.IsNull())
    {
        done(m_rank);
    }
    if (m_running && !IsBusy() && !m_pending.empty())
    {
        Begin();
    }
}

std::size_t
CollectiveApplication::LiveSteps::Home(uint32_t i) const
{
    return static_cast<std::size_t>((i * 0x9E3779B1u) >> m_shift); // Fibonacci hashing
}

CollectiveApplication::Live*
CollectiveApplication::LiveSteps::Find(uint32_t i)
{
    if (m_slots.empty())
    {
        return nullptr;
    }
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t k = Home(i);; k = (k + 1) & mask)
    {
        if (m_slots[k].key == i)
        {
            return &m_slots[k].live;
        }
        if (m_slots[k].key == kEmpty)
        {
            return nullptr;
        }
    }
}

std::pair<CollectiveApplication::Live*, bool>
CollectiveApplication::LiveSteps::Insert(uint32_t i)
{
    NS_ASSERT(i != kEmpty);
    if (Live* live = Find(i))
    {
        return {live, false}; // without growing: a lookup moves no slot
    }
    if (2 * (m_size + 1) > m_slots.size())
    {
        Grow();
    }
    return {Place(i, Live()), true};
}

CollectiveApplication::Live*
CollectiveApplication::LiveSteps::Place(uint32_t i, const Live& live)
{
    const std::size_t mask = m_slots.size() - 1;
    std::size_t k = Home(i);
    while (m_slots[k].key != kEmpty)
    {
        k = (k + 1) & mask;
    }
    m_slots[k] = {i, live};
    ++m_size;
    return &m_slots[k].live;
}

void
CollectiveApplication::LiveSteps::Erase(uint32_t i)
{
    const std::size_t mask = m_slots.size() - 1;
    std::size_t hole = Home(i);
    while (m_slots[hole].key != i)
    {
        NS_ASSERT(m_slots[hole].key != kEmpty);
        hole = (hole + 1) & mask;
    }
    // Backward shift: a later entry of the run moves into the hole unless its probe starts
    // cyclically after the hole (then it is reachable where it is).
    for (std::size_t k = (hole + 1) & mask; m_slots[k].key != kEmpty; k = (k + 1) & mask)
    {
        const std::size_t home = Home(m_slots[k].key);
        const bool stays = hole < k ? (hole < home && home <= k) : (hole < home || home <= k);
        if (!stays)
        {
            m_slots[hole] = m_slots[k];
            hole = k;
        }
    }
    m_slots[hole].key = kEmpty;
    --m_size;
}

std::vector<uint32_t>
CollectiveApplication::LiveSteps::Keys() const
{
    std::vector<uint32_t> keys;
    for (const Slot& slot : m_slots)
    {
        if (slot.key != kEmpty)
        {
            keys.push_back(slot.key);
        }
    }
    return keys;
}

void
CollectiveApplication::LiveSteps::Clear()
{
    std::vector<Slot>().swap(m_slots);
    m_size = 0;
    m_shift = 32;
}

void
CollectiveApplication::LiveSteps::Grow()
{
    std::vector<Slot> old(m_slots.empty() ? 16 : 2 * m_slots.size(), Slot{kEmpty, Live()});
    old.swap(m_slots);
    m_shift = 32 - static_cast<unsigned>(__builtin_ctzll(m_slots.size()));
    m_size = 0;
    for (const Slot& slot : old)
    {
        if (slot.key != kEmpty)
        {
            Place(slot.key, slot.live);
        }
    }
}

} // namespace ns3
