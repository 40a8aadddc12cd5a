#include "hpcc-congestion-control.h"

#include "range-checkers.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HpccCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(HpccCongestionControl);

namespace
{
/** Records further apart than this are not compared: their 24-bit ns stamps wrap at 16.8 ms. */
const Time kStaleAfter = NanoSeconds(int64_t(1) << (InbandTelemetry::kTimeBits - 1));
} // namespace

TypeId
HpccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HpccCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<HpccCongestionControl>()
            .AddAttribute("TargetUtilization",
                          "eta: the utilization of the most loaded hop the rate aims at.  "
                          "Default 0.95 (HPCC paper and artifact).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&HpccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Round trips of additive increase below eta before a multiplicative "
                          "one.  Default 0 (the artifact's MI_THRESH for its published runs): "
                          "every update is multiplicative.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HpccCongestionControl::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncreasePer25G",
                          "R_AI per 25 Gb/s of line rate (40 Mb/s at 100 Gb/s).  Default "
                          "10 Mb/s (the artifact's run.py for HPCC).",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&HpccCongestionControl::m_aiPer25G),
                          MakeDataRateChecker())
            .AddAttribute("BaseRtt",
                          "T: the base round trip, which scales the queue term and the window "
                          "(R T).  Default 0: the fabric's largest base round trip "
                          "(FabricNetwork::GetLargestBaseRtt, which RdmaHelper passes on), as "
                          "the artifact takes its topology's largest.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&HpccCongestionControl::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinRate",
                          "Floor of the rate.  Default 100 Mb/s (the artifact's MIN_RATE).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&HpccCongestionControl::m_minRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("Window",
                          "Limit the bytes in flight to R T besides pacing at R (the "
                          "artifact's HAS_WIN and VAR_WIN).  Default true.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&HpccCongestionControl::m_window),
                          MakeBooleanChecker())
            .AddTraceSource("Rate",
                            "The rate R (bit/s), after each ACK that changed it.",
                            MakeTraceSourceAccessor(&HpccCongestionControl::m_rate),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Utilization",
                            "The estimate U of the most loaded hop's utilization.",
                            MakeTraceSourceAccessor(&HpccCongestionControl::m_utilization),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

HpccCongestionControl::HpccCongestionControl() = default;

void
HpccCongestionControl::DoAttach()
{
    m_baseRtt = RoundTripOr(m_baseRtt, "HpccCongestionControl");
    const double line = static_cast<double>(GetLineRate().GetBitRate());
    m_rate = line;
    m_referenceRate = line;
    m_additiveIncrease = static_cast<double>(m_aiPer25G.GetBitRate()) * line / 25e9;
}

DataRate
HpccCongestionControl::DoGetRate()
{
    return DataRate(static_cast<uint64_t>(m_rate.Get()));
}

uint64_t
HpccCongestionControl::DoGetWindowBytes()
{
    if (!m_window)
    {
        return 0;
    }
    return WindowBytes(m_rate, m_baseRtt);
}

void
HpccCongestionControl::Keep(const InbandTelemetry& telemetry, Time now)
{
    m_kept = true;
    m_keptAt = now;
    m_keptHops = telemetry.GetHops();
    for (uint32_t i = 0; i < m_keptHops; ++i)
    {
        m_previous[i] = telemetry.GetHop(i);
    }
}

void
HpccCongestionControl::DoNotifyAck(const AckFeedback& ack)
{
    if (!ack.telemetry)
    {
        return;
    }
    const InbandTelemetry& telemetry = *ack.telemetry;
    const uint32_t hops = telemetry.GetHops();
    if (hops == 0 || telemetry.Overflowed())
    {
        return;
    }
    const Time now = Simulator::Now();
    if (!m_kept || hops != m_keptHops || now - m_keptAt > kStaleAfter)
    {
        // Nothing to compare with: keep the records; a round trip from here sets Rc.
        Keep(telemetry, now);
        m_lastUpdateSeq = ack.nextSeq;
        return;
    }
    const double t = m_baseRtt.GetSeconds();
    double u = 0;
    uint32_t tau = 0; // ns
    bool measured = false;
    for (uint32_t i = 0; i < hops; ++i)
    {
        const InbandTelemetry::Hop h = telemetry.GetHop(i);
        const InbandTelemetry::Hop& p = m_previous[i];
        const uint32_t dt = InbandTelemetry::TimeDelta(h.time, p.time);
        if (dt == 0)
        {
            continue; // the same departure, or two within a nanosecond: no rate
        }
        const double b = static_cast<double>(h.bitRate);
        const double txRate = 8.0 * double(InbandTelemetry::TxDelta(h, p)) / (dt * 1e-9);
        const double queue = 8.0 * double(std::min(h.queueBytes, p.queueBytes));
        const double uj = txRate / b + queue / (b * t);
        if (!measured || uj > u)
        {
            u = uj;
            tau = dt;
            measured = true;
        }
    }
    Keep(telemetry, now);
    if (!measured)
    {
        return;
    }
    const double w = std::min(tau * 1e-9, t) / t;
    const double utilization = (1 - w) * m_utilization + w * u;
    m_utilization = utilization;
    const double line = static_cast<double>(GetLineRate().GetBitRate());
    double rate;
    uint32_t stage;
    if (utilization >= m_eta || m_incStage >= m_maxStage)
    {
        // Multiplicative: the rate that would bring the hop to eta, plus the additive step.
        rate = utilization > 0 ? m_referenceRate * m_eta / utilization + m_additiveIncrease : line;
        stage = 0;
    }
    else
    {
        rate = m_referenceRate + m_additiveIncrease;
        stage = m_incStage + 1;
    }
    rate = std::min(std::max(rate, static_cast<double>(m_minRate.GetBitRate())), line);
    if (ack.ackedSeq > m_lastUpdateSeq)
    {
        // A round trip since Rc was last set: this update sets it.
        m_referenceRate = rate;
        m_incStage = stage;
        m_lastUpdateSeq = ack.nextSeq;
    }
    m_rate = rate;
    NS_LOG_LOGIC("u " << u << " U " << utilization << " rate " << rate << " Rc "
                      << m_referenceRate);
}

} // namespace ns3
