#include "send-rate-limiter.h"

#include <algorithm>

namespace ns3
{

SendRateLimiter::SendRateLimiter(DataRate rate)
    : m_bitRate(rate.GetBitRate())
{
}

Time
SendRateLimiter::Reserve(Time now, uint32_t payloadBytes)
{
    if (m_bitRate == 0)
    {
        return Time(0);
    }
    const unsigned __int128 bits =
        static_cast<unsigned __int128>(payloadBytes) * 8u * 1000000000000ull;
    const auto ps = static_cast<int64_t>((bits + m_bitRate - 1) / m_bitRate);
    m_free = std::max(m_free, now) + PicoSeconds(ps);
    return m_free - now;
}

} // namespace ns3
