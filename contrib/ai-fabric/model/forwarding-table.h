#ifndef AI_FABRIC_FORWARDING_TABLE_H
#define AI_FABRIC_FORWARDING_TABLE_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Equal-cost next hops of one node, indexed by destination host id.
 *
 * Many destinations share one set of ports (every host beyond the pod leaves by the same
 * uplinks), so each distinct set is stored once and a destination holds its index: lookups are
 * two vector reads, and a table's size is hosts x 4 bytes plus the distinct sets.
 */
class ForwardingTable
{
  public:
    using PortSet = std::vector<uint16_t>;

    /** An empty table for \p hosts destinations (every destination unreachable). */
    explicit ForwardingTable(uint32_t hosts = 0);
    /** Set the equal-cost ports toward \p host (sorted, deduplicated by the caller). */
    void SetNextHops(uint32_t host, const PortSet& ports);
    /** The equal-cost ports toward \p host; empty if unreachable or out of range. */
    const PortSet& NextHops(uint32_t host) const
    {
        return host < m_setOfHost.size() ? m_sets[m_setOfHost[host]] : m_sets[0];
    }
    uint32_t GetNHosts() const { return static_cast<uint32_t>(m_setOfHost.size()); }
    uint32_t GetNDistinctSets() const { return static_cast<uint32_t>(m_sets.size()); }

  private:
    std::vector<PortSet> m_sets;       //!< distinct port sets; [0] is the empty set
    std::vector<uint32_t> m_setOfHost; //!< destination host -> index into m_sets
};

} // namespace ns3

#endif
