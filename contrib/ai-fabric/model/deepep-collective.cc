#include "deepep-collective.h"

#include "hierarchical-collective.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DeepEpCollectiveAlgorithm);

namespace
{
/** The most experts a token may go to (the routing's recursion grows with its square). */
constexpr uint32_t kMaxTopK = 256;
} // namespace

TypeId
DeepEpCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DeepEpCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<DeepEpCollectiveAlgorithm>()
            .AddAttribute("Experts",
                          "Routed experts, held in equal shares by the ranks (DeepSeek-V3 and "
                          "DeepEP's benchmark: 256); a training job's model's experts replace "
                          "it.",
                          UintegerValue(256),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_experts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TopK",
                          "Experts each token is sent to (DeepSeek-V3: 8); the send buffer "
                          "holds each token this many times; a training job's ExpertTopK "
                          "replaces it.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_topK),
                          MakeUintegerChecker<uint32_t>(1, kMaxTopK))
            .AddAttribute("ServersPerToken",
                          "Servers a token may use, a server's experts being one group, cut to "
                          "the servers the ranks are on (DeepEP's benchmark: min(servers, 4); "
                          "DeepSeek-V3's node limit of 4 among its 8 groups is this at 8 "
                          "servers an expert-parallel group).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&DeepEpCollectiveAlgorithm::m_serversPerToken),
                          MakeUintegerChecker<uint32_t>(1, 64))
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

/**
 * For each rank of \p from, the rank of \p to that takes its tokens, one each: the one on its
 * rail (the same local index) where there is one, the others in order to the rest (off-rail).
 */
std::vector<uint32_t>
RailMates(const CollectiveRequest& r,
          const std::vector<uint32_t>& from,
          const std::vector<uint32_t>& to)
{
    std::vector<uint32_t> mate(from.size(), UINT32_MAX);
    std::vector<bool> taken(to.size(), false);
    for (uint32_t i = 0; i < from.size() && !r.placement.empty(); ++i)
    {
        for (uint32_t j = 0; j < to.size(); ++j)
        {
            if (!taken[j] && r.placement[to[j]].localIndex == r.placement[from[i]].localIndex)
            {
                mate[i] = to[j];
                taken[j] = true;
                break;
            }
        }
    }
    uint32_t next = 0;
    for (uint32_t i = 0; i < from.size(); ++i)
    {
        while (mate[i] == UINT32_MAX)
        {
            if (!taken[next])
            {
                mate[i] = to[next];
                taken[next] = true;
            }
            ++next;
        }
    }
    return mate;
}

/** \p bytes rounded to whole elements of \p elementBytes. */
uint64_t
Whole(double bytes, uint32_t elementBytes)
{
    return uint64_t(std::llround(bytes / elementBytes)) * elementBytes;
}
} // namespace

double
DeepEpCollectiveAlgorithm::HitProbability(uint32_t experts,
                                          uint32_t groups,
                                          uint32_t topKGroups,
                                          uint32_t topK,
                                          uint32_t targetExperts)
{
    if (experts == 0 || groups == 0 || experts % groups != 0 || targetExperts == 0 || topK == 0 ||
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
    if (g == groups)
    {
        // No group limit: the k experts are k of all at random (hypergeometric).
        double none = 1;
        for (uint32_t i = 0; i < k && none > 0; ++i)
        {
            none *= std::max(0.0, (double(experts) - targetExperts - i) / (double(experts) - i));
        }
        return 1.0 - none;
    }
    return 1.0 - RoutingWalk(experts, groups, g, k, targetExperts).Miss(0, 0, false, 0);
}

DeepEpCollectiveAlgorithm::Routing
DeepEpCollectiveAlgorithm::RoutingOf(const CollectiveRequest& r, uint32_t servers) const
{
    Routing routing;
    routing.experts = r.experts > 0 ? r.experts : m_experts;
    routing.topK = r.topK > 0 ? r.topK : m_topK;
    const std::string experts =
        std::to_string(routing.experts) + " experts (" +
        (r.experts > 0 ? "the job's model" : "ns3::DeepEpCollectiveAlgorithm::Experts") + ")";
    const std::string topK = "top " + std::to_string(routing.topK) + " (" +
                             (r.topK > 0 ? "the job's ExpertTopK" : "TopK") + ")";
    const std::string what = "deepep " + std::string(CollectiveOperationName(r.op)) + " of " +
                             std::to_string(r.bytes) + " B over " + std::to_string(r.ranks) +
                             " ranks on " + std::to_string(servers) + " servers: ";
    if (routing.experts % r.ranks != 0)
    {
        throw std::invalid_argument(what + experts + " are no whole number per rank");
    }
    const uint32_t groups = std::min(m_serversPerToken, servers);
    const uint64_t usable = uint64_t(groups) * (routing.experts / servers);
    if (routing.topK > usable || routing.topK > kMaxTopK)
    {
        throw std::invalid_argument(
            what + topK + " of " + experts + ": a token's " + std::to_string(groups) +
            " servers (ServersPerToken) hold " + std::to_string(usable) + "; at most " +
            std::to_string(std::min<uint64_t>(usable, kMaxTopK)) + " allowed");
    }
    routing.rankHit = HitProbability(routing.experts, servers, m_serversPerToken, routing.topK,
                                     routing.experts / r.ranks);
    routing.serverHit = HitProbability(routing.experts, servers, m_serversPerToken, routing.topK,
                                       routing.experts / servers);
    const double tokens = double(r.bytes) / routing.topK; // each token once: T x its size
    const uint32_t eb = r.elementBytes;
    routing.toRank = Whole(tokens * routing.rankHit, eb);
    routing.toServer = servers > 1 ? Whole(tokens * routing.serverHit, eb) : 0;
    if (routing.toRank == 0 || (servers > 1 && routing.toServer == 0))
    {
        throw std::invalid_argument(what + "too few bytes: a rank's share for another rank "
                                           "rounds to no " + std::to_string(eb) +
                                    "-byte element");
    }
    return routing;
}

void
DeepEpCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    const auto servers = HierarchicalCollectiveAlgorithm::Servers(r);
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
    const auto servers = HierarchicalCollectiveAlgorithm::Servers(r);
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
    std::vector<uint32_t> serverOf(r.ranks);
    std::vector<std::vector<uint32_t>> via(r.ranks, std::vector<uint32_t>(servers.size()));
    for (uint32_t b = 0; b < servers.size(); ++b)
    {
        for (uint32_t a : servers[b])
        {
            serverOf[a] = b;
        }
        for (uint32_t c = 0; c < servers.size(); ++c)
        {
            const auto pairs = RailMates(r, servers[b], servers[c]);
            for (uint32_t i = 0; i < servers[b].size(); ++i)
            {
                via[servers[b][i]][c] = pairs[i];
            }
        }
    }
    // Once to each other server in pieces, piece k of every stream before piece k + 1 of any,
    // each piece's tokens fanned out on arrival (channel 1).
    const uint32_t eb = r.elementBytes;
    const uint64_t chunk = std::max<uint64_t>(m_chunkBytes / eb, 1) * eb;
    const double fanOut = routing.rankHit / routing.serverHit;
    for (uint64_t offset = 0; offset < routing.toServer; offset += chunk)
    {
        const uint64_t piece = std::min(chunk, routing.toServer - offset);
        const uint64_t forward = Whole((offset + piece) * fanOut, eb) - Whole(offset * fanOut, eb);
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
