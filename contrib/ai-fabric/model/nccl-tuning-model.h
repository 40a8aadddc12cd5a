#ifndef AI_FABRIC_NCCL_TUNING_MODEL_H
#define AI_FABRIC_NCCL_TUNING_MODEL_H

#include "collective-schedule.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's cost model, which picks an algorithm, a protocol and a channel count per
 * operation and size (NCCL 2.30, src/graph/tuning.cc and src/enqueue.cc; the constants and
 * their lines are in doc/nccl-facts.md section 1).
 *
 * The communicator is what NCCL's topology search would find on the simulated servers
 * (Graph): across servers, one search channel per NIC (one per GPU of a server) at the
 * largest of NCCL's Hopper speeds (48, 45, 42, ... GB/s) that the NIC's rate reaches; inside
 * one server, NVLink shared by 60 GB/s channels; channels of 25 GB/s or more are doubled at
 * half the speed unless they are below 50 GB/s and more than 4 (NCCL's DupChannels); the
 * kernels run twice the search channels (CTAs).  Per (algorithm, protocol) the model has a
 * bus bandwidth (channels x speed, with NCCL's per-protocol caps and factors) and a latency
 * (base + per-hop latencies over the ring's or tree's steps inside and between servers); an
 * operation of n bytes takes latency + n / algorithm bandwidth, the tree's bandwidth corrected
 * per size as NCCL does.  The fastest combination wins; its channel count is NCCL's count
 * reduced while n < channels x threads x threshold bytes.  CPU-dependent constants take
 * NCCL's Intel values.  Candidates: ring and tree (all-reduce); ring (reduce-scatter,
 * all-gather, broadcast, reduce); NVLS with Simple (all-reduce, reduce-scatter, all-gather)
 * on one server whose NVSwitch reduces: one search channel per GPU at the largest intra-server
 * speed of which N+1 fit the NVLink (the head GPU counts twice), its bus bandwidth channels x
 * min(speed x nvlsEfficiency x (N-1)/N x (2 for all-reduce, else (N-1)/N), twice the speed
 * up to 60), its latency NVLink's NVLS latency alone, on NCCL_NVLS_NCHANNELS (16) CTAs; across
 * servers NVLS-tree (all-reduce, Simple): the same intra-server bandwidth, min with the NIC's
 * speed (twice on two servers) and perChMaxNVLSTreeBw, latency NVLink's NVLS-tree latency plus
 * 2 log2(servers) network ones; PAT (all-gather, reduce-scatter, Simple) with one GPU per
 * server: 0.75 of the channels' speed, as algorithm bandwidth, and a latency of 8 us + log2
 * (servers) x the network's tree latency / 3.5 + 2.8 us per rank (doc/nccl-facts.md 1.3, 5a);
 * all-to-all is point-to-point in NCCL (pxn, Simple).
 */
class NcclTuningModel
{
  public:
    enum Algorithm
    {
        TREE,
        RING,
        NVLS,
        NVLS_TREE,
        PAT,
    };
    enum Protocol
    {
        LL,
        LL128,
        SIMPLE,
    };

    /** What the model knows of the communicator (NCCL's graph values). */
    struct Graph
    {
        uint32_t ranks{0};
        uint32_t nodes{0};        //!< servers
        uint32_t ranksPerNode{0}; //!< the most on one server
        uint32_t channels{0};     //!< search channels
        double speed{0};          //!< GB/s per search channel
        uint32_t ctas{0};         //!< the kernels' channels: twice the search channels
        /**
         * Every server's NVSwitch reduces (CollectiveRequest::engineServers): NVLS runs on one
         * server, NVLS-tree across servers of equal rank counts.
         */
        bool nvls{false};
        uint32_t nvlsChannels{0}; //!< NVLS search channels: one per GPU
        double nvlsSpeed{0};      //!< GB/s per NVLS search channel inside a server (bwIntra)
        double nvlsInterSpeed{0}; //!< GB/s per NVLS-tree search channel across servers (bwInter)
    };
    /** The graph for \p request's ranks, placement and NIC and NVLink rates. */
    static Graph MakeGraph(const CollectiveRequest& request);

    explicit NcclTuningModel(const Graph& graph);

    /** Bus bandwidth in GB/s of \p algorithm and \p protocol for \p op (0: not available). */
    double BusBandwidth(CollectiveOperation op, Algorithm algorithm, Protocol protocol) const;
    /** Latency in us. */
    double Latency(CollectiveOperation op, Algorithm algorithm, Protocol protocol) const;
    /** Predicted time in us of \p bytes (negative: not available). */
    double Time(CollectiveOperation op, Algorithm algorithm, Protocol protocol,
                uint64_t bytes) const;
    /** The channels NCCL runs \p bytes on with \p algorithm and \p protocol. */
    uint32_t Channels(Algorithm algorithm, Protocol protocol, uint64_t bytes) const;

    struct Choice
    {
        std::string algorithm; //!< a CollectiveAlgorithm's short name
        std::string protocol;  //!< a CollectiveProtocol's short name
        uint32_t channels{1};
        double timeUs{0};      //!< the model's prediction
    };
    /** NCCL's pick for \p op of \p bytes. */
    Choice Choose(CollectiveOperation op, uint64_t bytes) const;

    static const char* AlgorithmName(Algorithm a);
    static const char* ProtocolName(Protocol p);

  private:
    Graph m_graph;
};

} // namespace ns3

#endif
