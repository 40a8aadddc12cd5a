#ifndef AI_FABRIC_FABRIC_SWITCH_H
#define AI_FABRIC_FABRIC_SWITCH_H

#include "fabric-net-device.h"
#include "forwarding-table.h"
#include "shared-buffer-mmu.h"

#include "ns3/object.h"

#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A shared-buffer Ethernet switch of the fabric, aggregated to its ns-3 Node.
 *
 * Ports are the node's FabricNetDevices, in order.  A data frame arriving on a port is looked
 * up by destination host in the forwarding table (equal-cost next hops computed by
 * FabricRouting), one next hop is chosen (LoadBalancing: the flow's five-tuple hash with this
 * switch's seed, per-packet spraying, adaptive routing by queue depth, or flowlets), the MMU
 * admits it (or it is dropped with a reason), and it joins
 * the egress port's class queue.  A frame whose chosen egress is down is dropped (LinkDown)
 * until routing converges around it.
 */
class FabricSwitch : public Object, public FabricPortOwner
{
  public:
    /** How a switch spreads flows over equal-cost next hops. */
    enum LoadBalancing
    {
        FLOW_HASH,    //!< ECMP: hash of the five-tuple, per-switch seed
        PACKET_SPRAY, //!< each frame to the next port in turn
        ADAPTIVE,     //!< each frame to the least-queued port, the hashed one within a margin
        FLOWLET,      //!< a flow keeps its port until it pauses, then takes another
    };

    static TypeId GetTypeId();
    FabricSwitch();

    /** Add \p port (already on the node, its ifIndex equal to the port count so far). */
    void AddPort(Ptr<FabricNetDevice> port);
    /**
     * Size the MMU from the ports' links; call once after the last AddPort.  False if the
     * MMU's BufferSize cannot hold the reserves and PFC headroom these ports need.
     */
    bool Finalize();
    void SetForwardingTable(ForwardingTable table) { m_table = std::move(table); }
    uint32_t GetNPorts() const { return static_cast<uint32_t>(m_ports.size()); }
    Ptr<FabricNetDevice> GetPort(uint32_t i) const { return m_ports[i]; }
    Ptr<SharedBufferMmu> GetMmu() const { return m_mmu; }
    void SetMmu(Ptr<SharedBufferMmu> mmu) { m_mmu = mmu; }
    /** Data frames forwarded to an egress queue. */
    uint64_t GetFramesForwarded() const { return m_forwarded; }
    /** The equal-cost egress ports toward host \p dstHost (empty: no route). */
    const ForwardingTable::PortSet& NextHops(uint32_t dstHost) const
    {
        return m_table.NextHops(dstHost);
    }

    /**
     * Whether the switch spreads a flow's frames over the next hops (spraying, adaptive
     * routing) rather than keeping it on one; the flow-level model splits such a flow evenly.
     */
    bool SpreadsFlows() const
    {
        return m_loadBalancing == PACKET_SPRAY || m_loadBalancing == ADAPTIVE;
    }

    /**
     * The port of \p hops a flow that never pauses keeps, at flow level: ECMP's hash, or its
     * first flowlet's (FLOWLET).
     */
    uint16_t FlowEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const;
    /** The port of \p hops that ECMP's hash of \p info's five-tuple picks. */
    uint16_t HashEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const;
    /** Delay from a frame's last bit in to its reaching an egress queue (ForwardingLatency). */
    Time GetForwardingLatency() const { return m_forwardingLatency; }

  protected:
    void DoDispose() override;

  private:
    void ReceiveFrame(FabricNetDevice* ingress, const FrameInfo& info) override;
    void FrameDequeued(uint16_t egress, uint16_t ingress, uint8_t priority, uint32_t bytes) override;
    void PauseIngress(uint16_t ingress, uint8_t priority, bool pause);
    uint16_t ChooseEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info);
    /**
     * ADAPTIVE: the least-queued of \p hops for \p info's class whose link is up, the hashed
     * one if within AdaptiveHysteresis bytes of it.
     */
    uint16_t AdaptiveEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info) const;
    /** FLOWLET: \p info's flowlet's port, or a new one if it paused FlowletGap or longer. */
    uint16_t FlowletEgress(const ForwardingTable::PortSet& hops, const FrameInfo& info);
    /** Whether Trimming may cut \p info: a data frame not trimmed already. */
    static bool Trimmable(const FrameInfo& info);
    /**
     * Queue \p info, which the buffer could not hold, cut to its headers in TrimClass at
     * port \p e (or drop it if the buffer cannot hold that either).
     */
    void Trim(uint16_t in, uint16_t e, const FrameInfo& info);
    /** FLOWLET: the port of flowlet \p count of \p info's flow (one whose link is up). */
    uint16_t FlowletPort(const ForwardingTable::PortSet& hops,
                         const FrameInfo& info,
                         uint32_t count) const;

    /** A flowlet entry no frame has used. */
    static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();

    /** A flowlet table entry: its flowlet's port, the flowlet count and its last frame. */
    struct Flowlet
    {
        int64_t lastTs{kNever}; //!< when its last frame passed, in time steps
        uint32_t count{0};      //!< flowlets so far (draws the next one's port)
        uint16_t port{0};       //!< the egress of the current flowlet
    };

    std::vector<Ptr<FabricNetDevice>> m_ports;
    Ptr<SharedBufferMmu> m_mmu;
    ForwardingTable m_table;
    Time m_forwardingLatency;
    uint32_t m_seed{};
    LoadBalancing m_loadBalancing{};
    uint32_t m_sprayNext{0};
    uint64_t m_hysteresis{};         //!< AdaptiveHysteresis, bytes
    Time m_flowletGap;               //!< FlowletGap
    uint32_t m_flowletEntries{};     //!< FlowletTableSize
    std::vector<Flowlet> m_flowlets; //!< allocated at the first frame of a flowlet switch
    bool m_trimming{};               //!< Trimming
    uint8_t m_trimClass{};           //!< TrimClass
    bool m_telemetry{};              //!< Telemetry
    uint64_t m_forwarded{0};
};

} // namespace ns3

#endif
