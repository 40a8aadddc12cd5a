#include "fabric-channel.h"

#include "fabric-net-device.h"
#include "fabric-simulator-impl.h"
#include "frame-arrival.h"
#include "range-checkers.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricChannel")
            .SetParent<Channel>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricChannel>()
            .AddAttribute("DataRate",
                          "Line rate of the link, each direction (IEEE 802.3 rates: 100, 200, "
                          "400, 800 Gb/s).",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&FabricChannel::SetDataRate,
                                               &FabricChannel::GetNominalDataRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("Delay",
                          "Propagation delay: about 5 ns per metre of fibre or copper "
                          "(refractive index ~1.5).  Default: a 2 m cable.",
                          TimeValue(NanoSeconds(10)),
                          MakeTimeAccessor(&FabricChannel::m_delay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("BitErrorRate",
                          "Probability that a bit is received in error, both directions, in "
                          "[0, 0.5] (0.5: every bit random).  0 for a healthy link: IEEE "
                          "802.3bs specifies a BER below 1e-13 after FEC for 400G links.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FabricChannel::SetBitErrorRate,
                                             &FabricChannel::GetBitErrorRate),
                          MakeDoubleChecker<double>(0.0, 0.5))
            .AddTraceSource("LinkState",
                            "The link went down (false) or came up (true).",
                            MakeTraceSourceAccessor(&FabricChannel::m_linkStateTrace),
                            "ns3::TracedValueCallback::Bool")
            .AddTraceSource("Rate",
                            "The line rate changed (a rate set, or degraded or restored): the "
                            "new rate.",
                            MakeTraceSourceAccessor(&FabricChannel::m_rateTrace),
                            "ns3::FabricChannel::RateTracedCallback");
    return tid;
}

FabricChannel::FabricChannel()
    : m_rate("100Gbps"),
      m_nominalRate("100Gbps"),
      m_uniform{CreateObject<UniformRandomVariable>(), CreateObject<UniformRandomVariable>()}
{
}

int64_t
FabricChannel::AssignStreams(int64_t stream)
{
    m_uniform[0]->SetStream(stream);
    m_uniform[1]->SetStream(stream + 1);
    return 2;
}

bool
FabricChannel::Corrupts(const FabricNetDevice* sender, uint32_t bytes) const
{
    if (m_ber <= 0)
    {
        return false;
    }
    const double bits = 8.0 * bytes;
    // By node id, not attach order: a rank attaches a cut link's far end first.
    const std::size_t direction = sender->GetNodeId() < FarEnd(sender).nodeId ? 0 : 1;
    return m_uniform[direction]->GetValue() < -std::expm1(bits * m_log1mBer);
}

void
FabricChannel::SetBitErrorRate(double ber)
{
    NS_ABORT_MSG_IF(!(ber >= 0.0 && ber < 1.0),
                    "FabricChannel BitErrorRate must be in [0, 1), got " << ber);
    m_ber = ber;
    m_log1mBer = std::log1p(-ber);
}

Time
FabricChannel::GetDownTime() const
{
    return GetDownTime(FabricNow());
}

uint32_t
FabricChannel::GetDownCount(Time until) const
{
    const auto before = std::count_if(m_outages.begin(), m_outages.end(),
                                      [until](const auto& o) { return o.first < until; });
    return static_cast<uint32_t>(before) + (!m_up && m_downSince < until ? 1 : 0);
}

Time
FabricChannel::GetDownTime(Time until) const
{
    Time total;
    for (const auto& [down, up] : m_outages)
    {
        total += std::max(Time(0), std::min(up, until) - down);
    }
    return m_up ? total : total + std::max(Time(0), until - m_downSince);
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "a FabricChannel joins exactly two ports");
    m_devices[m_nDevices++] = device;
    UpdateEnd(PeekPointer(device));
}

void
FabricChannel::UpdateEnd(const FabricNetDevice* device)
{
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        if (PeekPointer(m_devices[i]) == device)
        {
            m_ends[i] = {PeekPointer(m_devices[i]), device->GetPortKey(), device->GetNodeId()};
        }
    }
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return m_devices[i];
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(Ptr<const FabricNetDevice> device) const
{
    return PeerOf(PeekPointer(device));
}

void
FabricChannel::Transmit(const Ptr<Packet>& control,
                        const FrameInfo* info,
                        const FabricNetDevice* sender,
                        Time txTime,
                        Time extraDelay)
{
    NS_ASSERT_MSG(m_nDevices == 2, "a FabricChannel carries frames once both ports are attached");
    const bool corrupted = Corrupts(sender, info ? roce::FrameBytes(*info) : control->GetSize());
    // The far port is not read here: it is cold, and its arrival will read it.
    const End& peer = FarEnd(sender);
    FabricScheduleWithContext(
        peer.nodeId,
        txTime + m_delay + extraDelay,
        new FrameArrival(peer.port,
                         TieKey(peer.portKey, extraDelay.IsStrictlyPositive()),
                         control,
                         info,
                         m_epoch,
                         corrupted));
}

void
FabricChannel::ScheduleArrival(const Ptr<FabricNetDevice>& port,
                               const Ptr<Packet>& control,
                               const FrameInfo* info,
                               Time delay,
                               uint32_t epoch,
                               bool corrupted,
                               bool pipelined) const
{
    FabricScheduleWithContext(port->GetNodeId(),
                              delay,
                              new FrameArrival(PeekPointer(port),
                                               TieKey(port->GetPortKey(), pipelined),
                                               control,
                                               info,
                                               epoch,
                                               corrupted));
}

void
FabricChannel::SetDataRate(DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "FabricChannel DataRate must be > 0");
    m_nominalRate = rate;
    UpdateRate();
}

void
FabricChannel::DegradeRate(double factor, bool apply)
{
    NS_ABORT_MSG_IF(!(factor > 0 && factor <= 1),
                    "FabricChannel: a rate degradation factor must be in (0, 1], got " << factor);
    m_rateFactor = apply ? m_rateFactor * factor : m_rateFactor / factor;
    UpdateRate();
}

void
FabricChannel::UpdateRate()
{
    const double bps = std::round(double(m_nominalRate.GetBitRate()) * std::min(m_rateFactor, 1.0));
    m_rate = DataRate(static_cast<uint64_t>(std::max(bps, 1.0)));
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyRateChanged();
    }
    m_rateTrace(m_rate);
}

void
FabricChannel::AddBitErrors(double ber, bool apply)
{
    NS_ABORT_MSG_IF(!(ber >= 0.0 && ber < 1.0),
                    "FabricChannel: a bit-error rate must be in [0, 1), got " << ber);
    const double keep = apply ? (1 - m_ber) * (1 - ber) : (1 - m_ber) / (1 - ber);
    const double combined = 1 - keep;
    // Removing the last source leaves rounding residue of ~1e-16: a healthy link is exactly 0.
    SetBitErrorRate(combined < 1e-15 ? 0.0 : std::min(combined, std::nextafter(1.0, 0.0)));
}

void
FabricChannel::SetUp(bool up)
{
    if (up)
    {
        if (m_downHolds == 0 || --m_downHolds > 0)
        {
            return;
        }
    }
    else if (m_downHolds++ > 0)
    {
        return;
    }
    NS_LOG_INFO("link " << (up ? "up" : "down") << " at " << FabricNow().As(Time::US));
    m_up = up;
    if (!up)
    {
        ++m_epoch;
        m_downSince = FabricNow();
    }
    else
    {
        m_outages.emplace_back(m_downSince, FabricNow());
    }
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyLinkState(up);
    }
    m_linkStateTrace(up);
}

} // namespace ns3
