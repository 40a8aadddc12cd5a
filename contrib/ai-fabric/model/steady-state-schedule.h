#ifndef AI_FABRIC_STEADY_STATE_SCHEDULE_H
#define AI_FABRIC_STEADY_STATE_SCHEDULE_H

#include "collective-schedule.h"

#include <functional>

namespace ns3
{

/** How the network carries a connection's messages one way, beyond their bytes at their rate. */
struct MessagePath
{
    /** From a message of this many wire bytes having left to its arrival (null: none). */
    std::function<Time(uint64_t)> arrival;
    Time ack;                 //!< from its arrival to its acknowledgement's
    /** the link it leaves the sender by (shared by its connections; a sprayed one's first) */
    uint32_t firstLink{0};
    /** that link's wire rate (a sprayed connection's first links' together; 0: not limited) */
    double bytesPerSecond{0};
    double framing{1};        //!< wire bytes per message byte (frame headers and gaps)
    /** The links it takes and its share of each (connections on the same are one route). */
    std::vector<std::pair<uint32_t, double>> links;
};
/** The MessagePath of a message from rank \p from to rank \p to on channel \p channel. */
using MessagePathFunction = std::function<MessagePath(uint32_t from, uint32_t to, uint32_t channel)>;

/**
 * \ingroup ai-fabric
 * \brief A pipelined collective in its steady state, as the collective fidelity runs it.
 *
 * For each rank: one message per connection (peer and channel) carrying every byte the
 * schedule sends over it, one receive of every byte it receives over it, one reduction and
 * one copy of all its reduced and copied bytes, all from the launch at once, so the fabric
 * sees every connection of the collective busy at once, as a pipelined algorithm keeps them;
 * and each rank finishes no sooner than its critical path (CollectiveSchedule::
 * GetCriticalPath): the step-by-step schedule's longest chain to the rank's last step, run
 * without the rest of the fabric.  In that chain a message waits for its connection's
 * messages before it, then takes its wire bytes at its static share (of its first link's
 * rate, or its first links' together when it sprays over several, and of the protocol's
 * channel rate, whichever is less, each shared by the rank's
 * connections that use it in proportion to their bytes, so they end together), then
 * \p network's arrival
 * latency and the protocol's hop latency (CollectiveSchedule::GetHopLatency) to be received,
 * and its ACK on top to complete its send; reductions and copies take no time there.  So a
 * collective whose steps are latency-bound takes its chain of latencies, one that is
 * bandwidth-bound takes its flows at their fair share of the contended fabric, and in
 * between the larger of the two.  A ring all-reduce over n ranks runs as 2 x channels
 * messages per rank instead of 4(n - 1) x channels x slices.  Where every pair of ranks
 * that talks does so over the same number k > 1 of channels, each pair's on one route (as
 * NVLink inside a server has it), those channels are one connection (the lowest), carrying
 * all their bytes at k channels' send budget (CollectiveSchedule::GetChannelsPerConnection):
 * 2 messages per rank.  Without \p network, messages have no arrival or ACK latency and no
 * link to share (the protocol's channel rate still applies).
 *
 * What it leaves out: contention inside the chain (the fabric's other traffic slows the
 * flows, not the chain), the reductions' place on the chain (the steady state overlaps
 * them with the transfers, as NCCL's kernels reduce while they copy), and the order in which
 * a step-by-step run meets congestion; a merged connection is one flow, so beside other
 * traffic on its links it gets one fair share where its channels would get k; and each rank's
 * critical path runs from its own start, as if its peers began with it.  Its distance from
 * the step-by-step flow model is measured in the module chapter (Usage, Flow fidelity).
 * \p schedule must keep every rank's steps, and each rank's steps must run in their order
 * (no receive listed before a send its peer waits for), as the algorithms build them.
 */
CollectiveSchedule SteadyStateSchedule(CollectiveSchedule schedule,
                                       const MessagePathFunction& network = {});

} // namespace ns3

#endif
