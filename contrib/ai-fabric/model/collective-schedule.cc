#include "collective-schedule.h"

#include "ns3/abort.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{
struct OperationName
{
    CollectiveOperation op;
    const char* name;
};
constexpr OperationName kOperations[] = {
    {ALL_REDUCE, "allreduce"}, {REDUCE_SCATTER, "reducescatter"}, {ALL_GATHER, "allgather"},
    {BROADCAST, "broadcast"},  {REDUCE, "reduce"},                {ALL_TO_ALL, "alltoall"},
};

/** Key of one direction of one connection: (from, to, channel). */
using Direction = std::tuple<uint32_t, uint32_t, uint32_t>;
} // namespace

const char*
CollectiveOperationName(CollectiveOperation op)
{
    for (const auto& o : kOperations)
    {
        if (o.op == op)
        {
            return o.name;
        }
    }
    return "?";
}

bool
ParseCollectiveOperation(const std::string& name, CollectiveOperation& op)
{
    for (const auto& o : kOperations)
    {
        if (name == o.name)
        {
            op = o.op;
            return true;
        }
    }
    return false;
}

std::string
CollectiveOperationNames()
{
    std::string names;
    for (const auto& o : kOperations)
    {
        names += (names.empty() ? "" : ", ") + std::string(o.name);
    }
    return names;
}

double
BusBandwidthFactor(CollectiveOperation op, uint32_t ranks)
{
    const double n = ranks;
    switch (op)
    {
    case ALL_REDUCE:
        return 2 * (n - 1) / n;
    case REDUCE_SCATTER:
    case ALL_GATHER:
    case ALL_TO_ALL:
        return (n - 1) / n;
    case BROADCAST:
    case REDUCE:
        return 1;
    }
    return 1;
}

const char*
CollectiveStep::KindName(Kind k)
{
    switch (k)
    {
    case SEND:
        return "send";
    case RECV:
        return "recv";
    case REDUCE:
        return "reduce";
    case COPY:
        return "copy";
    case JOIN:
        return "join";
    }
    return "?";
}

CollectiveSchedule::CollectiveSchedule(CollectiveOperation op, uint64_t bytes, uint32_t ranks)
    : m_op(op),
      m_bytes(bytes),
      m_steps(ranks),
      m_depsEnd(ranks),
      m_deps(ranks),
      m_count(ranks, 0),
      m_peers(ranks)
{
    NS_ABORT_MSG_IF(ranks >= (1U << 24), "CollectiveSchedule: " << ranks << " ranks; at most 2^24");
}

CollectiveSchedule::CollectiveSchedule(const CollectiveRequest& request, bool engines)
    : CollectiveSchedule(request.op,
                         request.bytes,
                         request.ranks +
                             (engines ? static_cast<uint32_t>(request.engineServers.size()) : 0))
{
    const std::size_t all = request.ranks + request.engineServers.size();
    NS_ABORT_MSG_IF(!request.simulatedRanks.empty() && request.simulatedRanks.size() != request.ranks &&
                        request.simulatedRanks.size() != all,
                    "CollectiveSchedule: simulatedRanks names " << request.simulatedRanks.size()
                                                                << " ranks of " << request.ranks);
    m_kept = request.simulatedRanks;
    m_kept.resize(m_kept.empty() ? 0 : GetNRanks(), true);
    m_protocol = request.protocol;
    for (const RankPlacement& place : request.placement)
    {
        m_server.push_back(place.server);
    }
    if (engines)
    {
        m_engineRanks = request.ranks;
    }
    if (engines && !m_server.empty())
    {
        m_server.insert(m_server.end(), request.engineServers.begin(), request.engineServers.end());
    }
}

Time
CollectiveSchedule::GetHopLatency(uint32_t rank, uint32_t peer) const
{
    if (!m_protocol)
    {
        return Time();
    }
    const bool sameServer = !m_server.empty() && m_server[rank] == m_server[peer];
    if (m_algorithmLatencies)
    {
        if (rank >= m_engineRanks || peer >= m_engineRanks)
        {
            return m_engineHop;
        }
        if (!sameServer)
        {
            return m_netHop;
        }
    }
    return m_protocol->GetHopLatency(sameServer);
}

