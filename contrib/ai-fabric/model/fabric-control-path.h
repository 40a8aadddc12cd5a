#ifndef AI_FABRIC_FABRIC_CONTROL_PATH_H
#define AI_FABRIC_FABRIC_CONTROL_PATH_H

#include "ns3/callback.h"
#include "ns3/event-impl.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The cluster's control path: small notices that every process of a run receives a
 * fixed latency after they were sent, such as a training job's ranks telling each other they
 * finished an iteration (the barrier).
 *
 * A notice is a handler (registered with AddHandler, in the same order in every process), the
 * sender's index (a rank) and a few integers.  Broadcast delivers it to the handler after the
 * given latency: in one process once; in a run split over MPI ranks once in every process (a
 * FabricRemoteControlPath sends it to the others through ns-3's MpiInterface), so that each
 * process keeps the same view of, say, a job's progress.  The latency is the control path's
 * (the messages of a barrier as the cluster's management network or NCCL's bootstrap carries
 * them), not modelled further: no queues, no losses.
 *
 * Delivery is a ControlArrival event, which FabricScheduler orders among the arrivals of one
 * instant by its tie key (after every frame arrival, then by handler and sender), so a
 * distributed run sees the same order as one process.  Across MPI ranks a notice must take
 * longer than the lookahead (GetMinLatency).
 */
class FabricControlPath : public Object
{
  public:
    /** A notice: the sender's index and its values. */
    using Handler = Callback<void, uint32_t, const std::vector<int64_t>&>;

    static TypeId GetTypeId();

    /** Register \p handler; returns its id (0, 1, ... in registration order). */
    uint32_t AddHandler(Handler handler);
    /**
     * After \p latency, run handler \p id with (\p from, \p values) in every process.
     * \p latency must be at least GetMinLatency() (std::invalid_argument otherwise).
     */
    virtual void Broadcast(uint32_t id, uint32_t from, std::vector<int64_t> values, Time latency);
    /**
     * Split the path over MPI ranks (FabricRemoteControlPath does; this one, for a single
     * process, throws std::logic_error): node n of \p nodes is simulated by rank
     * \p rankOfNode[n] and has \p portsOfNode[n] fabric ports; \p lookahead is the longest
     * of the ranks' lookaheads (each rank's: the shortest delay of its links to other ranks).
     */
    virtual void SetPartition(const NodeContainer& nodes,
                              const std::vector<uint32_t>& rankOfNode,
                              const std::vector<uint32_t>& portsOfNode,
                              Time lookahead);
    /**
     * The smallest latency Broadcast takes: 0 in one process; across MPI ranks, just above the
     * longest of the ranks' lookaheads.
     */
    virtual Time GetMinLatency() const;

    /**
     * Throw std::invalid_argument if \p latency is below GetMinLatency(): "<what> <latency>
     * ps: ... allowed: at least <least> ps" (\p what names it, e.g. "job 'a': BarrierLatency of").
     */
    void CheckLatency(const std::string& what, Time latency) const;

  protected:
    void DoDispose() override;
    /** Run handler \p id with (\p from, \p values) here, \p delay from now. */
    void Deliver(uint32_t id, uint32_t from, std::vector<int64_t> values, Time delay);
    /** Throw std::invalid_argument if \p id is not registered or \p latency is too short. */
    void CheckNotice(uint32_t id, Time latency) const;

  private:
    std::vector<Handler> m_handlers;
};

/**
 * \ingroup ai-fabric
 * \brief The event that hands a control notice to its handler.
 *
 * Its tie key puts it after every FrameArrival of the same instant (those take keys below
 * 2^50), then orders notices by handler and sender: a key that depends only on the notice,
 * never on when its event was scheduled, as FabricScheduler requires.
 */
class ControlArrival final : public EventImpl
{
  public:
    ControlArrival(FabricControlPath::Handler handler,
                   uint32_t id,
                   uint32_t from,
                   std::vector<int64_t> values);
    /** Lower first among the arrivals of one instant. */
    uint64_t GetTieKey() const { return m_tieKey; }

    /** The least tie key of a notice: a FrameArrival's is below it. */
    static constexpr uint64_t kTieKeyBase = uint64_t{1} << 62;

  private:
    void Notify() override;

    FabricControlPath::Handler m_handler;
    uint64_t m_tieKey;
    uint32_t m_from;
    std::vector<int64_t> m_values;
};

} // namespace ns3

#endif
