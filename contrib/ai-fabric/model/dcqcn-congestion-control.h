#ifndef AI_FABRIC_DCQCN_CONGESTION_CONTROL_H
#define AI_FABRIC_DCQCN_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/nstime.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM
 * 2015): the reaction point of a queue pair.
 *
 * On a CNP: Rc <- Rc (1 - alpha/2), alpha <- (1 - g) alpha + g, and the target rate Rt <- Rc
 * (every cut with ClampTargetRate, as in the paper's Algorithm 1; otherwise only a cut after a
 * timer-driven increase, so back-to-back cuts keep the target of the first).  Without CNPs
 * alpha decays by (1 - g) every AlphaTimer (applied when next needed, so it costs no events).
 * The rate recovers at each RateTimer expiry and each ByteCounter bytes sent (a zero counter
 * leaves the timer alone to advance both stage counts): while both stage counts are below F,
 * fast recovery (Rc <- (Rt + Rc) / 2); once one reaches F, additive increase (Rt += R_AI
 * first); once both do, hyper increase (Rt += i R_HAI).  The rate timer's expiries are applied
 * when the rate is next needed (exact, and no events while a QP idles); it stops when Rc is back
 * at line rate.  R_AI and R_HAI are given per 25 Gb/s of line rate and scaled.
 *
 * Defaults: the paper's timers and gain, with the rest of the HPCC artifact's DCQCN setup
 * (Li et al., SIGCOMM 2019, simulation/run.py "dcqcn_paper": F = 1, no byte counter, target not
 * clamped, 1 Gb/s floor, R_AI 5 and R_HAI 50 Mb/s per 25G).  With those a 16:1 incast keeps
 * the bottleneck 95% busy with the queue held between the ECN thresholds; the paper's F = 5 and
 * 10 MB counter over-cut the same incast to 41% (tests/test-dcqcn.cc measures both).
 */
class DcqcnCongestionControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    DcqcnCongestionControl();
    double GetAlpha() const { return m_alpha; }
    DataRate GetTargetRate() const { return DataRate(static_cast<uint64_t>(m_target)); }

  private:
    void DoAttach() override;
    DataRate DoGetRate() override;
    void DoNotifySent(uint32_t bytes) override;
    void DoNotifyCongestion() override;
    void DecayAlpha();
    /** Apply the rate-timer expiries due by now (lazily: the timer costs no events). */
    void AdvanceRateTimer();
    void Increase();

    double m_g{};
    Time m_alphaTimer;
    Time m_rateTimer;
    uint64_t m_byteCounter{};
    uint32_t m_f{};
    bool m_clampTargetRate{};
    DataRate m_raiPer25G;
    DataRate m_rhaiPer25G;
    DataRate m_minRate;

    TracedValue<double> m_rate{0.0}; //!< Rc, bit/s
    double m_target{0}; //!< Rt, bit/s
    double m_alpha{1};
    Time m_alphaUpdated; //!< when alpha was last brought up to date
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_bytesSinceStage{0};
    bool m_timerRunning{false};
    Time m_timerStart; //!< start of the current rate-timer period
};

} // namespace ns3

#endif