Time
CollectiveSchedule::GetLaunchLatency() const
{
    if (!m_protocol)
    {
        return Time();
    }
    return m_algorithmLatencies ? m_launch : m_protocol->GetLaunchLatency();
}

void
CollectiveSchedule::SetAlgorithmLatencies(Time launch, Time engineHop, Time netHop)
{
    if (!m_protocol || m_protocol->GetShortName() == "ideal")
    {
        return; // data alone, no latency
    }
    m_algorithmLatencies = true;
    m_launch = launch;
    m_engineHop = engineHop;
    m_netHop = netHop;
}

uint32_t
CollectiveSchedule::Append(uint32_t rank,
                           const CollectiveStep& step,
                           const uint32_t* deps,
                           const uint32_t* depsEnd,
                           uint32_t shift)
{
    NS_ABORT_MSG_IF(rank >= m_steps.size(), "CollectiveSchedule: no rank " << rank);
    NS_ABORT_MSG_IF(m_generator, "CollectiveSchedule: adding a step to a generated schedule");
    if (!m_index.empty())
    {
        m_index.clear(); // the steps change
    }
    if (step.kind == CollectiveStep::SEND || step.kind == CollectiveStep::RECV)
    {
        auto& peers = m_peers[rank];
        const std::pair<uint32_t, uint32_t> link{step.peer, step.channel};
        if (std::find(peers.begin(), peers.end(), link) == peers.end())
        {
            peers.push_back(link);
        }
    }
    if (!IsKept(rank))
    {
        return m_count[rank]++;
    }
    auto& list = m_deps[rank];
    for (const uint32_t* d = deps; d != depsEnd; ++d)
    {
        list.push_back(*d + shift);
    }
    m_depsEnd[rank].push_back(static_cast<uint32_t>(list.size()));
    m_steps[rank].push_back(step);
    return m_count[rank]++;
}

void
CollectiveSchedule::CheckPeer(uint32_t peer)
{
    // A peer past 2^24 would wrap in CollectiveStep's 24 bits, out of Validate's sight.
    NS_ABORT_MSG_IF(peer >= (1U << 24), "CollectiveSchedule: peer " << peer << " is past 2^24");
}

uint32_t
CollectiveSchedule::Add(uint32_t rank, const CollectiveStep& step, const std::vector<uint32_t>& deps)
{
    return Append(rank, step, deps.data(), deps.data() + deps.size(), 0);
}

void
CollectiveSchedule::ShrinkToFit()
{
    for (uint32_t r = 0; r < m_steps.size(); ++r)
    {
        m_steps[r].shrink_to_fit();
        m_depsEnd[r].shrink_to_fit();
        m_deps[r].shrink_to_fit();
    }
}

uint32_t
CollectiveSchedule::Send(uint32_t rank, uint32_t peer, uint64_t bytes,
                         const std::vector<uint32_t>& deps, uint32_t channel)
{
    CheckPeer(peer);
    return Add(rank, {CollectiveStep::SEND, peer, channel, bytes}, deps);
}

uint32_t
CollectiveSchedule::Recv(uint32_t rank, uint32_t peer, uint64_t bytes,
                         const std::vector<uint32_t>& deps, uint32_t channel)
{
    CheckPeer(peer);
    return Add(rank, {CollectiveStep::RECV, peer, channel, bytes}, deps);
}

uint32_t
CollectiveSchedule::Reduce(uint32_t rank, uint64_t bytes, const std::vector<uint32_t>& deps)
{
    return Add(rank, {CollectiveStep::REDUCE, 0, 0, bytes}, deps);
}

uint32_t
CollectiveSchedule::Copy(uint32_t rank, uint64_t bytes, const std::vector<uint32_t>& deps)
{
    return Add(rank, {CollectiveStep::COPY, 0, 0, bytes}, deps);
}

uint32_t
CollectiveSchedule::Join(uint32_t rank, const std::vector<uint32_t>& deps)
{
    return Add(rank, {CollectiveStep::JOIN, 0, 0, 0}, deps);
}

