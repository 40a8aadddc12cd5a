#include "collective-schedule.h"

#include "ns3/abort.h"

#include <algorithm>
#include <functional>
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
    return Add(rank, {CollectiveStep::SEND, peer, channel, bytes}, deps);
}

uint32_t
CollectiveSchedule::Recv(uint32_t rank, uint32_t peer, uint64_t bytes,
                         const std::vector<uint32_t>& deps, uint32_t channel)
{
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
    const auto& steps = m_steps[rank];
    std::vector<bool> needed(steps.size(), false);
    for (uint32_t d : m_deps[rank])
    {
        needed[d] = true;
    }
    std::vector<uint32_t> sinks;
    for (uint32_t i = 0; i < steps.size(); ++i)
    {
        if (!needed[i])
        {
            sinks.push_back(i);
        }
    }
    return sinks;
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
        const auto& subSteps = sub.m_steps[j];
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
    for (const auto& steps : m_steps)
    {
        n += steps.size();
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
        for (const auto& [peer, channel] : m_peers[r])
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
    for (const auto& s : m_steps[rank])
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
 * Pair the k-th SEND of each direction and channel with the k-th RECV of it, with equal bytes;
 * fills \p edges with (send, recv) pairs in global step numbers.
 */
std::string
MatchMessages(const CollectiveSchedule& schedule, const std::vector<GlobalStep>& base,
              std::vector<std::pair<GlobalStep, GlobalStep>>& edges)
{
    const auto stepsOf = [&schedule](uint32_t r) -> const auto& { return schedule.GetSteps(r); };
    std::map<Direction, std::vector<GlobalStep>> sends;
    std::map<Direction, std::vector<GlobalStep>> recvs;
    for (uint32_t r = 0; r < schedule.GetNRanks(); ++r)
    {
        for (uint32_t i = 0; i < stepsOf(r).size(); ++i)
        {
            const CollectiveStep& s = stepsOf(r)[i];
            if (s.kind == CollectiveStep::SEND)
            {
                sends[{r, s.peer, s.channel}].push_back(base[r] + i);
            }
            else if (s.kind == CollectiveStep::RECV)
            {
                recvs[{s.peer, r, s.channel}].push_back(base[r] + i);
            }
        }
    }
    auto stepOf = [&](uint32_t rank, GlobalStep g) -> const CollectiveStep& {
        return stepsOf(rank)[g - base[rank]];
    };
    std::ostringstream why;
    for (const auto& [dir, list] : sends)
    {
        const auto [from, to, channel] = dir;
        if (!schedule.IsKept(to))
        {
            continue; // another process holds the receiving end
        }
        const auto& matching = recvs[dir];
        if (matching.size() != list.size())
        {
            why << list.size() << " sends from rank " << from << " to rank " << to
                << " on channel " << channel << " but " << matching.size() << " receives";
            return why.str();
        }
        for (std::size_t k = 0; k < list.size(); ++k)
        {
            const uint64_t sent = stepOf(from, list[k]).bytes;
            const uint64_t received = stepOf(to, matching[k]).bytes;
            if (sent != received)
            {
                why << "rank " << from << " step " << list[k] - base[from] << " sends " << sent
                    << " B but rank " << to << " step " << matching[k] - base[to]
                    << " receives " << received << " B";
                return why.str();
            }
            edges.emplace_back(list[k], matching[k]);
        }
    }
    for (const auto& [dir, list] : recvs)
    {
        if (schedule.IsKept(std::get<0>(dir)) && sends.find(dir) == sends.end())
        {
            why << "rank " << std::get<1>(dir) << " receives from rank " << std::get<0>(dir)
                << " on channel " << std::get<2>(dir) << ", which never sends";
            return why.str();
        }
    }
    return "";
}

/** The step graph: a RECV also waits for its SEND.  Successors are one flat list. */
struct StepGraph
{
    std::vector<uint32_t> indegree;
    std::vector<uint32_t> first; //!< successors of g: next[first[g] .. first[g + 1])
    std::vector<GlobalStep> next;
};

StepGraph
BuildStepGraph(const CollectiveSchedule& schedule, const std::vector<GlobalStep>& base,
               const std::vector<std::pair<GlobalStep, GlobalStep>>& edges)
{
    const GlobalStep n = base.back();
    StepGraph graph{std::vector<uint32_t>(n, 0), std::vector<uint32_t>(n + 1, 0), {}};
    auto forEachEdge = [&](const std::function<void(GlobalStep, GlobalStep)>& edge) {
        for (uint32_t r = 0; r < schedule.GetNRanks(); ++r)
        {
            for (uint32_t i = 0; i < schedule.GetSteps(r).size(); ++i)
            {
                for (uint32_t d : schedule.GetDeps(r, i))
                {
                    edge(base[r] + d, base[r] + i);
                }
            }
        }
        for (const auto& [send, recv] : edges)
        {
            edge(send, recv);
        }
    };
    forEachEdge([&](GlobalStep from, GlobalStep to) {
        ++graph.first[from + 1];
        ++graph.indegree[to];
    });
    for (GlobalStep g = 0; g < n; ++g)
    {
        graph.first[g + 1] += graph.first[g];
    }
    graph.next.resize(graph.first[n]);
    std::vector<uint32_t> fill(graph.first.begin(), graph.first.end() - 1);
    forEachEdge([&](GlobalStep from, GlobalStep to) { graph.next[fill[from]++] = to; });
    return graph;
}

/** Kahn's algorithm: the number of steps that can never start (0: no deadlock). */
uint64_t
StepsThatNeverStart(StepGraph graph)
{
    const auto n = static_cast<GlobalStep>(graph.indegree.size());
    std::vector<GlobalStep> ready;
    for (GlobalStep g = 0; g < n; ++g)
    {
        if (graph.indegree[g] == 0)
        {
            ready.push_back(g);
        }
    }
    uint64_t started = 0;
    while (!ready.empty())
    {
        const GlobalStep g = ready.back();
        ready.pop_back();
        ++started;
        for (uint32_t k = graph.first[g]; k < graph.first[g + 1]; ++k)
        {
            if (--graph.indegree[graph.next[k]] == 0)
            {
                ready.push_back(graph.next[k]);
            }
        }
    }
    return n - started;
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
    std::vector<GlobalStep> base(m_steps.size() + 1, 0);
    for (std::size_t r = 0; r < m_steps.size(); ++r)
    {
        base[r + 1] = base[r] + static_cast<GlobalStep>(m_steps[r].size());
    }
    std::vector<std::pair<GlobalStep, GlobalStep>> edges;
    why = MatchMessages(*this, base, edges);
    if (!why.empty())
    {
        return why;
    }
    const uint64_t stuck = StepsThatNeverStart(BuildStepGraph(*this, base, edges));
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
