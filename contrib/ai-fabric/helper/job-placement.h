#ifndef AI_FABRIC_JOB_PLACEMENT_H
#define AI_FABRIC_JOB_PLACEMENT_H

#include "ns3/fabric-topology.h"
#include "ns3/random-variable-stream.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Which GPU each rank of a job runs on: an explicit policy.
 *
 * - packed: the free GPUs in order (server by server, GPU by GPU), so consecutive ranks (a
 *   tensor-parallel group) share a server and data-parallel peers are on different servers;
 * - scattered: a uniformly random choice of free GPUs in random order (seeded stream);
 * - map: a user's rank -> GPU list, one "rank gpu" pair per line (GPU by host name such as
 *   s3g5, or host id), '#' starts a comment.
 */
class JobPlacement
{
  public:
    enum Policy
    {
        PACKED,
        SCATTERED,
        MAP,
    };
    static JobPlacement Packed();
    static JobPlacement Scattered();
    /** The map in \p text; \p origin names it in errors.  Throws for a malformed line. */
    static JobPlacement FromMapText(const std::string& text, const std::string& origin);
    /** The map in file \p path; throws if it cannot be read or is malformed. */
    static JobPlacement FromMapFile(const std::string& path);
    /** "packed" or "scattered"; throws std::invalid_argument listing them otherwise. */
    static JobPlacement FromName(const std::string& name);

    Policy GetPolicy() const { return m_policy; }
    /**
     * Hosts for \p ranks ranks, by rank, among those of \p topology not \p taken (by host
     * id); \p random draws the scattered choice.  Throws std::invalid_argument if there are
     * too few free GPUs or the map does not fit (a rank missing or repeated, an unknown,
     * taken or repeated GPU).
     */
    std::vector<uint32_t> Place(const FabricTopology& topology, uint32_t ranks,
                                const std::vector<bool>& taken,
                                Ptr<UniformRandomVariable> random) const;

  private:
    explicit JobPlacement(Policy policy)
        : m_policy(policy)
    {
    }
    std::vector<uint32_t> PlaceMap(const FabricTopology& topology, uint32_t ranks,
                                   const std::vector<bool>& taken) const;

    Policy m_policy;
    std::string m_origin; //!< MAP: where the map came from
    struct Entry
    {
        uint32_t line;
        uint32_t rank;
        std::string gpu;
    };
    std::vector<Entry> m_map;
};

} // namespace ns3

#endif
