#include "inband-telemetry.h"

#include "ns3/assert.h"

#include <algorithm>

namespace ns3
{

namespace
{
constexpr uint64_t kTxUnit = 128;   //!< bytes per counter step at 25 Gb/s or less
constexpr uint64_t kQueueUnit = 64; //!< bytes per queue step at 25 Gb/s or less
constexpr uint64_t kScaleRate = 25000000000ull;
} // namespace

uint8_t
InbandTelemetry::RateCode(uint64_t bitRate)
{
    for (std::size_t i = 0; i < RateCodes.size(); ++i)
    {
        if (RateCodes[i] == bitRate)
        {
            return static_cast<uint8_t>(i + 1);
        }
    }
    return 0;
}

uint64_t
InbandTelemetry::RateOfCode(uint8_t code)
{
    NS_ASSERT_MSG(code >= 1 && code <= RateCodes.size(), "not a telemetry rate code");
    return RateCodes[code - 1];
}

const char*
InbandTelemetry::RateList()
{
    return "1, 10, 25, 40, 50, 100, 200, 400, 800 or 1600 Gb/s";
}

uint64_t
InbandTelemetry::Scale(uint8_t code)
{
    return std::max<uint64_t>(1, RateOfCode(code) / kScaleRate);
}

void
InbandTelemetry::Push(uint8_t rateCode, Time now, uint64_t txBytes, uint64_t queueBytes)
{
    NS_ASSERT_MSG(rateCode != 0, "a port stamps telemetry only at a rate RateCodes names");
    const uint32_t n = GetHops();
    if (n == kMaxHops)
    {
        m_hops |= 0x80;
        return;
    }
    const uint64_t scale = Scale(rateCode);
    const uint64_t time = static_cast<uint64_t>(now.GetNanoSeconds()) & ((1u << kTimeBits) - 1);
    const uint64_t tx = (txBytes / (kTxUnit * scale)) & ((1u << kTxBits) - 1);
    const uint64_t queue =
        std::min<uint64_t>(queueBytes / (kQueueUnit * scale), (1u << kQueueBits) - 1);
    m_records[n] = (uint64_t(rateCode) << 60) | (time << 36) | (tx << 16) | queue;
    m_hops = static_cast<uint8_t>((m_hops & 0x80) | (n + 1));
}

InbandTelemetry::Hop
InbandTelemetry::GetHop(uint32_t i) const
{
    NS_ASSERT(i < GetHops());
    const uint64_t w = m_records[i];
    const uint8_t code = static_cast<uint8_t>(w >> 60);
    const uint64_t scale = Scale(code);
    Hop h;
    h.bitRate = RateOfCode(code);
    h.time = static_cast<uint32_t>((w >> 36) & ((1u << kTimeBits) - 1));
    h.txBytes = ((w >> 16) & ((1u << kTxBits) - 1)) * kTxUnit * scale;
    h.queueBytes = (w & ((1u << kQueueBits) - 1)) * kQueueUnit * scale;
    return h;
}

uint64_t
InbandTelemetry::TxDelta(const Hop& later, const Hop& earlier)
{
    const uint64_t range =
        (uint64_t(1) << kTxBits) * kTxUnit * std::max<uint64_t>(1, later.bitRate / kScaleRate);
    return (later.txBytes + range - earlier.txBytes) % range;
}

void
InbandTelemetry::Write(uint8_t* b) const
{
    b[0] = m_hops;
    b[1] = 0;
    for (uint32_t i = 0; i < kMaxHops; ++i)
    {
        for (uint32_t k = 0; k < 8; ++k)
        {
            b[2 + 8 * i + k] = static_cast<uint8_t>(m_records[i] >> (56 - 8 * k));
        }
    }
}

void
InbandTelemetry::Read(const uint8_t* b)
{
    m_hops = b[0];
    for (uint32_t i = 0; i < kMaxHops; ++i)
    {
        uint64_t w = 0;
        for (uint32_t k = 0; k < 8; ++k)
        {
            w = (w << 8) | b[2 + 8 * i + k];
        }
        m_records[i] = w;
    }
}

} // namespace ns3
