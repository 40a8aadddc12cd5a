#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

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
                                               &FabricChannel::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute("Delay",
                          "Propagation delay: about 5 ns per metre of fibre or copper "
                          "(refractive index ~1.5).  Default: a 2 m cable.",
                          TimeValue(NanoSeconds(10)),
                          MakeTimeAccessor(&FabricChannel::m_delay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("LinkState",
                            "The link went down (false) or came up (true).",
                            MakeTraceSourceAccessor(&FabricChannel::m_linkStateTrace),
                            "ns3::TracedValueCallback::Bool");
    return tid;
}

FabricChannel::FabricChannel()
    : m_rate("100Gbps")
{
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "a FabricChannel joins exactly two ports");
    m_devices[m_nDevices++] = device;
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
    return m_devices[0] == device ? m_devices[1] : m_devices[0];
}

void
FabricChannel::Transmit(Ptr<Packet> p, Ptr<const FabricNetDevice> sender, Time txTime,
                        Time extraDelay)
{
    Ptr<FabricNetDevice> peer = GetPeer(sender);
    Simulator::ScheduleWithContext(peer->GetNode()->GetId(),
                                   txTime + m_delay + extraDelay,
                                   &FabricNetDevice::Receive,
                                   peer,
                                   p,
                                   m_epoch);
}

void
FabricChannel::SetDataRate(DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "FabricChannel DataRate must be > 0");
    m_rate = rate;
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyRateChanged();
    }
}

void
FabricChannel::SetUp(bool up)
{
    if (up == m_up)
    {
        return;
    }
    NS_LOG_INFO("link " << (up ? "up" : "down") << " at " << Simulator::Now().As(Time::US));
    m_up = up;
    if (!up)
    {
        ++m_epoch;
    }
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_devices[i]->NotifyLinkState(up);
    }
    m_linkStateTrace(up);
}

} // namespace ns3
