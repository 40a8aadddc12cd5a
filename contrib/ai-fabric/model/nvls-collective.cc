#include "nvls-collective.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsCollectiveAlgorithm);

TypeId
NvlsCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvlsCollectiveAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvlsCollectiveAlgorithm>()
            .AddAttribute("Channels",
                          "Channels (CTAs) each half runs on: NCCL_NVLS_NCHANNELS, 16 on Hopper "
                          "in NCCL 2.30 (src/transport/nvls.cc).",
                          UintegerValue(16),
                          MakeUintegerAccessor(&NvlsCollectiveAlgorithm::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("ChunkBytes",
                          "Bytes of the largest piece: NCCL_NVLS_CHUNKSIZE, 128 KiB in NCCL "
                          "2.30; smaller collectives get NCCL's smaller pieces (64, 32 and 16 "
                          "KiB below 64, 8 and 2 x Channels x GPUs x the piece, "
                          "src/enqueue.cc).",
                          UintegerValue(128 * 1024),
                          MakeUintegerAccessor(&NvlsCollectiveAlgorithm::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Latency",
                          "What synchronising through the NVSwitch adds to a collective: NCCL "
                          "2.30's hwLat for NVLS over NVLink, 25 us, with no base latency "
                          "(src/graph/tuning.cc).  It is spread over the messages on a piece's "
                          "way: four for all-reduce (to the engine, to the owner, back to the "
                          "engine, out to every GPU), two for reduce-scatter and all-gather.",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&NvlsCollectiveAlgorithm::m_latency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Efficiency",
                          "Share of NVLink's data rate that multimem loads and stores reach: "
                          "NCCL 2.30's nvlsEfficiency for Hopper, 0.85 (src/graph/tuning.cc), "
                          "which its tuner also assumes (0.74 on Blackwell is not modelled).",
                          DoubleValue(0.85),
                          MakeDoubleAccessor(&NvlsCollectiveAlgorithm::m_efficiency),
                          MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

bool
NvlsCollectiveAlgorithm::Supports(CollectiveOperation op) const
{
    return op == ALL_REDUCE || op == REDUCE_SCATTER || op == ALL_GATHER;
}

void
NvlsCollectiveAlgorithm::CheckRequest(const CollectiveRequest& r) const
{
    const std::string protocol = r.protocol->GetShortName();
    if (protocol != "simple" && protocol != "ideal")
    {
        throw std::invalid_argument("nvls runs in the simple protocol only, as NCCL's does (got " +
                                    protocol + ")");
    }
    if (r.placement.empty())
    {
        throw std::invalid_argument("nvls: the ranks' servers are unknown (no placement)");
    }
    const uint32_t server = r.placement.front().server;
    for (const RankPlacement& place : r.placement)
    {
        if (place.server != server)
        {
            throw std::invalid_argument("nvls runs inside one server; these ranks span servers " +
                                        std::to_string(server) + " and " +
                                        std::to_string(place.server));
        }
    }
    if (r.engineServers.size() != 1 || r.engineServers.front() != server)
    {
        throw std::invalid_argument("nvls needs server " + std::to_string(server) +
                                    "'s NVSwitch to reduce (the topology's nvls = true)");
    }
}

uint32_t
NvlsCollectiveAlgorithm::AddReduce(CollectiveSchedule& s, const std::vector<uint32_t>& gpus,
                                   uint32_t engine, uint32_t owner, uint64_t bytes,
                                   uint32_t channel)
{
    std::vector<uint32_t> parts;
    for (uint32_t g : gpus)
    {
        s.Send(g, engine, bytes, {}, channel);
        parts.push_back(s.Recv(engine, g, bytes, {}, channel));
    }
    const uint32_t sum = s.Reduce(engine, (gpus.size() - 1) * bytes, parts);
    s.Send(engine, owner, bytes, {sum}, channel);
    return s.Recv(owner, engine, bytes, {}, channel);
}

void
NvlsCollectiveAlgorithm::AddBroadcast(CollectiveSchedule& s, const std::vector<uint32_t>& gpus,
                                      uint32_t engine, uint32_t owner, uint64_t bytes,
                                      uint32_t channel, const std::vector<uint32_t>& after)
{
    s.Send(owner, engine, bytes, after, channel);
    const uint32_t stored = s.Recv(engine, owner, bytes, {}, channel);
    for (uint32_t g : gpus)
    {
        s.Send(engine, g, bytes, {stored}, channel);
        s.Recv(g, engine, bytes, {}, channel);
    }
}

void
NvlsCollectiveAlgorithm::ForEachPiece(const CollectiveRequest& r, uint32_t slices,
                                      uint32_t channels, uint64_t chunk,
                                      const std::function<void(uint32_t, uint32_t, uint64_t)>& piece)
{
    // Piece j of every slice and channel before piece j + 1 of any: the order in which they
    // become ready, so no connection holds a ready piece behind one that is not.
    std::vector<std::vector<uint64_t>> bytes(slices, std::vector<uint64_t>(channels));
    std::vector<std::vector<uint32_t>> pieces(slices, std::vector<uint32_t>(channels));
    uint32_t most = 0;
    for (uint32_t k = 0; k < slices; ++k)
    {
        const uint64_t slice = SplitPiece(r.bytes, slices, k, r.elementBytes);
        for (uint32_t c = 0; c < channels; ++c)
        {
            bytes[k][c] = SplitPiece(slice, channels, c, r.elementBytes);
            pieces[k][c] = static_cast<uint32_t>(
                std::min<uint64_t>(std::max<uint64_t>(1, (bytes[k][c] + chunk - 1) / chunk),
                                   std::max<uint64_t>(1, bytes[k][c] / r.elementBytes)));
            most = std::max(most, pieces[k][c]);
        }
    }
    for (uint32_t j = 0; j < most; ++j)
    {
        for (uint32_t k = 0; k < slices; ++k)
        {
            for (uint32_t c = 0; c < channels; ++c)
            {
                const uint64_t b =
                    j < pieces[k][c] ? SplitPiece(bytes[k][c], pieces[k][c], j, r.elementBytes) : 0;
                if (b > 0)
                {
                    piece(k, c, b);
                }
            }
        }
    }
}

CollectiveSchedule
NvlsCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    CollectiveSchedule s(r, true);
    s.SetPipelined(true); // its pieces flow through every connection at once
    s.SetEngineEfficiency(m_efficiency);
    const uint32_t legs = r.op == ALL_REDUCE ? 4 : 2;
    s.SetAlgorithmLatencies(Time(0), m_latency / legs, Time(0));
    const uint32_t n = r.ranks;
    const uint32_t engine = n;
    std::vector<uint32_t> gpus(n);
    for (uint32_t g = 0; g < n; ++g)
    {
        gpus[g] = g;
    }
    // NCCL's pieces for smaller collectives (src/enqueue.cc, calcCollChunking): each step
    // down while the collective is below a multiple of the pieces in flight at once.
    const uint64_t concurrent = uint64_t{m_channels} * n;
    uint64_t chunk = m_chunkBytes;
    for (const auto& [times, smaller] : {std::pair<uint64_t, uint64_t>{64, 64 << 10},
                                         {8, 32 << 10},
                                         {2, 16 << 10}})
    {
        if (r.bytes < times * concurrent * chunk && chunk > smaller)
        {
            chunk = smaller;
        }
    }
    ForEachPiece(r, n, m_channels, chunk, [&](uint32_t k, uint32_t c, uint64_t b) {
        // The broadcast half on channels of its own, after the reduce if there is one.
        std::vector<uint32_t> owned;
        if (r.op != ALL_GATHER)
        {
            owned = {AddReduce(s, gpus, engine, k, b, c)};
        }
        if (r.op != REDUCE_SCATTER)
        {
            AddBroadcast(s, gpus, engine, k, b, m_channels + c, owned);
        }
    });
    return s;
}

} // namespace ns3
