#include "dcqcn-congestion-control.h"

#include "range-checkers.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(DcqcnCongestionControl);

TypeId
DcqcnCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<DcqcnCongestionControl>()
            .AddAttribute("G",
                          "Gain of the alpha estimate.  Default 1/256 (DCQCN paper).",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AlphaTimer",
                          "Period of alpha's decay without CNPs.  Default 55 us (DCQCN paper).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_alphaTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateTimer",
                          "Period of the rate-increase timer.  Default 55 us (DCQCN paper).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_rateTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "Bytes sent per rate-increase stage; 0 turns the byte counter off, "
                          "so the timer alone advances the stages.  Default 0, the HPCC "
                          "artifact's DCQCN model (Li et al. SIGCOMM 2019; the paper's 10 MB, "
                          "set for 40G, leaves a QP throttled to ~1 Gb/s in additive increase "
                          "for tens of ms: a 16:1 incast measured 41% busy instead of 95%).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoverySteps",
                          "Stages of fast recovery (F) before additive increase; hyper "
                          "increase follows once both stage counts reach F.  Default 1, the "
                          "HPCC artifact's FAST_RECOVERY_TIMES (the paper uses 5).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_f),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AdditiveIncreasePer25G",
                          "R_AI per 25 Gb/s of line rate.  Default 5 Mb/s (HPCC artifact).",
                          DataRateValue(DataRate("5Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_raiPer25G),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncreasePer25G",
                          "R_HAI per 25 Gb/s of line rate.  Default 50 Mb/s (HPCC artifact).",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rhaiPer25G),
                          MakeDataRateChecker())
            .AddAttribute("ClampTargetRate",
                          "true: every cut sets the target rate to the current rate (the "
                          "paper's Algorithm 1).  false: only a cut after a timer-driven "
                          "increase does, so back-to-back cuts keep the target of the first.  "
                          "Default false, the HPCC artifact's setting (CLAMP_TARGET_RATE 0).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute("MinRate",
                          "Floor of the current rate.  Default 1 Gb/s, the HPCC artifact's "
                          "MIN_RATE.",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_minRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddTraceSource("Rate",
                            "The current rate Rc (bit/s).  The rate timer is evaluated when the "
                            "queue pair next asks for its rate, so increases by the timer are "
                            "reported then; each value holds from the time it is reported.",
                            MakeTraceSourceAccessor(&DcqcnCongestionControl::m_rate),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

DcqcnCongestionControl::DcqcnCongestionControl()
    : m_alphaTimer(MicroSeconds(55)),
      m_rateTimer(MicroSeconds(55)),
      m_raiPer25G("5Mbps"),
      m_rhaiPer25G("50Mbps"),
      m_minRate("1Gbps")
{
}

void
DcqcnCongestionControl::DoAttach()
{
    m_rate = m_target = double(GetLineRate().GetBitRate());
    m_alpha = 1.0;
    m_alphaUpdated = Simulator::Now();
}

DataRate
DcqcnCongestionControl::DoGetRate()
{
    AdvanceRateTimer();
    return DataRate(static_cast<uint64_t>(m_rate.Get()));
}

void
DcqcnCongestionControl::DecayAlpha()
{
    const int64_t periods =
        (Simulator::Now() - m_alphaUpdated).GetTimeStep() / m_alphaTimer.GetTimeStep();
    if (periods > 0)
    {
        m_alpha *= std::pow(1.0 - m_g, double(periods));
        m_alphaUpdated += m_alphaTimer * periods;
    }
}

void
DcqcnCongestionControl::DoNotifyCongestion()
{
    AdvanceRateTimer(); // the cut applies to the rate recovered so far
    DecayAlpha();
    if (m_clampTargetRate || m_timerStage > 0)
    {
        m_target = m_rate;
    }
    m_rate = std::max(m_rate.Get() * (1 - m_alpha / 2), double(m_minRate.GetBitRate()));
    m_alpha = (1 - m_g) * m_alpha + m_g;
    m_alphaUpdated = Simulator::Now(); // the decay period restarts at each CNP
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceStage = 0;
    m_timerRunning = true;
    m_timerStart = Simulator::Now();
    NS_LOG_LOGIC("CNP: rate " << m_rate.Get() / 1e9 << " Gb/s, alpha " << m_alpha);
}

void
DcqcnCongestionControl::DoNotifySent(uint32_t bytes)
{
    AdvanceRateTimer();
    if (m_rate >= double(GetLineRate().GetBitRate()))
    {
        return; // at line rate there is nothing to recover
    }
    m_bytesSinceStage += bytes;
    if (m_byteCounter > 0 && m_bytesSinceStage >= m_byteCounter)
    {
        m_bytesSinceStage -= m_byteCounter;
        ++m_byteStage;
        Increase();
    }
}

void
DcqcnCongestionControl::AdvanceRateTimer()
{
    const double line = double(GetLineRate().GetBitRate());
    while (m_timerRunning && Simulator::Now() - m_timerStart >= m_rateTimer)
    {
        m_timerStart += m_rateTimer;
        ++m_timerStage;
        Increase();
        m_timerRunning = m_rate < line;
    }
}

void
DcqcnCongestionControl::Increase()
{
    const double line = double(GetLineRate().GetBitRate());
    const double scale = line / 25e9;
    // Without a byte counter the timer alone advances the stages (the HPCC artifact's model).
    const uint32_t byteStage = m_byteCounter > 0 ? m_byteStage : m_timerStage;
    if (m_timerStage >= m_f && byteStage >= m_f)
    {
        const uint32_t i = std::min(m_timerStage, byteStage) - m_f + 1;
        m_target += i * double(m_rhaiPer25G.GetBitRate()) * scale; // hyper increase
    }
    else if (m_timerStage >= m_f || byteStage >= m_f)
    {
        m_target += double(m_raiPer25G.GetBitRate()) * scale; // additive increase
    }
    m_target = std::min(m_target, line);
    m_rate = std::min((m_rate.Get() + m_target) / 2, line); // fast recovery toward the target
    if (line - m_rate < 1.0)
    {
        m_rate = line;
    }
}

} // namespace ns3
