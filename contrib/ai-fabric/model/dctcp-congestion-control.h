#ifndef AI_FABRIC_DCTCP_CONGESTION_CONTROL_H
#define AI_FABRIC_DCTCP_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/nstime.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief DCTCP for RDMA: the rate falls in proportion to the fraction of CE-marked frames
 * (Alizadeh et al., SIGCOMM 2010; RFC 8257), as the HPCC authors' artifact runs it for RoCE.
 *
 * The responder echoes CE marks in its ACKs (BTH BECN; RFC 8257's receiver state machine:
 * an ACK is sent at once when the marking changes), and sends no CNPs.  The requester counts
 * the frames each ACK newly covers, and those covered by ACKs with the echo.  Once per
 * observation window (an ACK past the frame that was next when the window began, about a round
 * trip): alpha = (1 - G) alpha + G F, F the marked fraction of the window's frames, and, if no
 * ACK of the window cut the rate, R += AdditiveIncrease.  An ACK with the echo cuts
 * R = R (1 - alpha / 2), at most once per window (the congestion window reduced state).  The
 * window is R BaseRtt bytes (the artifact's variable window; BaseRtt by default the fabric's
 * largest base round trip) and frames are paced at R.
 * Switches mark by their ports' RED ramp: DCTCP wants a step at K (EcnKminPer25G =
 * EcnKmaxPer25G, EcnPmax 1).  Defaults: G 1/16 and alpha starting at 1 (RFC 8257), 1 Gb/s
 * additive increase per window and a 100 Mb/s floor (the artifact's DCTCP_RATE_AI and
 * MIN_RATE).
 */
class DctcpCongestionControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    DctcpCongestionControl();

  private:
    void DoAttach() override;
    DataRate DoGetRate() override;
    uint8_t DoGetFeedback() const override { return kEcnEcho; }
    void DoNotifyAck(const AckFeedback& ack) override;
    uint64_t DoGetWindowBytes() override;

    double m_g{};
    DataRate m_additiveIncrease;
    Time m_baseRtt;
    DataRate m_minRate;
    bool m_window{};

    TracedValue<double> m_rate{0.0};  //!< R, bit/s
    TracedValue<double> m_alpha{1.0}; //!< the marked fraction's moving average
    bool m_started{false};            //!< the first ACK began the first window
    uint64_t m_windowEnd{0};  //!< an ACK past this frame ends the observation window
    uint64_t m_acked{0};      //!< frames acknowledged in the window
    uint64_t m_marked{0};     //!< of which by ACKs with the echo
    bool m_cutInWindow{false}; //!< the rate was cut in this window
    uint64_t m_reducedUntil{0}; //!< no further cut until an ACK past this frame
};

} // namespace ns3

#endif
