#ifndef AI_FABRIC_TRAFFIC_PATTERN_HELPER_H
#define AI_FABRIC_TRAFFIC_PATTERN_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/flow-size-distribution.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/** One transfer: \p bytes from host \p src to host \p dst, starting at \p start. */
struct TrafficFlow
{
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
    Time start;
};

/**
 * \ingroup ai-fabric
 * \brief The flows of the classic data-center traffic patterns among hosts 0 .. hosts - 1,
 * or of an htsim connection-matrix file.
 *
 * Every flow of a pattern carries SetFlowBytes bytes and starts at SetStart.  A pattern only
 * says who sends to whom: MessageSourceHelper::Install (plain messages) or
 * RdmaHelper::Connect and RdmaQueuePair::PostSend (RDMA) put each flow on the fabric.  The
 * random patterns draw from one stream (AssignStreams).  Arguments out of range throw
 * std::invalid_argument naming them.
 */
class TrafficPatternHelper
{
  public:
    /** Bytes per flow unless SetFlowBytes says otherwise: 1 MiB. */
    static constexpr uint64_t kDefaultFlowBytes = uint64_t(1) << 20;
    /** The largest flow a connection-matrix line may give (1 TiB). */
    static constexpr uint64_t kMaxFlowBytes = uint64_t(1) << 40;

    /** Patterns among \p hosts hosts (at least 2). */
    explicit TrafficPatternHelper(uint32_t hosts);

    /** Bytes of every flow from now on (at least 1). */
    void SetFlowBytes(uint64_t bytes);
    /** Start of every flow from now on (default 0). */
    void SetStart(Time start);
    /** Use random stream \p stream; returns the number of streams used (1). */
    int64_t AssignStreams(int64_t stream);

    /** Host i sends to host (i + \p shift) mod hosts; \p shift in [1, hosts - 1]. */
    std::vector<TrafficFlow> Shift(uint32_t shift) const;
    /**
     * A random cyclic derangement (Sattolo's algorithm): every host sends to one host and
     * receives from one, none to itself.
     */
    std::vector<TrafficFlow> Permutation();
    /** Every host sends to a host drawn uniformly from the others (receivers may repeat). */
    std::vector<TrafficFlow> Random();
    /** The first \p senders hosts other than \p receiver send to it. */
    std::vector<TrafficFlow> Incast(uint32_t receiver, uint32_t senders) const;
    /** Every host sends to every other host. */
    std::vector<TrafficFlow> AllToAll() const;

    /**
     * The flows of an htsim connection matrix (csg-htsim's ConnectionMatrix::load format):
     * '#' comments, a header of "Nodes N" (N <= hosts) and "Connections C" (the number of
     * flow lines), then one "src->dst [id I] start T size S" line per flow, T in
     * microseconds (up to 6 decimals), S in bytes (absent or 0: SetFlowBytes's).  htsim's triggers, failures
     * and priorities have no counterpart here and are refused.  \p origin names the text in
     * errors, which give the line.
     */
    std::vector<TrafficFlow> FromConnectionMatrix(std::istream& in,
                                                  const std::string& origin) const;
    /**
     * Open-loop traffic at a target load, as congestion-control studies generate it (HPCC's
     * traffic generator): each host starts flows as a Poisson process from SetStart until
     * \p duration later, each to a host drawn uniformly from the others, its size drawn from
     * \p sizes (rounded to whole bytes, at least 1).  The arrival rate makes each host offer
     * \p load of \p hostRate on average: load x rate / (8 x mean size) flows a second.
     * Flows come in order of start (ties by host).  \p load in (0, 1], \p duration > 0.
     */
    std::vector<TrafficFlow> Poisson(const FlowSizeDistribution& sizes,
                                     double load,
                                     DataRate hostRate,
                                     Time duration);
    /** FromConnectionMatrix of file \p path; throws if it cannot be read. */
    std::vector<TrafficFlow> FromConnectionMatrixFile(const std::string& path) const;

  private:
    uint32_t m_hosts;
    uint64_t m_bytes{kDefaultFlowBytes};
    Time m_start;
    Ptr<UniformRandomVariable> m_random;
};

} // namespace ns3

#endif