std::vector<uint32_t>
CollectiveSchedule::GetSinks(uint32_t rank) const
{
    const uint32_t n = GetNSteps(rank);
    std::vector<bool> needed(n, false);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : GetDeps(rank, i))
        {
            needed[d] = true;
        }
    }
    std::vector<uint32_t> sinks;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (!needed[i])
        {
            sinks.push_back(i);
        }
    }
    return sinks;
}

void
CollectiveSchedule::IndexDependents(uint32_t rank, RankIndex& index) const
{
    const uint32_t n = GetNSteps(rank);
    // Filled from the end of each list (dependentsBegin[d + 1] counts down to d's start), so
    // they come out ascending without a cursor copy, then shifted back.
    index.dependentsBegin.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : GetDeps(rank, i))
        {
            ++index.dependentsBegin[d + 1];
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        index.dependentsBegin[i + 1] += index.dependentsBegin[i];
    }
    index.dependents.assign(index.dependentsBegin[n], 0);
    for (uint32_t i = n; i-- > 0;)
    {
        for (uint32_t d : GetDeps(rank, i))
        {
            index.dependents[--index.dependentsBegin[d + 1]] = i;
        }
    }
    std::copy(index.dependentsBegin.begin() + 1,
              index.dependentsBegin.end(),
              index.dependentsBegin.begin());
    index.dependentsBegin[n] = static_cast<uint32_t>(index.dependents.size());
}

void
CollectiveSchedule::IndexMessages(uint32_t rank, RankIndex& index) const
{
    // One flat list sorted by (connection, step), not a container per connection: an
    // all-to-all rank has one per peer.
    using Key = std::tuple<uint8_t, uint32_t, uint32_t>;
    std::vector<std::pair<Key, uint32_t>> all;
    for (uint32_t i = 0; i < GetNSteps(rank); ++i)
    {
        const CollectiveStep s = GetStep(rank, i);
        if (s.kind == CollectiveStep::SEND || s.kind == CollectiveStep::RECV)
        {
            all.emplace_back(Key{s.kind, s.peer, s.channel}, i);
        }
    }
    std::sort(all.begin(), all.end());
    index.messageSteps.reserve(all.size());
    for (const auto& [key, step] : all)
    {
        if (index.messageKeys.empty() || index.messageKeys.back().first != key)
        {
            index.messageKeys.emplace_back(key, static_cast<uint32_t>(index.messageSteps.size()));
        }
        index.messageSteps.push_back(step);
    }
}

const CollectiveSchedule::RankIndex&
CollectiveSchedule::IndexOf(uint32_t rank) const
{
    m_index.resize(GetNRanks());
    if (!m_index[rank])
    {
        auto index = std::make_shared<RankIndex>();
        IndexDependents(rank, *index);
        IndexMessages(rank, *index);
        m_index[rank] = std::move(index);
    }
    return *m_index[rank];
}

void
CollectiveSchedule::ReleaseIndex(uint32_t rank) const
{
    if (rank < m_index.size())
    {
        m_index[rank] = nullptr;
    }
}

StepDeps
CollectiveSchedule::GetDependents(uint32_t rank, uint32_t step) const
{
    if (m_generator)
    {
        return m_generator->GetDependents(rank, step);
    }
    const RankIndex& index = IndexOf(rank);
    const uint32_t* list = index.dependents.data();
    return {list + index.dependentsBegin[step], list + index.dependentsBegin[step + 1]};
}

MessageSteps
CollectiveSchedule::GetMessageSteps(uint32_t rank,
                                    CollectiveStep::Kind kind,
                                    uint32_t peer,
                                    uint32_t channel) const
{
    if (m_generator)
    {
        return IsKept(rank) ? MessageSteps(m_generator.get(), rank, kind, peer, channel)
                            : MessageSteps();
    }
    const RankIndex& index = IndexOf(rank);
    const std::tuple<uint8_t, uint32_t, uint32_t> key{kind, peer, channel};
    const auto it =
        std::lower_bound(index.messageKeys.begin(),
                         index.messageKeys.end(),
                         key,
                         [](const auto& entry, const auto& k) { return entry.first < k; });
    if (it == index.messageKeys.end() || it->first != key)
    {
        return {};
    }
    const uint32_t end = it + 1 == index.messageKeys.end()
                             ? static_cast<uint32_t>(index.messageSteps.size())
                             : (it + 1)->second;
    return {index.messageSteps.data() + it->second, end - it->second};
}

