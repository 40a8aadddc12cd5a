#include "timely-congestion-control.h"

#include "range-checkers.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TimelyCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(TimelyCongestionControl);

TypeId
TimelyCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimelyCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<TimelyCongestionControl>()
            .AddAttribute("Alpha",
                          "Weight of the newest rtt difference in the difference's moving "
                          "average.  Default 0.875 (TIMELY paper).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&TimelyCongestionControl::m_alpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor.  Default 0.8 (TIMELY paper).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TimelyCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("TLow",
                          "Below this rtt the rate rises additively, whatever the gradient.  "
                          "Default 50 us (TIMELY paper).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("THigh",
                          "Above this rtt the rate falls in proportion to the excess, whatever "
                          "the gradient.  Default 500 us (TIMELY paper).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_tHigh),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRtt",
                          "The rtt of an empty path, which normalizes the gradient.  Default "
                          "20 us (TIMELY paper).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("AdditiveIncrease",
                          "The additive increase step (delta).  Default 10 Mb/s (TIMELY "
                          "paper, at 10G).",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&TimelyCongestionControl::m_additiveIncrease),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "Completions in a row with a non-positive gradient after which each "
                          "increase is 5 steps (hyper-active increase).  Default 5 (TIMELY "
                          "paper).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("SegmentBytes",
                          "New data per rtt sample (a completion event).  Default 16 KiB, the "
                          "smallest segment of the TIMELY paper (16-64 KB).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_segmentBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MinRate",
                          "Floor of the rate.  Default 1 Gb/s, DcqcnCongestionControl's.",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&TimelyCongestionControl::m_minRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddTraceSource("Rate",
                            "The rate (bit/s), after each completion that changed it.",
                            MakeTraceSourceAccessor(&TimelyCongestionControl::m_rate),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Rtt",
                            "Each completion event's rtt, as the queue pair measured it.",
                            MakeTraceSourceAccessor(&TimelyCongestionControl::m_rttTrace),
                            "ns3::Time::TracedCallback");
    return tid;
}

TimelyCongestionControl::TimelyCongestionControl()
    : m_tLow(MicroSeconds(50)),
      m_tHigh(MicroSeconds(500)),
      m_minRtt(MicroSeconds(20)),
      m_additiveIncrease("10Mbps"),
      m_minRate("1Gbps")
{
}

void
TimelyCongestionControl::DoAttach()
{
    m_rate = static_cast<double>(GetLineRate().GetBitRate());
}

DataRate
TimelyCongestionControl::DoGetRate()
{
    return DataRate(static_cast<uint64_t>(m_rate.Get()));
}

void
TimelyCongestionControl::DoNotifyRtt(Time rtt)
{
    m_rttTrace(rtt);
    if (!m_sampled)
    {
        m_sampled = true;
        m_previousRtt = rtt;
        return;
    }
    const double sample = rtt.GetSeconds();
    m_rttDiff = (1 - m_alpha) * m_rttDiff + m_alpha * (sample - m_previousRtt.GetSeconds());
    m_previousRtt = rtt;
    const double gradient = m_rttDiff / m_minRtt.GetSeconds();
    const double delta = static_cast<double>(m_additiveIncrease.GetBitRate());
    double rate = m_rate;
    if (rtt < m_tLow)
    {
        rate += delta;
        m_negativeGradients = 0; // not a gradient completion: the run is broken
    }
    else if (rtt > m_tHigh)
    {
        rate *= 1 - m_beta * (1 - m_tHigh.GetSeconds() / sample);
        m_negativeGradients = 0;
    }
    else if (gradient <= 0)
    {
        ++m_negativeGradients;
        rate += (m_negativeGradients >= m_haiThreshold ? 5 : 1) * delta;
    }
    else
    {
        rate *= 1 - m_beta * gradient;
        m_negativeGradients = 0;
    }
    const double line = static_cast<double>(GetLineRate().GetBitRate());
    m_rate = std::min(std::max(rate, static_cast<double>(m_minRate.GetBitRate())), line);
    NS_LOG_LOGIC("rtt " << rtt.As(Time::US) << " gradient " << gradient << " rate " << m_rate);
}

} // namespace ns3
