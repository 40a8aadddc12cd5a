#ifndef AI_FABRIC_FABRIC_SWITCH_H
#define AI_FABRIC_FABRIC_SWITCH_H

#include "fabric-net-device.h"
#include "forwarding-table.h"
#include "shared-buffer-mmu.h"

#include "ns3/object.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A shared-buffer Ethernet switch of the fabric, aggregated to its ns-3 Node.
 *
 * Ports are the node's FabricNetDevices, in order.  A data frame arriving on a port is looked
 * up by destination host in the forwarding table (equal-cost next hops computed by
 * FabricRouting), one next hop is chosen by the flow's five-tuple hash with this switch's seed
 * or by per-packet spraying, the MMU admits it (or it is dropped with a reason), and it joins
 * the egress port's class queue.  A frame whose chosen egress is down is dropped (LinkDown)
 * until routing converges around it.
 */
class FabricSwitch : public Object, public FabricPortOwner
{
  public:
    /** How a switch spreads flows over equal-cost next hops. */
    enum LoadBalancing
    {
        FLOW_HASH,   //!< ECMP: hash of the five-tuple, per-switch seed
        PACKET_SPRAY, //!< each frame to the next port in turn
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
    /** Whether the switch sprays frames over the next hops (else it hashes flows). */
    bool SpraysPackets() const { return m_loadBalancing == PACKET_SPRAY; }
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

    std::vector<Ptr<FabricNetDevice>> m_ports;
    Ptr<SharedBufferMmu> m_mmu;
    ForwardingTable m_table;
    Time m_forwardingLatency;
    uint32_t m_seed{};
    LoadBalancing m_loadBalancing{};
    uint32_t m_sprayNext{0};
    uint64_t m_forwarded{0};
};

} // namespace ns3

#endif
