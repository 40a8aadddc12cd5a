#ifndef AI_FABRIC_SEND_RATE_LIMITER_H
#define AI_FABRIC_SEND_RATE_LIMITER_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A send budget that queue pairs share: the rate at which one producer (a GPU's CTA
 * running one channel of a collective) can hand them data, however many connections it feeds.
 *
 * Each new frame a queue pair sends reserves its payload's time at the rate, after the
 * reservations before it, and leaves when its reservation ends: over any interval the queue
 * pairs together send no more than the rate allows.  A rate of 0 bit/s limits nothing.
 */
class SendRateLimiter : public SimpleRefCount<SendRateLimiter>
{
  public:
    explicit SendRateLimiter(DataRate rate = DataRate(0));
    void SetRate(DataRate rate) { m_bitRate = rate.GetBitRate(); }
    DataRate GetRate() const { return DataRate(m_bitRate); }
    /**
     * A frame of \p payloadBytes is to be produced from \p now: reserve its time; returns
     * how long from \p now until it is produced and may leave (0 when nothing is limited).
     */
    Time Reserve(Time now, uint32_t payloadBytes);

  private:
    uint64_t m_bitRate{0};
    Time m_free; //!< when the reservations made so far end
};

} // namespace ns3

#endif