void
CollectiveSchedule::SetGenerator(std::shared_ptr<const StepGenerator> generator)
{
    NS_ABORT_MSG_IF(std::any_of(m_count.begin(), m_count.end(), [](uint32_t n) { return n != 0; }),
                    "CollectiveSchedule::SetGenerator: the schedule has steps already");
    m_generator = std::move(generator);
    m_index.clear();
}

std::vector<std::vector<uint32_t>>
CollectiveSchedule::Embed(const CollectiveSchedule& sub, const std::vector<uint32_t>& ranks,
                          const std::vector<std::vector<uint32_t>>& after, uint32_t channelOffset)
{
    NS_ABORT_MSG_IF(sub.GetNRanks() != ranks.size() || after.size() != ranks.size(),
                    "CollectiveSchedule::Embed: rank counts");
    std::vector<std::vector<uint32_t>> sinks(ranks.size());
    for (uint32_t j = 0; j < ranks.size(); ++j)
    {
        const uint32_t rank = ranks[j];
        const StepRange subSteps = sub.GetSteps(j);
        uint32_t sources = 0;
        for (uint32_t i = 0; i < subSteps.size(); ++i)
        {
            sources += sub.GetDeps(j, i).empty() ? 1 : 0;
        }
        std::vector<uint32_t> wait = after[j];
        if (wait.size() > 1 && sources > 1)
        {
            wait = {Join(rank, wait)};
        }
        const uint32_t offset = m_count[rank];
        for (uint32_t i = 0; i < subSteps.size(); ++i)
        {
            CollectiveStep step = subSteps[i];
            if (step.kind == CollectiveStep::SEND || step.kind == CollectiveStep::RECV)
            {
                CheckPeer(ranks[step.peer]);
                step.peer = ranks[step.peer];
                step.channel += channelOffset;
            }
            const StepDeps deps = sub.GetDeps(j, i);
            if (deps.empty())
            {
                Append(rank, step, wait.data(), wait.data() + wait.size(), 0);
            }
            else
            {
                Append(rank, step, deps.begin(), deps.end(), offset);
            }
        }
        for (uint32_t i : sub.GetSinks(j))
        {
            sinks[j].push_back(offset + i);
        }
    }
    return sinks;
}

std::vector<uint32_t>
CollectiveSchedule::GetStartSteps(uint32_t rank) const
{
    if (m_generator)
    {
        return IsKept(rank) ? m_generator->GetStartSteps(rank) : std::vector<uint32_t>{};
    }
    std::vector<uint32_t> start;
    const uint32_t n = GetNSteps(rank);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (GetDeps(rank, i).empty() && m_steps[rank][i].kind != CollectiveStep::RECV)
        {
            start.push_back(i);
        }
    }
    return start;
}

std::vector<std::pair<uint32_t, uint32_t>>
CollectiveSchedule::GetPeers(uint32_t rank) const
{
    return m_generator ? m_generator->GetPeers(rank) : m_peers[rank];
}

void
CollectiveSchedule::ClearSteps()
{
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        // Released, not just emptied: a large schedule's steps are most of its memory.
        std::vector<CollectiveStep>().swap(m_steps[r]);
        std::vector<uint32_t>().swap(m_depsEnd[r]);
        std::vector<uint32_t>().swap(m_deps[r]);
        std::vector<std::pair<uint32_t, uint32_t>>().swap(m_peers[r]);
        m_count[r] = 0;
    }
    m_generator = nullptr;
    m_index.clear();
    m_path.clear();
    m_channelsPerConnection = 1;
}

void
CollectiveSchedule::SetCriticalPath(uint32_t rank, Time path)
{
    m_path.resize(GetNRanks());
    m_path.at(rank) = path;
}

uint64_t
CollectiveSchedule::GetNSteps() const
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        n += GetNSteps(r);
    }
    return n;
}

