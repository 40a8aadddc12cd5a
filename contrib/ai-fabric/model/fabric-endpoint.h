#ifndef AI_FABRIC_FABRIC_ENDPOINT_H
#define AI_FABRIC_FABRIC_ENDPOINT_H

#include "fabric-net-device.h"
#include "forwarding-table.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A host's transport as its FabricEndpoint sees it: given every frame for the host.
 *
 * An interface rather than a callback: a frame's delivery is a direct call, without the
 * callback's objects to read at every frame.
 */
class FabricTransport
{
  public:
    virtual ~FabricTransport() = default;
    /** A data frame addressed to this host. */
    virtual void Deliver(const FrameInfo& info) = 0;
};

/**
 * \ingroup ai-fabric
 * \brief A sender waiting for room in a port's queue: what FabricEndpoint::NotifyWhenPortDequeues
 * calls back.
 *
 * A queue pair or a message source implements it and queues itself, once per frame it sends: a
 * pointer to the sender, with no callback object to reach and count references on.  The
 * endpoint does not hold it: a waiter must stay alive until it is called (or the endpoint is
 * disposed, which drops the waiters still queued).
 */
class PortWaiter
{
  public:
    virtual ~PortWaiter() = default;
    /** A frame left the port's queue for the wire: the waiter may hand the port another. */
    virtual void PortDequeued() = 0;
};

/**
 * \ingroup ai-fabric
 * \brief The network end of a fabric host (a GPU or a server NIC), aggregated to its Node.
 *
 * Owns the host's ports (its NIC and, on a GPU, its NVLink-class port), sends data frames
 * built by applications out of the port that routing chooses toward the destination, and
 * delivers frames addressed to this host to its transport (a FabricTransport) and then to
 * the Deliver trace's observers, counting them (GetFramesDelivered, GetPayloadDelivered,
 * GetLastDelivery).  Hosts do not forward
 * other hosts' traffic unless the topology makes them transit (rail-only fabrics, where
 * cross-rail traffic crosses NVLink first).
 */
class FabricEndpoint : public Object, public FabricPortOwner
{
  public:
    static TypeId GetTypeId();
    FabricEndpoint();

    void SetHostId(uint32_t id) { m_hostId = id; }
    uint32_t GetHostId() const { return m_hostId; }
    /** Add \p port (already on the node, its ifIndex equal to the port count so far). */
    void AddPort(Ptr<FabricNetDevice> port);
    uint32_t GetNPorts() const { return static_cast<uint32_t>(m_ports.size()); }
    Ptr<FabricNetDevice> GetPort(uint32_t i) const { return m_ports[i]; }
    /**
     * The port of the smallest payload MTU (a GPU's NIC beside its NVLink, whose segments are
     * larger): where a sender without a route sends, and its frames are dropped as NoRoute.
     */
    Ptr<FabricNetDevice> GetSmallestMtuPort() const;
    /** The EcmpSeed attribute (a new seed re-chooses every sender's route). */
    void SetEcmpSeed(uint32_t seed)
    {
        m_seed = seed;
        ++m_tableVersion;
    }
    uint32_t GetEcmpSeed() const { return m_seed; }
    void SetForwardingTable(ForwardingTable table)
    {
        m_table = std::move(table);
        ++m_tableVersion;
    }
    /** Let frames for other hosts through (rail-only transit). */
    void SetTransit(bool transit) { m_transit = transit; }

    /** The equal-cost ports toward host \p dstHost (empty: no route). */
    const ForwardingTable::PortSet& NextHops(uint32_t dstHost) const
    {
        return m_table.NextHops(dstHost);
    }
    /** The port of \p hops that ECMP's hash of \p info's five-tuple picks. */
    uint16_t HashEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const;
    /** Whether frames for other hosts go through (rail-only transit). */
    bool IsTransit() const { return m_transit; }
    /** The port a flow with hash entropy \p udpSrcPort to \p dstHost leaves by (null if none). */
    Ptr<FabricNetDevice> PortToward(uint32_t dstHost, uint16_t udpSrcPort) const;

