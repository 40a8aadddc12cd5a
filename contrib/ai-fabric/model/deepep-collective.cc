#include "deepep-collective.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DeepEpCollectiveAlgorithm);

TypeId
DeepEpCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DeepEpCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<DeepEpCollectiveAlgorithm>()
            .AddAttribute("Experts",
                          "Routed experts, held in equal shares by the ranks in rank order "
                          "(DeepSeek-V3 and DeepEP's benchmark: 256).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_experts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TopK",
                          "Experts each token is sent to (DeepSeek-V3: 8); the send buffer "
                          "holds each token this many times.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_topK),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TopKGroups",
                          "Servers (groups of experts) a token may use, cut to the servers there "
                          "are (DeepSeek-V3: 4; DeepEP's benchmark: min(servers, 4)).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_topKGroups),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ChunkBytes",
                          "Bytes a server-bound stream is sent and forwarded in: about DeepEP's "
                          "RDMA chunk (16 tokens in its benchmark: 118,272 B of DeepSeek-V3's "
                          "FP8 tokens; it tunes 4 to 32 per run), rounded to 128 KiB, NCCL's "
                          "point-to-point chunk.",
                          UintegerValue(128 * 1024),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

bool
DeepEpCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_TO_ALL;
}

namespace
{
/**
 * The walk behind HitProbability: the experts in falling score order (a uniformly random
 * order).  The chosen groups are the first g distinct groups met, the token's experts the first
 * k experts met in them.  A state: s groups met, c experts taken (every expert met so far, all
 * in met groups), whether the target's group was met, d experts taken from it outside the
 * target.
 */
class RoutingWalk
{
  public:
    RoutingWalk(uint32_t experts, uint32_t groups, uint32_t g, uint32_t k, uint32_t e)
        : m_experts(experts),
          m_n(groups),
          m_m(experts / groups),
          m_g(g),
          m_k(k),
          m_e(e),
          m_memo(std::size_t(g + 1) * (k + 1) * 2 * (k + 1), -1.0)
    {
    }

    /** The probability that the walk from (s, c, seen, d) never takes a target expert. */
    double Miss(uint32_t s, uint32_t c, bool seen, uint32_t d)
    {
        if (c == m_k)
        {
            return 1.0;
        }
        if (s == m_g)
        {
            // The groups are chosen; the rest of the k are uniform over the chosen groups'
            // experts not yet met.
            return seen ? NoneOf(double(m_g) * m_m - c, m_k - c) : 1.0;
        }
        double& memo = m_memo[((std::size_t(s) * (m_k + 1) + c) * 2 + seen) * (m_k + 1) + d];
        if (memo < 0)
        {
            // The next expert: the target's (a hit), the rest of its group, another met
            // group's, an unmet group's; a branch is followed only when it can happen.
            const double m = m_m;
            const double left = double(m_experts) - c;
            const double rest = m - m_e - (seen ? d : 0);
            const double met = seen ? (double(s) - 1) * m - (double(c) - d) : double(s) * m - c;
            const double unmet = (double(m_n) - s - (seen ? 0 : 1)) * m;
            double p = 0;
            if (rest > 0)
            {
                p += rest / left * Miss(seen ? s : s + 1, c + 1, true, seen ? d + 1 : 1);
            }
            if (met > 0)
            {
                p += met / left * Miss(s, c + 1, seen, d);
            }
            if (unmet > 0)
            {
                p += unmet / left * Miss(s + 1, c + 1, seen, d);
            }
            memo = p;
        }
        return memo;
    }

  private:
    /** No target expert among \p draws taken at random from \p left. */
    double NoneOf(double left, uint32_t draws) const
    {
        double p = 1;
        for (uint32_t i = 0; i < draws && p > 0; ++i)
        {
            p *= std::max(0.0, (left - m_e - i) / (left - i));
        }
        return p;
    }

    uint32_t m_experts;
    uint32_t m_n;
    uint32_t m_m;
    uint32_t m_g;
    uint32_t m_k;
    uint32_t m_e;
    std::vector<double> m_memo; //!< per state; negative: not yet computed
};

/** The ranks of each server (in server order), each list in local GPU order. */
std::vector<std::vector<uint32_t>>
ServersOf(const CollectiveRequest& r)
{
    std::map<uint32_t, std::vector<uint32_t>> byServer;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        byServer[r.placement.empty() ? rank : r.placement[rank].server].push_back(rank);
    }
    std::vector<std::vector<uint32_t>> servers;
    for (auto& [server, ranks] : byServer)
    {
        std::stable_sort(ranks.begin(), ranks.end(), [&r](uint32_t a, uint32_t b) {
            return r.placement.empty() ? a < b
                                       : r.placement[a].localIndex < r.placement[b].localIndex;
        });
        servers.push_back(ranks);
    }
    return servers;
}
} // namespace

double
DeepEpCollectiveAlgorithm::HitProbability(uint32_t experts,
                                          uint32_t groups,
                                          uint32_t topKGroups,
                                          uint32_t topK,
                                          uint32_t targetExperts)
{
    if (groups == 0 || experts % groups != 0 || targetExperts == 0 || topK == 0 ||
        topKGroups == 0 || (experts / groups) % targetExperts != 0)
    {
        throw std::invalid_argument(
            "deepep routing: " + std::to_string(experts) + " experts in " +
            std::to_string(groups) + " groups, a target of " + std::to_string(targetExperts) +
            ", top " + std::to_string(topK) + " in " + std::to_string(topKGroups) +
            " groups: the groups must be equal, the target a whole part of one, every count at "
            "least 1");
    }
    const uint32_t g = std::min(topKGroups, groups);
    const auto k = static_cast<uint32_t>(std::min<uint64_t>(topK, uint64_t(g) * (experts / groups)));
    return 1.0 - RoutingWalk(experts, groups, g, k, targetExperts).Miss(0, 0, false, 0);
}