std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>
CollectiveSchedule::GetConnections() const
{
    // Rank by rank, in each rank's order of first use (kept ranks or not).
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> seen;
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> connections;
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        for (const auto& [peer, channel] : GetPeers(r))
        {
            auto key = std::make_tuple(std::min(r, peer), std::max(r, peer), channel);
            if (seen.insert(key).second)
            {
                connections.push_back(key);
            }
        }
    }
    return connections;
}

uint64_t
CollectiveSchedule::GetBytesSent(uint32_t rank) const
{
    uint64_t bytes = 0;
    for (const CollectiveStep s : GetSteps(rank))
    {
        bytes += s.kind == CollectiveStep::SEND ? s.bytes : 0;
    }
    return bytes;
}

namespace
{
/** Steps numbered across ranks: rank r's step i is base[r] + i. */
using GlobalStep = uint32_t;

/** Local checks: dependencies point backwards, peers are other ranks. */
std::string
CheckSteps(const CollectiveSchedule& schedule)
{
    const uint32_t ranks = schedule.GetNRanks();
    std::ostringstream why;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        const auto& steps = schedule.GetSteps(r);
        for (uint32_t i = 0; i < steps.size(); ++i)
        {
            const CollectiveStep& s = steps[i];
            for (uint32_t d : schedule.GetDeps(r, i))
            {
                if (d >= i)
                {
                    why << "rank " << r << " step " << i << " depends on later step " << d;
                    return why.str();
                }
            }
            const bool comm = s.kind == CollectiveStep::SEND || s.kind == CollectiveStep::RECV;
            if (comm && (s.peer >= ranks || s.peer == r))
            {
                why << "rank " << r << " step " << i << " has peer " << s.peer;
                return why.str();
            }
        }
    }
    return "";
}

/**
 * The messages of one schedule by direction (from, to, channel): each direction's SEND steps
 * and RECV steps in order, as global step numbers, in two flat lists (4 bytes a step).
 */
struct Messages
{
    std::map<Direction, uint32_t> index; //!< each direction's number
    std::vector<Direction> directions;
    std::vector<uint32_t> sendFirst; //!< direction d's sends: sends[sendFirst[d] .. [d + 1])
    std::vector<GlobalStep> sends;
    std::vector<uint32_t> recvFirst;
    std::vector<GlobalStep> recvs;
};

/** The direction a SEND or RECV of \p rank uses. */
Direction
DirectionOf(uint32_t rank, const CollectiveStep& s)
{
    return s.kind == CollectiveStep::SEND ? Direction{rank, s.peer, s.channel}
                                          : Direction{s.peer, rank, s.channel};
}

Messages
SortMessages(const CollectiveSchedule& schedule, const std::vector<GlobalStep>& base)
{
    Messages m;
    std::map<Direction, uint32_t>& index = m.index;
    std::vector<uint32_t> sendCount;
    std::vector<uint32_t> recvCount;
    std::vector<uint32_t> stepDirection; // per comm step, in step order
    for (uint32_t r = 0; r < schedule.GetNRanks(); ++r)
    {
        for (const CollectiveStep& s : schedule.GetSteps(r))
        {
            if (s.kind != CollectiveStep::SEND && s.kind != CollectiveStep::RECV)
            {
                continue;
            }
            const auto [it, added] =
                index.try_emplace(DirectionOf(r, s), static_cast<uint32_t>(m.directions.size()));
            if (added)
            {
                m.directions.push_back(it->first);
                sendCount.push_back(0);
                recvCount.push_back(0);
            }
            ++(s.kind == CollectiveStep::SEND ? sendCount : recvCount)[it->second];
            stepDirection.push_back(it->second);
        }
    }
    const auto offsets = [](const std::vector<uint32_t>& count) {
        std::vector<uint32_t> first(count.size() + 1, 0);
        for (std::size_t d = 0; d < count.size(); ++d)
        {
            first[d + 1] = first[d] + count[d];
        }
        return first;
    };
    m.sendFirst = offsets(sendCount);
    m.recvFirst = offsets(recvCount);
    m.sends.resize(m.sendFirst.back());
    m.recvs.resize(m.recvFirst.back());
    std::copy(m.sendFirst.begin(), m.sendFirst.end() - 1, sendCount.begin());
    std::copy(m.recvFirst.begin(), m.recvFirst.end() - 1, recvCount.begin());
    std::size_t next = 0;
    for (uint32_t r = 0; r < schedule.GetNRanks(); ++r)
    {
        const auto& steps = schedule.GetSteps(r);
        for (uint32_t i = 0; i < steps.size(); ++i)
        {
            if (steps[i].kind == CollectiveStep::SEND)
            {
                m.sends[sendCount[stepDirection[next++]]++] = base[r] + i;
            }
            else if (steps[i].kind == CollectiveStep::RECV)
            {
                m.recvs[recvCount[stepDirection[next++]]++] = base[r] + i;
            }
        }
    }
    return m;
}

