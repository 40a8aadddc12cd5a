#include "nccl-tuning-model.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ns3
{

namespace
{
// NCCL 2.30's constants (src/graph/tuning.cc, src/graph/search.cc, src/include/device.h;
// doc/nccl-facts.md section 1), indexed [algorithm: tree, ring][protocol: LL, LL128, Simple].
constexpr double kBaseLatency[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
constexpr double kNvLinkLatency[2][3] = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}};
constexpr double kNetLatency[2][3] = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}};
/** Per-node-count column: 1, 2, 3+ servers. */
uint32_t
NodeColumn(uint32_t nodes)
{
    return nodes <= 2 ? nodes - 1 : 2;
}
/** llMaxBws: Hopper on one server, the Intel-CPU row across servers. */
constexpr double kLlMaxSingleNode = 141.0;
constexpr double kLlMaxMultiNode[3] = {39.0, 39.0, 20.4};
/** Hopper per-channel caps. */
constexpr double kPerChannelRingLl128 = 36.7;
constexpr double kPerChannelTreeLl128[3] = {36.7, 36.7, 29.0};
constexpr double kPerChannelTree[3] = {38.7, 41.4, 36.0};
/** NVLS: hwLat[NVLINK][NVLS][Simple], us. */
constexpr double kNvlsNvLinkLatency = 25.0;
/** NVLS-tree: hwLat[NVLINK][NVLSTree][Simple], us. */
constexpr double kNvlsTreeNvLinkLatency = 25.0;
/** NVLS-tree: hwLat[NET][NVLSTree][Simple], us. */
constexpr double kNvlsTreeNetLatency = 20.9;
/** perChMaxNVLSTreeBws, Hopper, per node column (1, 2, 3+ servers). */
constexpr double kPerChannelNvlsTree[3] = {0, 57.7, 45.5};
/** nvlsEfficiency on Hopper. */
constexpr double kNvlsEfficiency = 0.85;
/** NCCL_NVLS_NCHANNELS on SM90. */
constexpr uint32_t kNvlsCtas = 16;
/** getNetOverhead on Intel, us (x3 for Simple). */
constexpr double kNetOverhead = 1.0;
/** Search speed ladders for sm90, GB/s. */
constexpr double kIntraSpeeds[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr double kInterSpeeds[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, .24, .12};
/** Threads per CTA (maxThreads) and bytes per thread below which a channel is dropped. */
constexpr uint32_t kThreads[3] = {512, 640, 512};
constexpr uint32_t kThreadThreshold[3] = {8, 8, 64};
/** treeCorrectionFactor[protocol][log2(bytes / 64)] for tree all-reduce, 64 B to 256 MiB. */
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
/** PAT: baseLat (us), the bandwidth factor, and the latency per rank (us). */
constexpr double kPatBaseLatency = 8.0;
constexpr double kPatBandwidthFactor = 0.75;
constexpr double kPatRankLatency = 2.8;
/** Ring Simple multi-node all-reduce latency factor (sm80 on), the "plateau effect". */
constexpr double kRingPlateau = 1.4;

/** The largest of \p speeds at or below \p bw (the smallest if none). */
template <std::size_t N>
double
LadderSpeed(const double (&speeds)[N], double bw)
{
    for (double s : speeds)
    {
        if (s <= bw)
        {
            return s;
        }
    }
    return speeds[N - 1];
}

uint32_t
Log2Floor(uint64_t v)
{
    uint32_t l = 0;
    while (v >>= 1)
    {
        ++l;
    }
    return l;
}
} // namespace

const char*
NcclTuningModel::AlgorithmName(Algorithm a)
{
    switch (a)
    {
    case TREE:
        return "tree";
    case RING:
        return "ring";
    case NVLS:
        return "nvls";
    case NVLS_TREE:
        return "nvls_tree";
    case PAT:
        return "pat";
    }
    return "";
}

const char*
NcclTuningModel::ProtocolName(Protocol p)
{
    return p == LL ? "ll" : p == LL128 ? "ll128" : "simple";
}

