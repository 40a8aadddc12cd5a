#ifndef AI_FABRIC_HPCC_CONGESTION_CONTROL_H
#define AI_FABRIC_HPCC_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/nstime.h"
#include "ns3/traced-value.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief HPCC: rate and window from in-band telemetry (Li et al., SIGCOMM 2019, Algorithm 1).
 *
 * Data frames carry an InbandTelemetry header; each switch egress stamps its link rate B, the
 * time, the bytes it has sent and its queue; the ACK echoes the header.  On each ACK, for each
 * hop j with its previous record (the previous ACK's):
 * u_j = txRate_j / B_j + min(qlen_j, previous qlen_j) / (B_j T), with txRate_j the bytes sent
 * between the two records over the time between them (tau_j).  The most loaded hop's u and tau
 * feed the estimate U = (1 - t/T) U + (t/T) u, t = min(tau, T).  Then, from the reference rate
 * Rc: R = Rc / (U / eta) + R_AI if U >= eta or incStage >= MaxStage, else R = Rc + R_AI (within
 * [MinRate, line rate]).  Once per round trip (an ACK past the frame that was next when Rc was
 * last set) Rc takes R (incStage 0 after a decrease, +1 after an increase); between, each ACK
 * sets R from the same Rc (fast reaction).  The window is R T bytes, as the authors' artifact
 * runs it (variable window), and frames are paced at R.  The first ACK only keeps its
 * records, as does one whose path length differs from the previous one's or that comes more
 * than 8 ms after it (the records' 24-bit nanosecond stamps wrap at 16.8 ms).  An ACK whose
 * header overflowed (more than 5 switches) or holds no record changes nothing.
 * Defaults are the authors' artifact's for its published runs (alibaba-edu/High-Precision-
 * Congestion-Control, run.py and mix/config.txt): eta 0.95, MaxStage 0, R_AI 10 Mb/s per
 * 25 Gb/s of line rate, minimum rate 100 Mb/s.  T is the base round trip: by default the
 * fabric's largest (FabricNetwork::GetLargestBaseRtt), as the artifact takes its topology's.
 * HPCC assumes one path per queue pair: telemetry from sprayed frames mixes paths' records.
 * Its responders send no CNPs (RdmaQueuePair), which it does not read.
 */
class HpccCongestionControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    HpccCongestionControl();

  private:
    void DoAttach() override;
    DataRate DoGetRate() override;
    uint8_t DoGetFeedback() const override { return kTelemetry; }
    void DoNotifyAck(const AckFeedback& ack) override;
    uint64_t DoGetWindowBytes() override;
    /** Keep \p telemetry's records as the previous ones, at \p now. */
    void Keep(const InbandTelemetry& telemetry, Time now);

    double m_eta{};
    uint32_t m_maxStage{};
    DataRate m_aiPer25G;
    Time m_baseRtt;
    DataRate m_minRate;
    bool m_window{};

    TracedValue<double> m_rate{0.0};        //!< R, bit/s
    TracedValue<double> m_utilization{1.0}; //!< U
    double m_referenceRate{0};              //!< Rc, bit/s
    double m_additiveIncrease{0};           //!< R_AI at this line rate, bit/s
    uint32_t m_incStage{0};
    uint64_t m_lastUpdateSeq{0}; //!< Rc is next set by an ACK past this frame
    bool m_kept{false};          //!< records of a previous ACK are held
    Time m_keptAt;
    uint32_t m_keptHops{0};
    std::array<InbandTelemetry::Hop, InbandTelemetry::kMaxHops> m_previous{}; //!< their records
};

} // namespace ns3

#endif
