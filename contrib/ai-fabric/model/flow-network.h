#ifndef AI_FABRIC_FLOW_NETWORK_H
#define AI_FABRIC_FLOW_NETWORK_H

#include "fabric-channel.h"
#include "fabric-endpoint.h"
#include "fabric-routing.h"
#include "fabric-switch.h"
#include "fabric-topology.h"
#include "send-rate-limiter.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <queue>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The flow-level fabric: every connection's transfer a fluid flow at its max-min fair
 * share of the links on its path, recomputed when a flow starts or stops.
 *
 * It reads the packet-level fabric it stands in for: the topology's links (rate and
 * propagation delay from their channels), the hosts' and switches' forwarding tables and ECMP
 * hashes (a flow takes the path its queue pair's frames would take; a spraying switch splits
 * it evenly over its next hops), and the switches' forwarding latency.  A flow's rate counts
 * wire bytes (headers, ICRC, FCS, preamble and gap of every frame), and its acknowledgements
 * load the reverse path at one ACK frame per AckInterval data frames.  A send rate limiter
 * (a collective channel's producer) is one more shared resource, at its rate in payload bytes.
 *
 * Rates are the max-min fair allocation (progressive filling, Bertsekas and Gallager, Data
 * Networks, 2nd ed., section 6.5.2): every flow's rate rises together until a resource
 * saturates; the flows through it keep that rate, the others go on rising.  A message's last
 * frame then reaches the receiver after the path's propagation delays, the switches'
 * forwarding latency and its own serialization at every link after the first (store and
 * forward); its ACK returns the same way.
 *
 * A link's capacity follows its rate when it is degraded or restored.  A link that goes
 * down has no capacity: the flows through it stop until the routing
 * (FollowRouting) sends them around it.  A flow without ACKs (a message source's) whose
 * message is on the link then, or starts onto it, loses that message (TakeLost) and goes on
 * sending into the dead link, loading the rest of its path; a queue pair's flow waits, as
 * go-back-N resends what was lost once a path works, and gives up after its retry budget
 * (SetRetryBudget).  A flow with no path at all (every route to its destination gone) waits
 * on a resource of no capacity until the routing finds one.
 *
 * What it cannot see: queues and buffer occupancy, PFC pauses and head-of-line blocking,
 * ECN marks and congestion control, drops and retransmission (nor the time a timeout or NAK
 * takes to restart a queue pair after a link failure), the packet interleaving that makes a
 * real share differ from the fair one.
 */
class FlowNetwork : public Object
{
  public:
    static TypeId GetTypeId();
    FlowNetwork();

    /**
     * Model the fabric of \p topology whose switches and endpoints are \p switches and
     * \p endpoints (by node id, null where there is none) and whose links are \p channels (by
     * link id).
     */
    void Setup(const FabricTopology& topology, std::vector<Ptr<FabricSwitch>> switches,
               std::vector<Ptr<FabricEndpoint>> endpoints, std::vector<Ptr<FabricChannel>> channels);

    /** A flow's share of one resource: resource bytes per wire byte of the flow. */
    struct Use
    {
        uint32_t resource; //!< 2 x link id + direction (0: from the link's end a)
        double weight;
    };
    /** Where a connection's frames go and how long its last frame and its ACK take. */
    struct Route
    {
        std::vector<Use> uses;         //!< links of the data and of the ACKs
        Time dataDelay;                //!< propagation and forwarding, sender to receiver
        double dataSecondsPerByte{0};  //!< serialization per frame byte after the first link
        Time ackDelay;                 //!< propagation and forwarding, receiver to sender
        double ackSecondsPerByte{0};   //!< serialization per ACK byte on every link back
        uint32_t payloadMtu{0};        //!< of the sender's port: a full frame's payload
        bool acknowledged{true};       //!< false: no ACKs (a message source's frames)
        /** Links a data frame crosses, with its share of an ACK's (the frames' hops). */
        double hopsPerFrame{0};
        // What MakeRoute traced it from (to trace it again when the routes change).
        uint32_t src{0};
        uint32_t dst{0};
        uint16_t entropy{0};
        uint16_t peerEntropy{0};
        uint32_t ackInterval{0};
        bool sprayed{false};
    };

    /**
     * The route of endpoint \p src's queue pair with UDP source port \p entropy to endpoint
     * \p dst, whose ACKs leave \p dst with \p peerEntropy, one per \p ackInterval full
     * frames; \p ackInterval 0: no ACKs (the route has no uses back, and is not acknowledged).
     * \p sprayed: the queue pair draws a port per frame (RdmaQueuePair's Entropy Spray or
     * Recycle), so its frames and ACKs split evenly at every hop with several next hops, the
     * sender's NIC ports that are up included, and its frames are of the NIC's MTU
     * (Recycle's preference for unmarked paths is not modelled).
     * Throws std::invalid_argument if either has no route.
     */
    Route MakeRoute(uint32_t src,
                    uint32_t dst,
                    uint16_t entropy,
                    uint16_t peerEntropy,
                    uint32_t ackInterval,
                    bool sprayed) const;
    /**
     * As MakeRoute, but where a failure took the last route (a link is down) a route that
     * waits for one: no links, a resource of no capacity, the smallest MTU of \p src's ports
     * (its NIC's).  With every link up a missing route still throws.
     */
    Route MakeRouteOrWait(uint32_t src,
                          uint32_t dst,
                          uint16_t entropy,
                          uint16_t peerEntropy,
                          uint32_t ackInterval,
                          bool sprayed) const;

    /**
     * Follow \p routing: when it installs new tables every flow takes its new path (the same
     * hash draws on the new next hops).  A flow with no path left keeps its old one, whose
     * link is down, and so waits.
     */
    void FollowRouting(Ptr<FabricRouting> routing);

    /** Called when a flow's current message has left its sender (its last byte). */
    using SentCallback = Callback<void>;
    /**
     * Add a flow on \p route; \p sent is called each time its current message is sent.
     * \p payloadPerWireByte is what the flow's limiter counts per wire byte.  The flow keeps
     * \p owner (its queue pair) until ReleaseConnections.  Returns its id.
     */
    uint32_t AddFlow(Route route, double payloadPerWireByte, SentCallback sent,
                     Ptr<Object> owner);
    /**
     * Limit flow \p flow by \p limiter (shared with the other flows given it; null: none).
     * Its rate is read when its first flow starts sending (0 bit/s: no limit); a change while
     * flows use it is not seen until they have all stopped.
     */
    void SetLimiter(uint32_t flow, Ptr<SendRateLimiter> limiter);
    /**
     * Dispose every flow's owner and forget the flows (their queue pairs and this network
     * hold each other); RdmaHelper schedules it for Simulator::Destroy.
     */
    void ReleaseConnections();
    /**
     * Flow \p flow has a message of \p wireBytes in \p frames frames to send next.  From its
     * sent callback this continues at the flow's rate; otherwise the flow starts and the rates
     * are recomputed.
     */
    void Send(uint32_t flow, double wireBytes, uint64_t frames);
    /** The route flow \p flow takes now. */
    const Route& GetRoute(uint32_t flow) const { return m_flows[flow].route; }
    /**
     * How a queue pair spends its retries on a dead path, from when its flow stalls: it
     * resends at each timeout up to \p lastResend, and fails at \p fail if that last resend
     * found no path (RdmaQueuePair: RetryCount + 1 timeouts, each twice the last up to the cap).
     */
    struct RetryBudget
    {
        Time lastResend;
        Time fail;
    };
    /**
     * Flow \p flow gives up as a queue pair with \p budget would: still without a rate (a
     * link of its path down, or no path) at budget.lastResend after it stalled, it resends
     * its message at its first link's rate; if that burst goes out without a path, it sends
     * nothing more, and \p failed is called at budget.fail after the stall.
     */
    void SetRetryBudget(uint32_t flow, RetryBudget budget, Callback<void> failed);
    /**
     * Whether the message flow \p flow is sending lost frames to a link that went down under
     * it, or was started onto a down link (what a flow without ACKs loses for good); clears
     * it.  Ask once per message, when it is sent.
     */
    bool TakeLost(uint32_t flow);
    /** Wire bytes per second of resource \p resource now (a Use's resource). */
    double Capacity(uint32_t resource) const;
    /** The current rate of flow \p flow in wire bytes per second (0 when it is idle). */
    double GetRate(uint32_t flow) const { return m_flows[flow].rate; }
    /** Times the rates were recomputed. */
    uint64_t GetRecomputations() const { return m_recomputations; }
    /** Flows whose retry budget ran out (their queue pairs failed). */
    uint64_t GetFlowsFailed() const { return m_flowsFailed; }
    /** Data frames of the messages sent so far: what the packet model would send. */
    uint64_t GetDataFrames() const { return m_dataFrames; }
    /**
     * Hops of those frames and of their ACKs (a frame counted once per link it crosses): the
     * per-hop work the packet model would do, which its events follow.
     */
    double GetFrameHops() const { return m_frameHops; }

  protected:
    void DoDispose() override;

  private:
    struct Flow
    {
        Route route;
        double payloadPerWireByte{1};
        SentCallback sent;
        Ptr<Object> owner;
        Ptr<SendRateLimiter> limiter;
        std::vector<Use> current; //!< while active: uses, and the limiter's resource
        double rate{0};      //!< wire bytes per second
        double remaining{0}; //!< wire bytes of the current message left at \c updated
        Time updated;
        Time finish;         //!< when the current message is sent, at this rate
        uint64_t epoch{0};   //!< bumped when \c finish changes (stale heap entries)
        bool active{false};
        bool continued{false}; //!< Send was called from its own sent callback
        bool frozen{false};    //!< Fill: its rate is set
        bool changed{false};   //!< Fill: its rate changed (it needs a new finish time)
        uint64_t visit{0};     //!< Recompute: in the component being refilled
        bool lost{false};      //!< its message lost frames (TakeLost)
        bool stalled{false};   //!< active at rate 0 since Recompute found it so
        bool doomed{false};    //!< its last resend found no path: it sends nothing more
        Time stalledAt;        //!< when it last stalled (its retry budget counts from then)
        RetryBudget budget;    //!< fail 0: never gives up
        Callback<void> failed;
        EventId giveUp;        //!< the budget's next step while stalled or doomed
    };
    /** A heap entry: a flow's finish time as of one epoch. */
    struct Due
    {
        int64_t at;
        uint32_t flow;
        uint64_t epoch;
        bool operator>(const Due& o) const { return at != o.at ? at > o.at : flow > o.flow; }
    };

    /**
     * Trace the data path from \p src to \p dst; adds its uses to \p uses (by resource).
     * \p sprayed: split evenly at every hop with several next hops (at the sender, over its
     * NIC's ports that are up).
     */
    void TracePath(uint32_t src,
                   uint32_t dst,
                   uint16_t entropy,
                   bool sprayed,
                   double weight,
                   std::vector<Use>& uses,
                   Time& delay,
                   double& secondsPerByte,
                   bool countFirst) const;
    /** Flow \p flow starts using its resources (links and limiter). */
    void Join(uint32_t flow);
    /** Flow \p flow stops using them. */
    void Leave(uint32_t flow);
    /** Flow \p flow leaves and joins again (its uses changed), keeping its rate till the refill. */
    void Rejoin(uint32_t flow);
    /** Flow \p flow stops sending: it leaves, and is no longer stalled. */
    void Stop(uint32_t flow);
    /** A link's state changed: its capacity both ways is its rate or 0. */
    void LinkStateChanged(uint32_t link, bool up);
    /** A link's rate changed (degraded or restored): its capacity both ways follows. */
    void LinkRateChanged(uint32_t link, DataRate rate);
    /** The routes changed: every flow follows its new path. */
    void Retrace();
    /** Flow \p flow is still stalled at its last resend: it resends what it has. */
    void LastResend(uint32_t flow);
    /** Flow \p flow's last resend went out without a path: it stops, and fails later. */
    void Doom(uint32_t flow);
    /** Flow \p flow's retry budget is spent: its owner fails. */
    void GiveUp(uint32_t flow);
    /** The resource id of \p limiter, allocated while flows use it. */
    uint32_t LimiterResource(const Ptr<SendRateLimiter>& limiter);
    void RequestRecompute();
    void Recompute();
    /** Max-min rates of m_componentFlows by progressive filling. */
    void Fill();
    void Schedule(uint32_t flow);
    void Arm();
    void Finish();
    /** Bring flow \p f's remaining bytes to now. */
    void Advance(Flow& f);

    const FabricTopology* m_topology{nullptr};
    std::vector<Ptr<FabricSwitch>> m_switches;
    std::vector<Ptr<FabricEndpoint>> m_endpoints;
    std::vector<Ptr<FabricChannel>> m_channels;
    std::vector<double> m_capacity; //!< per directed link, wire bytes per second; then m_noPath's
    uint32_t m_noPath{0};            //!< the resource of no capacity a flow without a path uses
    std::vector<Flow> m_flows;
    /** Resources: the directed links (2 x link + direction), then limiters in use. */
    std::vector<std::vector<uint32_t>> m_on; //!< by resource: its active flows
    /** A limiter in use and its rate when its first flow joined (what the flows share). */
    struct Limiter
    {
        Ptr<SendRateLimiter> limiter;
        double bytesPerSecond{0};
    };
    std::vector<Limiter> m_limiters; //!< by resource - 2 x links
    std::unordered_map<const SendRateLimiter*, uint32_t> m_limiterResource;
    std::vector<uint32_t> m_freeLimiters;
    std::vector<uint32_t> m_dirty; //!< resources whose flows changed since the last Recompute
    std::vector<uint64_t> m_stamp; //!< by resource: the last Recompute that visited it
    uint64_t m_visit{0};
    std::vector<uint32_t> m_componentFlows;
    std::vector<uint32_t> m_componentResources;
    std::vector<double> m_left;        //!< Fill, by resource
    std::vector<double> m_full;        //!< Fill, by resource: what counts as no room left
    std::vector<double> m_weightSum;   //!< Fill, by resource
    std::vector<uint32_t> m_unfrozenOn; //!< Fill, by resource
    std::priority_queue<Due, std::vector<Due>, std::greater<>> m_due;
    EventId m_recompute;
    EventId m_next;
    uint32_t m_sending{UINT32_MAX}; //!< the flow whose sent callback runs
    uint64_t m_recomputations{0};
    uint64_t m_dataFrames{0};
    uint64_t m_flowsFailed{0};
    double m_frameHops{0};
};

} // namespace ns3

#endif
