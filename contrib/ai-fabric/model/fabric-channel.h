#ifndef AI_FABRIC_FABRIC_CHANNEL_H
#define AI_FABRIC_FABRIC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * \brief A full-duplex cable between two FabricNetDevice ports.
 *
 * Owns what belongs to the physical link: its rate (the same both ways), its propagation delay
 * and whether it is up.  Taking the link down loses the frames in flight on it (they arrive at
 * no one and are counted by the receiving port as LinkDown drops) and tells both ports, which
 * drop what they hold.
 */
class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FabricChannel();

    /** Attach a port; a channel takes exactly two. */
    void Attach(Ptr<FabricNetDevice> device);
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    /** The port at the other end from \p device. */
    Ptr<FabricNetDevice> GetPeer(Ptr<const FabricNetDevice> device) const;

    /**
     * Hand a frame whose last bit leaves \p sender after \p txTime to the far end; it arrives
     * after the propagation delay plus \p extraDelay (the far end's forwarding latency).
     */
    void Transmit(Ptr<Packet> p, Ptr<const FabricNetDevice> sender, Time txTime, Time extraDelay);

    DataRate GetDataRate() const { return m_rate; }
    /** Change the line rate (e.g. lanes lost); both ports see it from their next frame. */
    void SetDataRate(DataRate rate);
    Time GetDelay() const { return m_delay; }
    bool IsUp() const { return m_up; }
    /** Take the link down or bring it back up; both ports and the LinkState trace are told. */
    void SetUp(bool up);
    /** Incremented each time the link goes down: frames sent in an earlier epoch are lost. */
    uint32_t GetEpoch() const { return m_epoch; }

  private:
    Ptr<FabricNetDevice> m_devices[2];
    std::size_t m_nDevices{0};
    DataRate m_rate;
    Time m_delay;
    bool m_up{true};
    uint32_t m_epoch{0};
    TracedCallback<bool> m_linkStateTrace; //!< fired with the new state on each change
};

} // namespace ns3

#endif