NcclTuningModel::Graph
NcclTuningModel::MakeGraph(const CollectiveRequest& r)
{
    Graph g;
    g.ranks = r.ranks;
    std::map<uint32_t, uint32_t> perServer;
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        ++perServer[r.placement.empty() ? rank : r.placement[rank].server];
    }
    g.nodes = static_cast<uint32_t>(perServer.size());
    for (const auto& [server, count] : perServer)
    {
        g.ranksPerNode = std::max(g.ranksPerNode, count);
    }
    if (g.nodes > 1)
    {
        // One channel per NIC: every GPU of a server has its own.
        g.channels = g.ranksPerNode;
        g.speed = LadderSpeed(kInterSpeeds, r.nicRate.GetBitRate() / 8e9);
    }
    else
    {
        const double nvlink = r.nvLinkRate.GetBitRate() / 8e9;
        g.speed = LadderSpeed(kIntraSpeeds, nvlink);
        g.channels = std::max<uint32_t>(1, static_cast<uint32_t>(nvlink / g.speed));
    }
    if (g.speed >= 25 && !(g.speed < 50 && g.channels > 4))
    {
        g.channels *= 2; // DupChannels
        g.speed /= 2;
    }
    g.ctas = std::min<uint32_t>(64, 2 * g.channels);
    const bool even = std::all_of(perServer.begin(), perServer.end(),
                                  [&g](const auto& e) { return e.second == g.ranksPerNode; });
    if (r.engineServers.size() == g.nodes && g.ranksPerNode > 1 && even)
    {
        // NVLS's search: a channel per GPU (each a head), the head's NVLink charged twice.
        g.nvls = true;
        g.nvlsChannels = g.ranksPerNode;
        g.nvlsSpeed =
            LadderSpeed(kIntraSpeeds, r.nvLinkRate.GetBitRate() / 8e9 / (g.ranksPerNode + 1));
        g.nvlsInterSpeed = LadderSpeed(kInterSpeeds, r.nicRate.GetBitRate() / 8e9);
    }
    return g;
}

NcclTuningModel::NcclTuningModel(const Graph& graph)
    : m_graph(graph)
{
}

