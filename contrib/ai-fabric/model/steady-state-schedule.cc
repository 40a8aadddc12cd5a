#include "steady-state-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SteadyStateSchedule");

namespace
{

/** A connection and direction (from, to, channel) of a schedule as one number. */
struct ConnectionKey
{
    explicit ConnectionKey(const CollectiveSchedule& schedule)
        : ranks(schedule.GetNRanks())
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            for (const CollectiveStep& step : schedule.GetSteps(r))
            {
                channels = std::max(channels, step.channel + 1);
            }
        }
    }

    uint64_t operator()(uint32_t from, uint32_t to, uint32_t channel) const
    {
        return (uint64_t(from) * ranks + to) * channels + channel;
    }

    uint32_t ranks;
    uint32_t channels{1};
};

/** A connection's messages in one direction, summed. */
struct Transfer
{
    uint32_t peer;
    uint32_t channel;
    uint64_t bytes;
};

/** What one rank's steps add up to. */
struct RankTotals
{
    std::vector<Transfer> sends; //!< by connection, in order of first use
    std::vector<Transfer> recvs;
    uint64_t reduced{0};
    uint64_t copied{0};
    bool reduces{false};
    bool copies{false};
};

/** Add \p step's bytes to its connection's transfer in \p transfers (\p index: by key). */
void
AddTo(std::vector<Transfer>& transfers, std::unordered_map<uint64_t, std::size_t>& index,
      uint64_t key, const CollectiveStep& step)
{
    auto [it, added] = index.try_emplace(key, transfers.size());
    if (added)
    {
        transfers.push_back({step.peer, step.channel, 0});
    }
    transfers[it->second].bytes += step.bytes;
}

RankTotals
Totals(const CollectiveSchedule& schedule, uint32_t rank, const ConnectionKey& key)
{
    RankTotals t;
    std::unordered_map<uint64_t, std::size_t> sends;
    std::unordered_map<uint64_t, std::size_t> recvs;
    for (const CollectiveStep& step : schedule.GetSteps(rank))
    {
        switch (step.kind)
        {
        case CollectiveStep::SEND:
            AddTo(t.sends, sends, key(rank, step.peer, step.channel), step);
            break;
        case CollectiveStep::RECV:
            AddTo(t.recvs, recvs, key(step.peer, rank, step.channel), step);
            break;
        case CollectiveStep::REDUCE:
            t.reduced += step.bytes;
            t.reduces = true;
            break;
        case CollectiveStep::COPY:
            t.copied += step.bytes;
            t.copies = true;
            break;
        case CollectiveStep::JOIN:
            break;
        }
    }
    return t;
}

/** \p transfers with one per peer: each peer's on its lowest channel, with all their bytes. */
std::vector<Transfer>
PerPeer(const std::vector<Transfer>& transfers)
{
    std::vector<Transfer> merged;
    std::unordered_map<uint32_t, std::size_t> index; // peer -> merged
    for (const Transfer& t : transfers)
    {
        auto [it, added] = index.try_emplace(t.peer, merged.size());
        if (added)
        {
            merged.push_back(t);
        }
        else
        {
            Transfer& m = merged[it->second];
            m.channel = std::min(m.channel, t.channel);
            m.bytes += t.bytes;
        }
    }
    return merged;
}

/**
 * k if every pair of ranks that talks in \p totals does so over k channels whose paths
 * (\p paths, by rank and send) are one route, and pairs whose lowest channel is the same
 * use the same channels (so that channel's budget is k channels'); else 1.
 */
uint32_t
MergeableChannels(const std::vector<RankTotals>& totals,
                  const std::vector<std::vector<MessagePath>>& paths)
{
    std::map<uint32_t, std::vector<uint32_t>> channelsOfLowest;
    std::size_t k = 0;
    for (std::size_t r = 0; r < totals.size(); ++r)
    {
        // peer -> (its channels, a path)
        std::map<uint32_t, std::pair<std::vector<uint32_t>, const MessagePath*>> perPeer;
        for (std::size_t i = 0; i < totals[r].sends.size(); ++i)
        {
            const MessagePath& path = paths[r][i];
            auto [it, added] = perPeer.try_emplace(totals[r].sends[i].peer,
                                                   std::vector<uint32_t>(), &path);
            if (!added && it->second.second->links != path.links)
            {
                return 1;
            }
            it->second.first.push_back(totals[r].sends[i].channel);
        }
        for (auto& [peer, group] : perPeer)
        {
            std::vector<uint32_t>& channels = group.first;
            std::sort(channels.begin(), channels.end());
            auto [known, added] = channelsOfLowest.try_emplace(channels.front(), channels);
            if ((k != 0 && channels.size() != k) || (!added && known->second != channels))
            {
                return 1;
            }
            k = channels.size();
        }
    }
    return static_cast<uint32_t>(std::max<std::size_t>(k, 1));
}

/** A connection in one direction, as the critical path sees it. */
struct Connection
{
    MessagePath path;
    double bytesPerSecond{0};     //!< its static share (0: not limited)
    int64_t busy{0};              //!< ps: when its last message has left
    std::deque<int64_t> arrivals; //!< ps: messages arrived and not yet received
};

/**
 * The chain finish time (ps from the first step) of every step of \p schedule on
 * \p connections (SteadyStateSchedule).
 */
