#include "dctcp-congestion-control.h"

#include "range-checkers.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DctcpCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(DctcpCongestionControl);

TypeId
DctcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DctcpCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<DctcpCongestionControl>()
            .AddAttribute("G",
                          "Weight of a window's marked fraction in alpha's moving average.  "
                          "Default 1/16 (RFC 8257).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&DctcpCongestionControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AdditiveIncrease",
                          "The rate's rise per observation window without a cut.  Default "
                          "1 Gb/s (the HPCC artifact's DCTCP_RATE_AI).",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&DctcpCongestionControl::m_additiveIncrease),
                          MakeDataRateChecker())
            .AddAttribute("BaseRtt",
                          "The round trip that sizes the window (R BaseRtt).  Default 0: the "
                          "fabric's largest base round trip (FabricNetwork::GetLargestBaseRtt, "
                          "which RdmaHelper passes on).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&DctcpCongestionControl::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinRate",
                          "Floor of the rate.  Default 100 Mb/s (the artifact's MIN_RATE).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&DctcpCongestionControl::m_minRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("Window",
                          "Limit the bytes in flight to R BaseRtt besides pacing at R (the "
                          "artifact's variable window).  Default true.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&DctcpCongestionControl::m_window),
                          MakeBooleanChecker())
            .AddTraceSource("Rate",
                            "The rate R (bit/s), after each ACK that changed it.",
                            MakeTraceSourceAccessor(&DctcpCongestionControl::m_rate),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Alpha",
                            "alpha, after each observation window.",
                            MakeTraceSourceAccessor(&DctcpCongestionControl::m_alpha),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

DctcpCongestionControl::DctcpCongestionControl() = default;

void
DctcpCongestionControl::DoAttach()
{
    m_baseRtt = RoundTripOr(m_baseRtt, "DctcpCongestionControl");
    m_rate = static_cast<double>(GetLineRate().GetBitRate());
}

DataRate
DctcpCongestionControl::DoGetRate()
{
    return DataRate(static_cast<uint64_t>(m_rate.Get()));
}

uint64_t
DctcpCongestionControl::DoGetWindowBytes()
{
    if (!m_window)
    {
        return 0;
    }
    return WindowBytes(m_rate, m_baseRtt);
}

void
DctcpCongestionControl::DoNotifyAck(const AckFeedback& ack)
{
    if (!m_started)
    {
        m_started = true;
        m_windowEnd = ack.nextSeq;
    }
    m_acked += ack.newlyAcked;
    m_marked += ack.ecnEcho ? ack.newlyAcked : 0;
    double rate = m_rate;
    if (ack.ackedSeq > m_windowEnd)
    {
        // The observation window ended: alpha takes its marked fraction.
        const double f = m_acked ? double(m_marked) / double(m_acked) : 0.0;
        m_alpha = (1 - m_g) * m_alpha + m_g * f;
        if (!m_cutInWindow)
        {
            rate += static_cast<double>(m_additiveIncrease.GetBitRate());
        }
        m_cutInWindow = false;
        m_acked = m_marked = 0;
        m_windowEnd = ack.nextSeq;
    }
    if (ack.ecnEcho && ack.ackedSeq > m_reducedUntil)
    {
        rate *= 1 - m_alpha / 2;
        m_reducedUntil = ack.nextSeq;
        m_cutInWindow = true;
    }
    const double line = static_cast<double>(GetLineRate().GetBitRate());
    m_rate = std::min(std::max(rate, static_cast<double>(m_minRate.GetBitRate())), line);
    NS_LOG_LOGIC("alpha " << m_alpha << " rate " << m_rate);
}

} // namespace ns3
