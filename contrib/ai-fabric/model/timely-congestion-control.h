#ifndef AI_FABRIC_TIMELY_CONGESTION_CONTROL_H
#define AI_FABRIC_TIMELY_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief TIMELY: rate control by round-trip time (Mittal et al., SIGCOMM 2015, Algorithm 1).
 *
 * The queue pair times one frame per SegmentBytes of new data (the last of each segment, from
 * its send to its ACK, less its serialization) and reports each such completion.  On each:
 * rtt_diff = (1 - Alpha) rtt_diff + Alpha (rtt - previous rtt); gradient = rtt_diff / MinRtt;
 *  - rtt < TLow: rate += AdditiveIncrease;
 *  - rtt > THigh: rate *= 1 - Beta (1 - THigh / rtt);
 *  - gradient <= 0: rate += N AdditiveIncrease, N = 5 once HaiThreshold such completions came
 *    in a row (hyper-active increase; any other completion breaks the run), else 1;
 *  - else rate *= 1 - Beta gradient;
 * within [MinRate, line rate].  The first completion only sets the previous rtt.  The rate
 * starts at line rate.  Defaults are the paper's (its 10G testbed's): TLow 50 us, THigh 500 us,
 * Beta 0.8, Alpha 0.875, MinRtt 20 us, 10 Mb/s additive increase, 16 KiB segments.
 */
class TimelyCongestionControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    TimelyCongestionControl();

  private:
    void DoAttach() override;
    DataRate DoGetRate() override;
    uint32_t DoGetRttSegmentBytes() const override { return m_segmentBytes; }
    void DoNotifyRtt(Time rtt) override;

    double m_alpha{};
    double m_beta{};
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    DataRate m_additiveIncrease;
    uint32_t m_haiThreshold{};
    uint32_t m_segmentBytes{};
    DataRate m_minRate;

    TracedValue<double> m_rate{0.0}; //!< bit/s
    TracedCallback<Time> m_rttTrace; //!< each completion's rtt
    Time m_previousRtt;              //!< the last completion's rtt (none before the first)
    bool m_sampled{false};           //!< a completion came
    double m_rttDiff{0};             //!< EWMA of rtt differences, seconds
    uint32_t m_negativeGradients{0}; //!< completions in a row with gradient <= 0
};

} // namespace ns3

#endif