std::vector<std::vector<int64_t>>
ChainFinishTimes(const CollectiveSchedule& schedule,
                 std::unordered_map<uint64_t, Connection>& connections,
                 const ConnectionKey& key)
{
    const uint32_t ranks = schedule.GetNRanks();
    std::vector<std::vector<int64_t>> finish(ranks);
    std::unordered_map<uint64_t, uint32_t> waiting; // a rank blocked on a receive
    std::vector<uint32_t> work(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        finish[r].assign(schedule.GetSteps(r).size(), 0);
        work[r] = ranks - 1 - r;
    }
    std::vector<uint32_t> next(ranks, 0);
    while (!work.empty())
    {
        const uint32_t r = work.back();
        work.pop_back();
        const auto& steps = schedule.GetSteps(r);
        while (next[r] < steps.size())
        {
            const uint32_t i = next[r];
            const CollectiveStep& step = steps[i];
            int64_t t = 0;
            for (uint32_t d : schedule.GetDeps(r, i))
            {
                t = std::max(t, finish[r][d]);
            }
            if (step.kind == CollectiveStep::RECV)
            {
                const uint64_t k = key(step.peer, r, step.channel);
                Connection& c = connections.at(k);
                if (c.arrivals.empty())
                {
                    waiting[k] = r;
                    break;
                }
                t = std::max(t, c.arrivals.front() +
                                    schedule.GetHopLatency(r, step.peer).GetPicoSeconds());
                c.arrivals.pop_front();
            }
            else if (step.kind == CollectiveStep::SEND)
            {
                const uint64_t k = key(r, step.peer, step.channel);
                Connection& c = connections.at(k);
                const uint64_t posted = schedule.WireBytes(step.bytes, r, step.peer);
                const double wire = static_cast<double>(posted) * c.path.framing;
                c.busy = std::max(t, c.busy) +
                         (c.bytesPerSecond > 0 ? std::llround(wire / c.bytesPerSecond * 1e12) : 0);
                c.arrivals.push_back(
                    c.busy + (c.path.arrival ? c.path.arrival(posted)
                                             : Time())
                                 .GetPicoSeconds());
                t = c.arrivals.back() + c.path.ack.GetPicoSeconds();
                auto blocked = waiting.find(k);
                if (blocked != waiting.end())
                {
                    work.push_back(blocked->second);
                    waiting.erase(blocked);
                }
            }
            finish[r][i] = t;
            ++next[r];
        }
    }
    NS_ABORT_MSG_IF(!waiting.empty(),
                    "SteadyStateSchedule: a rank waits for a message nobody sends (the schedule "
                    "deadlocks)");
    return finish;
}

} // namespace

CollectiveSchedule
SteadyStateSchedule(CollectiveSchedule schedule, const MessagePathFunction& network)
{
    const uint32_t ranks = schedule.GetNRanks();
    for (uint32_t r = 0; r < ranks; ++r)
    {
        NS_ABORT_MSG_IF(!schedule.IsKept(r),
                        "SteadyStateSchedule: needs every rank's steps (rank " << r << " is not kept)");
    }
    const ConnectionKey key(schedule);
    const Ptr<const CollectiveProtocol> protocol = schedule.GetProtocol();
    const double channelRate =
        protocol ? static_cast<double>(protocol->GetChannelWireRate().GetBitRate()) / 8 : 0;
    std::vector<RankTotals> totals(ranks);
    std::vector<std::vector<MessagePath>> paths(ranks); // by rank and send
    std::unordered_map<uint64_t, Connection> connections;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        totals[r] = Totals(schedule, r, key);
        // Static shares: the rank's connections divide its links and its channels' budgets
        // in proportion to their bytes, so that together they end at once.
        std::map<uint32_t, double> perLink;    // link -> bytes over it
        std::map<uint32_t, double> perChannel; // channel -> bytes on it
        for (const Transfer& t : totals[r].sends)
        {
            paths[r].push_back(network ? network(r, t.peer, t.channel) : MessagePath());
            perLink[paths[r].back().firstLink] += static_cast<double>(t.bytes);
            perChannel[t.channel] += static_cast<double>(t.bytes);
        }
        for (std::size_t i = 0; i < paths[r].size(); ++i)
        {
            const Transfer& t = totals[r].sends[i];
            const MessagePath& path = paths[r][i];
            Connection& c = connections[key(r, t.peer, t.channel)];
            c.path = path;
            const auto bytes = static_cast<double>(t.bytes);
            for (const double share : {path.bytesPerSecond * bytes / perLink[path.firstLink],
                                       channelRate * bytes / perChannel[t.channel]})
            {
                if (share > 0 && (c.bytesPerSecond == 0 || share < c.bytesPerSecond))
                {
                    c.bytesPerSecond = share;
                }
            }
        }
    }
    const auto finish = ChainFinishTimes(schedule, connections, key);
    const uint64_t steps = schedule.GetNSteps();
    CollectiveSchedule steady = std::move(schedule);
    steady.ClearSteps();
    const uint32_t merged = network ? MergeableChannels(totals, paths) : 1;
    steady.SetChannelsPerConnection(merged);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (const Transfer& t : merged > 1 ? PerPeer(totals[r].sends) : totals[r].sends)
        {
            steady.Send(r, t.peer, t.bytes, {}, t.channel);
        }
        for (const Transfer& t : merged > 1 ? PerPeer(totals[r].recvs) : totals[r].recvs)
        {
            steady.Recv(r, t.peer, t.bytes, {}, t.channel);
        }
        if (totals[r].reduces)
        {
            steady.Reduce(r, totals[r].reduced, {});
        }
        if (totals[r].copies)
        {
            steady.Copy(r, totals[r].copied, {});
        }
        const int64_t longest =
            finish[r].empty() ? 0 : *std::max_element(finish[r].begin(), finish[r].end());
        steady.SetCriticalPath(r, PicoSeconds(longest));
        NS_LOG_DEBUG("rank " << r << ": critical path " << PicoSeconds(longest).As(Time::US));
    }
    NS_LOG_INFO(steady.GetAlgorithm() << ": " << steps << " steps as " << steady.GetNSteps());
    return steady;
}

} // namespace ns3