double
NcclTuningModel::BusBandwidth(CollectiveOperation op, Algorithm a, Protocol p) const
{
    const Graph& g = m_graph;
    if (a == TREE && op != ALL_REDUCE)
    {
        return 0;
    }
    if (a == PAT)
    {
        // One GPU per server only (NCCL_PAT_ENABLE's auto), all-gather and reduce-scatter.
        const bool able = p == SIMPLE && g.ranksPerNode == 1 && g.nodes == g.ranks &&
                          (op == ALL_GATHER || op == REDUCE_SCATTER);
        return able ? g.channels * g.speed * kPatBandwidthFactor : 0;
    }
    if (a == NVLS || a == NVLS_TREE)
    {
        const bool one = g.nodes == 1;
        if (!g.nvls || p != SIMPLE || (a == NVLS) != one ||
            !(op == ALL_REDUCE || (a == NVLS && (op == REDUCE_SCATTER || op == ALL_GATHER))))
        {
            return 0;
        }
        const double ppn = g.ranksPerNode;
        const double ch = g.nvlsChannels;
        const double intra = g.nvlsSpeed * kNvlsEfficiency * (ch - 1) / ch *
                             (op == ALL_REDUCE ? 2.0 : (ppn - 1) / ppn);
        if (a == NVLS)
        {
            return ch * std::min(intra, std::min(2 * g.nvlsSpeed, kIntraSpeeds[0]));
        }
        const double inter = g.nvlsInterSpeed * (g.nodes <= 2 ? 2 : 1);
        return ch * std::min({intra, inter, kPerChannelNvlsTree[NodeColumn(g.nodes)]});
    }
    const uint32_t column = NodeColumn(g.nodes);
    const double llMax = g.nodes == 1 ? kLlMaxSingleNode : kLlMaxMultiNode[column];
    const double ch = g.channels;
    double bw = ch * g.speed;
    if (a == RING)
    {
        if (p == LL)
        {
            bw = std::min(llMax, bw * 0.5);
        }
        else if (p == LL128)
        {
            bw = std::min(bw * 0.92, ch * kPerChannelRingLl128);
        }
        return bw;
    }
    bw = std::min(bw * 0.92, ch * kPerChannelTree[column]);
    if (p == LL)
    {
        bw = std::min(bw / 3.8, llMax);
    }
    else if (p == LL128)
    {
        bw = std::min(bw * (g.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                      ch * kPerChannelTreeLl128[column]);
    }
    if (g.nodes > 1)
    {
        bw *= 0.85; // the TREE pattern: NIC traffic on one GPU per server
    }
    return bw;
}

double
NcclTuningModel::Latency(CollectiveOperation op, Algorithm a, Protocol p) const
{
    const Graph& g = m_graph;
    if (a == NVLS)
    {
        return kNvlsNvLinkLatency; // NCCL's base latency is replaced by NVLink's
    }
    if (a == NVLS_TREE)
    {
        return kNvlsTreeNvLinkLatency + 2 * Log2Floor(g.nodes) * kNvlsTreeNetLatency;
    }
    if (a == PAT)
    {
        return kPatBaseLatency + Log2Floor(g.nodes) * kNetLatency[TREE][p] / 3.5 +
               kPatRankLatency * g.ranks;
    }
    double lat = kBaseLatency[a][p];
    double intra = kNvLinkLatency[a][p];
    const double inter = g.ranksPerNode == 1 ? kNetLatency[TREE][p] : kNetLatency[a][p];
    const uint32_t n = g.ranks;
    if (a == TREE)
    {
        return lat + 2 * ((n / g.nodes - 1) * intra + Log2Floor(g.nodes) * inter);
    }
    if (op == BROADCAST || op == REDUCE)
    {
        // NCCL's branch for rings whose channels share their NICs (sameChannels), as NCCL's
        // search finds them on DGX-class servers: one hop's latency, the chain pipelined.
        return lat + (g.nodes > 1 ? kNetLatency[RING][p] : kNvLinkLatency[RING][p]);
    }
    const uint32_t steps = op == ALL_REDUCE ? 2 * (n - 1) : n - 1;
    uint32_t interSteps = 0;
    if (g.nodes > 1)
    {
        intra = std::max(intra, kNetOverhead * (p == SIMPLE ? 3 : 1));
        interSteps = op == ALL_REDUCE ? 2 * (g.nodes - 1) : g.nodes - 1;
    }
    return lat + (steps - interSteps) * intra + interSteps * inter;
}

double
NcclTuningModel::Time(CollectiveOperation op, Algorithm a, Protocol p, uint64_t bytes) const
{
    double bw = BusBandwidth(op, a, p);
    if (bw <= 0)
    {
        return -1;
    }
    const uint32_t n = m_graph.ranks;
    // Bus to algorithm bandwidth (tuning.cc): a ring moves nsteps / n of the buffer per rank,
    // a tree 2; all-reduce's NVLS and NVLS-tree count as the ring; the all-gathers and
    // reduce-scatters of every algorithm but the ring are not converted.
    const uint32_t steps = op == ALL_REDUCE ? 2 * (n - 1)
                           : op == BROADCAST || op == REDUCE ? n
                                                              : n - 1;
    if (a == RING || op == ALL_REDUCE)
    {
        bw *= a == TREE ? 0.5 : double(n) / steps;
    }
    double lat = Latency(op, a, p);
    const int64_t logSize = bytes >> 6 == 0 ? -1 : Log2Floor(bytes >> 6);
    if (a == TREE && logSize >= 0 && logSize < 23)
    {
        bw *= kTreeCorrection[p][logSize];
    }
    if (a == RING && p == SIMPLE && m_graph.nodes > 1 && op == ALL_REDUCE &&
        bytes / (uint64_t(m_graph.ctas) * n) >= 64)
    {
        lat *= kRingPlateau;
    }
    return lat + bytes / (1000 * bw);
}

uint32_t
NcclTuningModel::Channels(Algorithm a, Protocol p, uint64_t bytes) const
{
    if (a == NVLS || a == NVLS_TREE)
    {
        return kNvlsCtas; // no size-based reduction
    }
    if (a == PAT)
    {
        return m_graph.ctas; // PAT sets no maxThreads: never reduced
    }
    uint64_t threshold = kThreadThreshold[p];
    if (a == RING && p == LL)
    {
        threshold *= m_graph.ranks;
    }
    uint32_t nc = m_graph.ctas;
    while (nc > 1 && bytes < uint64_t(nc) * kThreads[p] * threshold)
    {
        --nc;
    }
    return nc;
}

NcclTuningModel::Choice
NcclTuningModel::Choose(CollectiveOperation op, uint64_t bytes) const
{
    Choice best;
    if (op == ALL_TO_ALL)
    {
        return {"pxn", "simple", 1, -1};
    }
    best.timeUs = -1;
    for (Algorithm a : {TREE, RING, NVLS, NVLS_TREE, PAT})
    {
        for (Protocol p : {LL, LL128, SIMPLE})
        {
            const double t = Time(op, a, p, bytes);
            if (t >= 0 && (best.timeUs < 0 || t < best.timeUs))
            {
                best = {AlgorithmName(a), ProtocolName(p), Channels(a, p, bytes), t};
            }
        }
    }
    return best;
}

} // namespace ns3
