#ifndef AI_FABRIC_FABRIC_REMOTE_CONTROL_PATH_H
#define AI_FABRIC_FABRIC_REMOTE_CONTROL_PATH_H

#include "fabric-control-path.h"

#include "ns3/packet.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The control path of a run split over MPI ranks: a notice reaches this process's
 * handler and, through ns-3's MpiInterface, every other rank's.
 *
 * Each MPI rank receives notices at a device of its own (an ns-3 SimpleNetDevice carrying an
 * MpiReceiver) that this path adds to one of its nodes, after the node's fabric ports.  A
 * notice crossing ranks lands a picosecond before it is due and schedules its ControlArrival,
 * as a frame crossing a FabricRemoteChannel does, so it ties with local events as in one
 * process.  Its latency must exceed every rank's lookahead (ns-3 gives each rank the shortest
 * delay of its own links to other ranks): GetMinLatency is the longest of them plus 2 ps.  Only built when ns-3 has its mpi module.
 */
class FabricRemoteControlPath : public FabricControlPath
{
  public:
    static TypeId GetTypeId();

    /**
     * Split over MPI ranks: node n of \p nodes is simulated by rank \p rankOfNode[n] and has
     * \p portsOfNode[n] fabric ports; \p lookahead is the longest of the ranks' lookaheads
     * (each rank's: the shortest delay of its links to other ranks).  Each rank receives at
     * its lowest-numbered node, at a device added after its ports; this adds this rank's.
     */
    void SetPartition(const NodeContainer& nodes,
                      const std::vector<uint32_t>& rankOfNode,
                      const std::vector<uint32_t>& portsOfNode,
                      Time lookahead) override;

    void Broadcast(uint32_t id, uint32_t from, std::vector<int64_t> values, Time latency) override;
    Time GetMinLatency() const override;

  private:
    /** A notice from another rank. */
    void Receive(Ptr<Packet> p);

    std::vector<uint32_t> m_receivers; //!< by MPI rank: the ns-3 node id it receives notices at
    std::vector<uint32_t> m_ifIndex;   //!< by MPI rank: that node's receiving interface
    Time m_lookahead;                  //!< the longest of the ranks' lookaheads
};

} // namespace ns3

#endif
