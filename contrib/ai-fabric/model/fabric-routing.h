#ifndef AI_FABRIC_FABRIC_ROUTING_H
#define AI_FABRIC_FABRIC_ROUTING_H

#include "fabric-topology.h"
#include "forwarding-table.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class FabricChannel;
class FabricEndpoint;
class FabricSwitch;

/**
 * \ingroup ai-fabric
 * \brief Equal-cost routing of a fabric, computed from its topology graph (Boost.Graph).
 *
 * For each destination host, Dijkstra from it over the links that are up (NVLink hops cost 1,
 * Ethernet hops 8, so traffic inside a server stays on NVLink) gives every node its distance;
 * a node's next hops are all neighbours on a shortest path.  Hosts never relay others' traffic
 * unless the topology makes them transit.  When a link changes state, the tables of every node
 * are recomputed after ConvergenceDelay (failure detection plus control-plane reaction); until
 * then switches keep forwarding into the dead port, where frames are dropped and counted.
 */
class FabricRouting : public Object
{
  public:
    static constexpr uint32_t kNvLinkCost = 1;   //!< cost of an intra-server hop
    static constexpr uint32_t kEthernetCost = 8; //!< cost of a scale-out hop

    static TypeId GetTypeId();
    FabricRouting();

    /**
     * Compute and install tables for \p topology now, and follow the channels' link state.
     * The vectors are indexed by topology node id (null where a node is not of that kind) and
     * link id.  The topology must outlive this object.
     */
    void Install(const FabricTopology* topology,
                 const std::vector<Ptr<FabricSwitch>>& switches,
                 const std::vector<Ptr<FabricEndpoint>>& endpoints,
                 const std::vector<Ptr<FabricChannel>>& channels);

    /** The forwarding tables of every node for the links marked up in \p linkUp. */
    static std::vector<ForwardingTable> ComputeTables(const FabricTopology& topology,
                                                      const std::vector<bool>& linkUp);
    /**
     * Take down (false) or release (true) link \p linkId, which has no channel here (both its
     * ends are another MPI rank's), with FabricChannel::SetUp's counting of causes: every rank
     * then routes around it alike.
     */
    void SetRemoteLinkUp(uint32_t linkId, bool up);
    /** How many times tables were installed (the first install counts). */
    uint32_t GetNRecomputations() const { return m_recomputations; }

  protected:
    void DoDispose() override;

  private:
    void LinkStateChanged(bool up);
    void Recompute();

    Time m_convergenceDelay;
    const FabricTopology* m_topology{nullptr};
    std::vector<Ptr<FabricSwitch>> m_switches;
    std::vector<Ptr<FabricEndpoint>> m_endpoints;
    std::vector<Ptr<FabricChannel>> m_channels;
    std::vector<uint32_t> m_remoteDownHolds; //!< by link id: causes keeping a channel-less link down
    EventId m_pending;
    uint32_t m_recomputations{0};
    TracedCallback<> m_recomputedTrace;
};

} // namespace ns3

#endif
