#include "collective-schedule.h"

#include "ns3/abort.h"

#include <map>
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
    }
    return "?";
}

CollectiveSchedule::CollectiveSchedule(CollectiveOperation op, uint64_t bytes, uint32_t ranks)
    : m_op(op),
      m_bytes(bytes),
      m_steps(ranks)
{
}

uint32_t
CollectiveSchedule::Add(uint32_t rank, CollectiveStep step)
{
    NS_ABORT_MSG_IF(rank >= m_steps.size(), "CollectiveSchedule: no rank " << rank);
    m_steps[rank].push_back(std::move(step));
    return static_cast<uint32_t>(m_steps[rank].size() - 1);
}

void
CollectiveSchedule::ShrinkToFit()
{
    for (auto& steps : m_steps)
    {
        steps.shrink_to_fit();
        for (auto& step : steps)
        {
            step.deps.shrink_to_fit();
        }
    }
}

uint32_t
CollectiveSchedule::Send(uint32_t rank, uint32_t peer, uint64_t bytes, std::vector<uint32_t> deps,
                         uint32_t channel)
{
    return Add(rank, {CollectiveStep::SEND, peer, channel, bytes, std::move(deps)});
}

uint32_t
CollectiveSchedule::Recv(uint32_t rank, uint32_t peer, uint64_t bytes, std::vector<uint32_t> deps,
                         uint32_t channel)
{
    return Add(rank, {CollectiveStep::RECV, peer, channel, bytes, std::move(deps)});
}

uint32_t
CollectiveSchedule::Reduce(uint32_t rank, uint64_t bytes, std::vector<uint32_t> deps)
{
    return Add(rank, {CollectiveStep::REDUCE, 0, 0, bytes, std::move(deps)});
}

uint32_t
CollectiveSchedule::Copy(uint32_t rank, uint64_t bytes, std::vector<uint32_t> deps)
{
    return Add(rank, {CollectiveStep::COPY, 0, 0, bytes, std::move(deps)});
}

std::vector<uint32_t>
CollectiveSchedule::GetSinks(uint32_t rank) const
{
    const auto& steps = m_steps[rank];
    std::vector<bool> needed(steps.size(), false);
    for (const auto& step : steps)
    {
        for (uint32_t d : step.deps)
        {
            needed[d] = true;
        }
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
        const auto offset = static_cast<uint32_t>(m_steps[rank].size());
        for (CollectiveStep step : sub.m_steps[j])
        {
            if (step.deps.empty())
            {
                step.deps = after[j];
            }
            else
            {
                for (uint32_t& d : step.deps)
                {
                    d += offset;
                }
            }
            if (step.kind == CollectiveStep::SEND || step.kind == CollectiveStep::RECV)
            {
                step.peer = ranks[step.peer];
                step.channel += channelOffset;
            }
            m_steps[rank].push_back(std::move(step));
        }
        for (uint32_t i : sub.GetSinks(j))
        {
            sinks[j].push_back(offset + i);
        }
    }
    return sinks;
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
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool> seen;
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> connections;
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        for (const auto& s : m_steps[r])
        {
            if (s.kind != CollectiveStep::SEND && s.kind != CollectiveStep::RECV)
            {
                continue;
            }
            auto key = std::make_tuple(std::min(r, s.peer), std::max(r, s.peer), s.channel);
            if (!seen[key])
            {
                seen[key] = true;
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

std::string
CollectiveSchedule::Validate() const
{
    const uint32_t ranks = GetNRanks();
    std::ostringstream why;
    // Pair each SEND with its RECV by order per direction; the pairs are the cross-rank edges.
    std::map<Direction, std::vector<std::pair<uint32_t, uint32_t>>> sends, recvs; // (rank, step)
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t i = 0; i < m_steps[r].size(); ++i)
        {
            const CollectiveStep& s = m_steps[r][i];
            for (uint32_t d : s.deps)
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
            if (s.kind == CollectiveStep::SEND)
            {
                sends[{r, s.peer, s.channel}].push_back({r, i});
            }
            else if (s.kind == CollectiveStep::RECV)
            {
                recvs[{s.peer, r, s.channel}].push_back({r, i});
            }
        }
    }
    // In-degree per step: its own dependencies, plus one for a RECV (its SEND).
    std::vector<std::vector<uint32_t>> indegree(ranks);
    std::vector<std::vector<std::vector<std::pair<uint32_t, uint32_t>>>> next(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        indegree[r].resize(m_steps[r].size());
        next[r].resize(m_steps[r].size());
        for (uint32_t i = 0; i < m_steps[r].size(); ++i)
        {
            for (uint32_t d : m_steps[r][i].deps)
            {
                ++indegree[r][i];
                next[r][d].push_back({r, i});
            }
        }
    }
    for (const auto& [dir, list] : sends)
    {
        const auto& matching = recvs[dir];
        if (matching.size() != list.size())
        {
            why << list.size() << " sends from rank " << std::get<0>(dir) << " to rank "
                << std::get<1>(dir) << " on channel " << std::get<2>(dir) << " but "
                << matching.size() << " receives";
            return why.str();
        }
        for (std::size_t k = 0; k < list.size(); ++k)
        {
            const auto [sr, si] = list[k];
            const auto [rr, ri] = matching[k];
            if (m_steps[sr][si].bytes != m_steps[rr][ri].bytes)
            {
                why << "rank " << sr << " step " << si << " sends " << m_steps[sr][si].bytes
                    << " B but rank " << rr << " step " << ri << " receives "
                    << m_steps[rr][ri].bytes << " B";
                return why.str();
            }
            ++indegree[rr][ri];
            next[sr][si].push_back({rr, ri});
        }
    }
    for (const auto& [dir, list] : recvs)
    {
        if (sends.find(dir) == sends.end())
        {
            why << "rank " << std::get<1>(dir) << " receives from rank " << std::get<0>(dir)
                << " on channel " << std::get<2>(dir) << ", which never sends";
            return why.str();
        }
    }
    // Kahn's algorithm: every step must become ready.
    std::vector<std::pair<uint32_t, uint32_t>> ready;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t i = 0; i < m_steps[r].size(); ++i)
        {
            if (indegree[r][i] == 0)
            {
                ready.push_back({r, i});
            }
        }
    }
    uint64_t done = 0;
    while (!ready.empty())
    {
        const auto [r, i] = ready.back();
        ready.pop_back();
        ++done;
        for (const auto& [nr, ni] : next[r][i])
        {
            if (--indegree[nr][ni] == 0)
            {
                ready.push_back({nr, ni});
            }
        }
    }
    if (done != GetNSteps())
    {
        why << "deadlock: " << GetNSteps() - done << " steps can never start";
        return why.str();
    }
    return "";
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