    /**
     * Where a sender's frames leave: the port Send chose for a destination
     * and entropy, kept by the sender between frames so that a frame costs no route lookup.
     * Send chooses again for another destination or entropy, or when the forwarding table, the
     * ports or the ECMP seed have changed since.
     */
    struct Route
    {
        FabricNetDevice* port{nullptr}; //!< null: no route
        uint64_t tableVersion{0}; //!< the table it was chosen under (0: never)
        uint32_t dstHost{0};
        uint16_t udpSrcPort{0};

        /**
         * Make \p waitOn (the port a sender waits on for room) this route's port when routing
         * moved the flow (a host link died): a dead port's flushed queue would read empty.
         */
        void Follow(Ptr<FabricNetDevice>& waitOn) const
        {
            if (port && port != PeekPointer(waitOn))
            {
                waitOn = port;
            }
        }
    };

    /**
     * Make \p route the port a frame to \p dstHost with entropy \p udpSrcPort leaves by,
     * choosing again only if it was chosen for another destination or entropy or under other
     * tables (what Send does first).
     */
    void Choose(Route& route, uint32_t dstHost, uint16_t udpSrcPort) const;
    /**
     * Send a data frame per \p spec (its source host is filled in here).  Returns
     * false, counting the drop, if there is no route or the port's link is down.
     */
    bool Send(DataFrameSpec spec);
    /** Send as above, by \p route (the sender's, chosen anew only when it no longer holds). */
    bool Send(DataFrameSpec spec, Route& route);
    /**
     * Call \p waiter's PortDequeued once, the next time a frame leaves \p port's queue for the
     * wire: how a sender fetches work only when the NIC can take it (waiters are served in turn,
     * one queued twice is called twice).  Not held and never removed: \p waiter must stay alive
     * until it is called (DoDispose drops the waiters still queued).
     */
    void NotifyWhenPortDequeues(uint32_t port, PortWaiter* waiter);
    /**
     * The host's transport (its RDMA NIC, not held: it holds this endpoint): given every frame
     * delivered here, before the Deliver trace's observers.  One per host.
     */
    void SetTransport(FabricTransport* transport);
    /** Frames delivered to this host: data, and on RDMA traffic ACKs, NAKs and CNPs too. */
    uint64_t GetFramesDelivered() const { return m_delivered; }
    /** Their payload bytes. */
    uint64_t GetPayloadDelivered() const { return m_payloadDelivered; }
    /** When the last of them was delivered (zero if none was). */
    Time GetLastDelivery() const { return m_lastDelivery; }

  protected:
    void DoDispose() override;

  private:
    void ReceiveFrame(FabricNetDevice* port, const FrameInfo& info) override;
    void FrameDequeued(uint16_t port, uint16_t ingress, uint8_t priority, uint32_t bytes) override;

    // What a frame's delivery reads, together.  Deliveries are counted here rather than by a
    // trace's observer: a callback per frame is a cache miss or two at thousands of hosts.
    uint32_t m_hostId{0};
    uint64_t m_delivered{0};        //!< GetFramesDelivered
    uint64_t m_payloadDelivered{0}; //!< GetPayloadDelivered
    Time m_lastDelivery;            //!< GetLastDelivery
    FabricTransport* m_transport{nullptr};
    TracedCallback<const FrameInfo&> m_deliverTrace;
    std::vector<Ptr<FabricNetDevice>> m_ports;
    std::vector<std::deque<PortWaiter*>> m_waiters; //!< per port, not held
    ForwardingTable m_table;
    uint64_t m_tableVersion{1}; //!< counts changes of tables, ports and seed (Route::tableVersion)
    bool m_transit{false};
    uint32_t m_seed{};
};

} // namespace ns3

#endif
