#ifndef AI_FABRIC_FABRIC_CHANNEL_H
#define AI_FABRIC_FABRIC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <utility>
#include <vector>

namespace ns3
{

class FabricNetDevice;
struct FrameInfo;

/**
 * \ingroup ai-fabric
 * \brief A full-duplex cable between two FabricNetDevice ports.
 *
 * Owns what belongs to the physical link: its rate (the same both ways), its propagation delay
 * and whether it is up.  Taking the link down loses the frames in flight on it (they arrive at
 * no one and are counted by the receiving port as LinkDown drops) and tells both ports, which
 * drop what they hold.
 *
 * A gray failure shows as a bit-error rate: each frame is corrupted with probability
 * 1 - (1 - BER)^bits over its bits from destination address to FCS, and the receiving port
 * drops it as an FCS error (IEEE 802.3 clause 3.2.9: a frame whose CRC fails is discarded).
 * Each direction draws from its own random stream, so the frames one port sends meet the same
 * errors whether or not the other port is simulated by the same process (MPI ranks).
 */
class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FabricChannel();

    /** Attach a port; a channel takes exactly two. */
    virtual void Attach(Ptr<FabricNetDevice> device);
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    /** The port at the other end from \p device. */
    Ptr<FabricNetDevice> GetPeer(Ptr<const FabricNetDevice> device) const;
    /**
     * Keep what a frame's arrival needs of \p device (an attached port: its node id and
     * address), so that a sender does not read the far port: a port calls it when they change.
     */
    void UpdateEnd(const FabricNetDevice* device);

    /** The order among arrivals of one instant of a frame to the port \p portKey. */
    static uint64_t TieKey(uint64_t portKey, bool pipelined)
    {
        return 2 * portKey + (pipelined ? 1 : 0);
    }
    /** GetPeer without reference counting, for the per-frame path. */
    const Ptr<FabricNetDevice>& PeerOf(const FabricNetDevice* device) const
    {
        return PeekPointer(m_devices[0]) == device ? m_devices[1] : m_devices[0];
    }

    /**
     * Hand a frame whose last bit leaves \p sender after \p txTime to the far end; it arrives
     * after the propagation delay plus \p extraDelay (the far end's forwarding latency).
     * The frame is the data frame \p info (which travels without a packet), or, \p info null,
     * the MAC control frame \p control (null for a data frame).
     */
    virtual void Transmit(const Ptr<Packet>& control,
                          const FrameInfo* info,
                          const FabricNetDevice* sender,
                          Time txTime,
                          Time extraDelay);

    /** The line rate now: the nominal rate times the degradation factor. */
    DataRate GetDataRate() const { return m_rate; }
    /** Set the nominal line rate; both ports see it from their next frame. */
    void SetDataRate(DataRate rate);
    DataRate GetNominalDataRate() const { return m_nominalRate; }
    /**
     * Run at \p factor (in (0, 1]) of the rate it runs at now, e.g. 0.75 when one of four
     * lanes is lost; DegradeRate(factor, false) undoes it.  Degradations compose.
     */
    void DegradeRate(double factor, bool apply);
    Time GetDelay() const { return m_delay; }
    bool IsUp() const { return m_up; }
    /** The Rate trace's signature: the new line rate. */
    typedef void (*RateTracedCallback)(DataRate rate);
    /**
     * Take the link down (false) or release one reason for it being down (true).  A link
     * taken down by several causes (both transceivers, a switch) comes back when the last of
     * them is released.  Both ports and the LinkState trace are told of each change.
     */
    void SetUp(bool up);
    /**
     * Add (true) or remove (false) an independent source of bit errors of rate \p ber: the
     * combined rate is 1 - prod(1 - ber_i).
     */
    void AddBitErrors(double ber, bool apply);
    /** Incremented each time the link goes down: frames sent in an earlier epoch are lost. */
    uint32_t GetEpoch() const { return m_epoch; }
    /** Times the link went down (hard failures and each down of a flap). */
    uint32_t GetDownCount() const { return m_epoch; }
    /** Total time the link was down, up to now. */
    Time GetDownTime() const;
    /** Total time the link was down before \p until (its outages cut at \p until). */
    Time GetDownTime(Time until) const;
    /** Times the link went down before \p until. */
    uint32_t GetDownCount(Time until) const;

    /** Bit-error rate of both directions, in [0, 1); 0 (the default) corrupts nothing. */
    void SetBitErrorRate(double ber);
    double GetBitErrorRate() const { return m_ber; }
    /**
     * Assign streams to the corruption random variables: \p stream to the frames the port of
     * the lower-numbered node sends, \p stream + 1 to the other's; returns streams used (2).
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    /** Whether bit errors hit a frame of \p bytes that \p sender puts on the wire now. */
    bool Corrupts(const FabricNetDevice* sender, uint32_t bytes) const;
    /**
     * Hand the data frame \p info, or (\p info null) the MAC control frame \p control, to
     * \p port after \p delay through a FrameArrival, sent in link epoch \p epoch (lost if the
     * link went down since); \p pipelined if the delay includes the port's forwarding latency.
     */
    void ScheduleArrival(const Ptr<FabricNetDevice>& port,
                         const Ptr<Packet>& control,
                         const FrameInfo* info,
                         Time delay,
                         uint32_t epoch,
                         bool corrupted,
                         bool pipelined) const;

  private:
    /** A port as its frames' arrivals need it: kept by UpdateEnd. */
    struct End
    {
        FabricNetDevice* port{nullptr};
        uint64_t portKey{0}; //!< FabricNetDevice::GetPortKey
        uint32_t nodeId{0};  //!< FabricNetDevice::GetNodeId: the arrival's context
    };

    Ptr<FabricNetDevice> m_devices[2];
    End m_ends[2]; //!< m_devices' as arrivals need them

    /** The end other than \p sender's. */
    const End& FarEnd(const FabricNetDevice* sender) const
    {
        return m_ends[m_ends[0].port == sender ? 1 : 0];
    }
    std::size_t m_nDevices{0};
    /** Recompute m_rate from the nominal rate and factor, and tell the ports. */
    void UpdateRate();

    DataRate m_rate;
    DataRate m_nominalRate;
    double m_rateFactor{1.0};
    Time m_delay;
    bool m_up{true};
    uint32_t m_downHolds{0}; //!< causes keeping the link down
    uint32_t m_epoch{0};
    Time m_downSince;             //!< when the link last went down
    std::vector<std::pair<Time, Time>> m_outages; //!< earlier outages: (down, up)
    double m_ber{0};
    double m_log1mBer{0};         //!< log(1 - BER), cached for the per-frame probability
    Ptr<UniformRandomVariable> m_uniform[2]; //!< per direction: lower node id's port first
    TracedCallback<bool> m_linkStateTrace; //!< fired with the new state on each change
    TracedCallback<DataRate> m_rateTrace;  //!< fired with the new line rate on each change
};

} // namespace ns3

#endif