/**
 * The k-th SEND of each direction must have a k-th RECV of it, with equal bytes (when the
 * receiver is kept), and a kept rank receives only from ranks that send to it.
 */
std::string
MatchMessages(const CollectiveSchedule& schedule, const std::vector<GlobalStep>& base,
              const Messages& m)
{
    const auto bytesOf = [&](uint32_t rank, GlobalStep g) {
        return schedule.GetSteps(rank)[g - base[rank]].bytes;
    };
    std::ostringstream why;
    for (uint32_t d = 0; d < m.directions.size(); ++d)
    {
        const auto [from, to, channel] = m.directions[d];
        const uint32_t sends = m.sendFirst[d + 1] - m.sendFirst[d];
        const uint32_t recvs = m.recvFirst[d + 1] - m.recvFirst[d];
        if (sends == 0)
        {
            if (schedule.IsKept(from))
            {
                why << "rank " << to << " receives from rank " << from << " on channel "
                    << channel << ", which never sends";
                return why.str();
            }
            continue; // another process holds the sending end
        }
        if (!schedule.IsKept(to))
        {
            continue; // another process holds the receiving end
        }
        if (recvs != sends)
        {
            why << sends << " sends from rank " << from << " to rank " << to << " on channel "
                << channel << " but " << recvs << " receives";
            return why.str();
        }
        for (uint32_t k = 0; k < sends; ++k)
        {
            const GlobalStep send = m.sends[m.sendFirst[d] + k];
            const GlobalStep recv = m.recvs[m.recvFirst[d] + k];
            if (bytesOf(from, send) != bytesOf(to, recv))
            {
                why << "rank " << from << " step " << send - base[from] << " sends "
                    << bytesOf(from, send) << " B but rank " << to << " step " << recv - base[to]
                    << " receives " << bytesOf(to, recv) << " B";
                return why.str();
            }
        }
    }
    return "";
}

/**
 * Kahn's algorithm over the steps as the executor runs them: a step waits for its
 * dependencies; a RECV also for its message's SEND (when the sender is kept); and a SEND for
 * the SEND before it in its direction, since a queue pair posts its messages in schedule order.
 * Returns the number of steps that can never start (0: no deadlock).
 */