DeepEpCollectiveAlgorithm::Routing
DeepEpCollectiveAlgorithm::RoutingOf(const CollectiveRequest& r, uint32_t servers) const
{
    Routing routing;
    routing.experts = r.experts > 0 ? r.experts : m_experts;
    routing.topK = r.topK > 0 ? r.topK : m_topK;
    const std::string what = "deepep " + std::string(CollectiveOperationName(r.op)) + " of " +
                             std::to_string(r.bytes) + " B over " + std::to_string(r.ranks) +
                             " ranks: ";
    if (routing.experts % r.ranks != 0)
    {
        throw std::invalid_argument(what + std::to_string(routing.experts) + " experts (" +
                                    (r.experts > 0 ? "the model's" : "Experts") +
                                    ") are no whole number per rank");
    }
    const uint32_t groups = std::min(m_topKGroups, servers);
    const uint64_t usable = uint64_t(groups) * (routing.experts / servers);
    if (routing.topK > usable)
    {
        throw std::invalid_argument(what + "a token's top " + std::to_string(routing.topK) +
                                    " experts, but its best " + std::to_string(groups) +
                                    " servers hold " + std::to_string(usable));
    }
    routing.rankHit = HitProbability(routing.experts, servers, m_topKGroups, routing.topK,
                                     routing.experts / r.ranks);
    routing.serverHit = HitProbability(routing.experts, servers, m_topKGroups, routing.topK,
                                       routing.experts / servers);
    const double tokens = double(r.bytes) / routing.topK; // each token once: T x its size
    const uint32_t eb = r.elementBytes;
    const auto whole = [eb](double bytes) { return uint64_t(std::llround(bytes / eb)) * eb; };
    routing.toRank = whole(tokens * routing.rankHit);
    routing.toServer = servers > 1 ? whole(tokens * routing.serverHit) : 0;
    if (routing.toRank == 0 || (servers > 1 && routing.toServer == 0))
    {
        throw std::invalid_argument(what + "too few bytes: a rank's share for another rank "
                                           "rounds to no element");
    }
    return routing;
}

void
DeepEpCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    const auto servers = ServersOf(r);
    for (const auto& ranks : servers)
    {
        if (ranks.size() != servers.front().size())
        {
            throw std::invalid_argument("deepep: every server must hold as many of the ranks (a "
                                        "server's experts are one group)");
        }
    }
    RoutingOf(r, servers.size());
}

CollectiveSchedule
DeepEpCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r);
    s.SetPipelined(true); // its pieces flow through every connection at once
    const auto servers = ServersOf(r);
    const Routing routing = RoutingOf(r, servers.size());
    // Within the server: straight over NVLink (its own experts' tokens: a copy).
    for (const auto& ranks : servers)
    {
        for (uint32_t a : ranks)
        {
            s.Copy(a, routing.toRank, {});
            for (uint32_t j : ranks)
            {
                if (j != a)
                {
                    s.Send(a, j, routing.toRank, {});
                    s.Recv(j, a, routing.toRank, {});
                }
            }
        }
    }
    AddServerStreams(s, r, servers, routing);
    return s;
}

void
DeepEpCollectiveAlgorithm::AddServerStreams(CollectiveSchedule& s,
                                            const CollectiveRequest& r,
                                            const std::vector<std::vector<uint32_t>>& servers,
                                            const Routing& routing) const
{
    // Per rank and server, the GPU there that takes its tokens: the one on its rail (the same
    // local index), else the one at its place in that server's list.
    std::vector<uint32_t> serverOf(r.ranks);
    std::vector<std::vector<uint32_t>> via(r.ranks);
    for (uint32_t b = 0; b < servers.size(); ++b)
    {
        for (uint32_t i = 0; i < servers[b].size(); ++i)
        {
            serverOf[servers[b][i]] = b;
            via[servers[b][i]].resize(servers.size());
            for (uint32_t c = 0; c < servers.size(); ++c)
            {
                via[servers[b][i]][c] = servers[c][i];
                for (uint32_t j : servers[c])
                {
                    if (!r.placement.empty() &&
                        r.placement[j].localIndex == r.placement[servers[b][i]].localIndex)
                    {
                        via[servers[b][i]][c] = j;
                    }
                }
            }
        }
    }
    // Once to each other server in pieces, piece k of every stream before piece k + 1 of any,
    // each piece's tokens fanned out on arrival (channel 1).
    const uint32_t eb = r.elementBytes;
    const auto whole = [eb](double bytes) { return uint64_t(std::llround(bytes / eb)) * eb; };
    const uint64_t chunk = std::max<uint64_t>(m_chunkBytes / eb, 1) * eb;
    const double fanOut = routing.rankHit / routing.serverHit;
    for (uint64_t offset = 0; offset < routing.toServer; offset += chunk)
    {
        const uint64_t piece = std::min(chunk, routing.toServer - offset);
        const uint64_t forward = whole((offset + piece) * fanOut) - whole(offset * fanOut);
        for (uint32_t a = 0; a < r.ranks; ++a)
        {
            for (uint32_t b = 0; b < servers.size(); ++b)
            {
                if (b == serverOf[a])
                {
                    continue;
                }
                const uint32_t f = via[a][b];
                s.Send(a, f, piece, {});
                const uint32_t in = s.Recv(f, a, piece, {});
                if (forward == 0)
                {
                    continue;
                }
                s.Copy(f, forward, {in});
                for (uint32_t j : servers[b])
                {
                    if (j != f)
                    {
                        s.Send(f, j, forward, {in}, 1);
                        s.Recv(j, f, forward, {}, 1);
                    }
                }
            }
        }
    }
}

} // namespace ns3