uint64_t
StepsThatNeverStart(const CollectiveSchedule& schedule, const std::vector<GlobalStep>& base,
                    const Messages& m)
{
    const GlobalStep n = base.back();
    // Dependents within each rank, as one flat list: first[g] .. first[g + 1].
    std::vector<uint32_t> waiting(n, 0);
    std::vector<uint32_t> first(n + 1, 0);
    for (uint32_t r = 0; r < schedule.GetNRanks(); ++r)
    {
        for (uint32_t i = 0; i < schedule.GetSteps(r).size(); ++i)
        {
            for (uint32_t d : schedule.GetDeps(r, i))
            {
                ++first[base[r] + d + 1];
                ++waiting[base[r] + i];
            }
        }
    }
    for (GlobalStep g = 0; g < n; ++g)
    {
        first[g + 1] += first[g];
    }
    // Filled from each list's end (first[g + 1] counts down to g's start), then shifted back,
    // so that no copy of first is needed as a cursor: this runs on millions of steps.
    std::vector<GlobalStep> next(first[n]);
    for (uint32_t r = 0; r < schedule.GetNRanks(); ++r)
    {
        for (uint32_t i = 0; i < schedule.GetSteps(r).size(); ++i)
        {
            for (uint32_t d : schedule.GetDeps(r, i))
            {
                next[--first[base[r] + d + 1]] = base[r] + i;
            }
        }
    }
    std::copy(first.begin() + 1, first.end(), first.begin());
    first[n] = static_cast<uint32_t>(next.size());
    // Per direction, the number of its SENDs started.
    std::vector<uint32_t> started(m.directions.size(), 0);
    for (uint32_t d = 0; d < m.directions.size(); ++d)
    {
        const auto [from, to, channel] = m.directions[d];
        for (uint32_t k = m.sendFirst[d]; k < m.sendFirst[d + 1]; ++k)
        {
            waiting[m.sends[k]] += k > m.sendFirst[d] ? 1 : 0;
        }
        if (schedule.IsKept(from))
        {
            for (uint32_t k = m.recvFirst[d]; k < m.recvFirst[d + 1]; ++k)
            {
                ++waiting[m.recvs[k]];
            }
        }
    }
    std::vector<GlobalStep> ready;
    for (GlobalStep g = 0; g < n; ++g)
    {
        if (waiting[g] == 0)
        {
            ready.push_back(g);
        }
    }
    const auto release = [&](GlobalStep g) {
        if (--waiting[g] == 0)
        {
            ready.push_back(g);
        }
    };
    uint64_t done = 0;
    while (!ready.empty())
    {
        const GlobalStep g = ready.back();
        ready.pop_back();
        ++done;
        for (uint32_t k = first[g]; k < first[g + 1]; ++k)
        {
            release(next[k]);
        }
        const auto rank = static_cast<uint32_t>(
            std::upper_bound(base.begin(), base.end(), g) - base.begin() - 1);
        const CollectiveStep& step = schedule.GetSteps(rank)[g - base[rank]];
        if (step.kind != CollectiveStep::SEND)
        {
            continue;
        }
        const uint32_t d = m.index.at(DirectionOf(rank, step));
        // Sends of a direction start in order, so this is its started[d]-th.
        const uint32_t k = started[d]++;
        if (m.sendFirst[d] + k + 1 < m.sendFirst[d + 1])
        {
            release(m.sends[m.sendFirst[d] + k + 1]);
        }
        if (schedule.IsKept(std::get<1>(m.directions[d])) &&
            m.recvFirst[d] + k < m.recvFirst[d + 1])
        {
            release(m.recvs[m.recvFirst[d] + k]);
        }
    }
    return n - done;
}
} // namespace

std::string
CollectiveSchedule::Validate() const
{
    std::string why = CheckSteps(*this);
    if (!why.empty())
    {
        return why;
    }
    // Global step numbers are 32 bits: a schedule past that is refused, not wrapped (it would
    // hold over 64 GiB of steps).
    if (GetNSteps() > std::numeric_limits<GlobalStep>::max())
    {
        return std::to_string(GetNSteps()) + " steps: more than Validate numbers (2^32 - 1)";
    }
    std::vector<GlobalStep> base(GetNRanks() + 1, 0);
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        base[r + 1] = base[r] + GetNSteps(r);
    }
    const Messages messages = SortMessages(*this, base);
    why = MatchMessages(*this, base, messages);
    if (!why.empty())
    {
        return why;
    }
    const uint64_t stuck = StepsThatNeverStart(*this, base, messages);
    return stuck == 0 ? "" : "deadlock: " + std::to_string(stuck) + " steps can never start";
}

uint64_t
SplitPiece(uint64_t bytes, uint32_t parts, uint32_t index, uint32_t elementBytes)
{
    NS_ABORT_MSG_IF(parts == 0 || index >= parts || elementBytes == 0 || bytes % elementBytes != 0,
                    "SplitPiece: piece " << index << " of " << bytes << " B in " << parts
                                         << " parts of " << elementBytes << " B elements");
    const uint64_t elements = bytes / elementBytes;
    return (elements / parts + (index < elements % parts ? 1 : 0)) * elementBytes;
}

std::vector<uint64_t>
SplitBytes(uint64_t bytes, uint32_t parts, uint32_t elementBytes)
{
    std::vector<uint64_t> pieces;
    for (uint32_t i = 0; i < parts; ++i)
    {
        pieces.push_back(SplitPiece(bytes, parts, i, elementBytes));
    }
    return pieces;
}

} // namespace ns3
