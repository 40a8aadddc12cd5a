#ifndef AI_FABRIC_INBAND_TELEMETRY_H
#define AI_FABRIC_INBAND_TELEMETRY_H

#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The in-band telemetry (INT) header a frame carries for HPCC: one 8-byte record per
 * switch egress port it crossed, stamped as the frame leaves the port.
 *
 * The layout is the model's (HPCC's prototype fixed its own; neither RoCEv2 nor the INT
 * specification fixes one for RDMA): 2 bytes (hop count, with bit 7 set once a sixth hop found
 * the header full; a reserved byte), then kMaxHops records, unused ones zero, so the header is
 * kHeaderBytes = 42 whatever the path, the size the HPCC paper gives for 5 hops.  A record is one
 * big-endian 64-bit word:
 *  - bits 63-60: the port's link rate, a code of RateCodes (the IEEE 802.3 rates, 1 Gb/s to
 *    1.6 Tb/s; a port of another rate cannot stamp: see RateCode);
 *  - bits 59-36: the time the frame left, in ns, modulo 2^24 (16.8 ms);
 *  - bits 35-16: the bytes the port has sent (this frame included), modulo 2^20, in units of
 *    128 B x max(1, rate / 25 Gb/s) (integer division), so the counter wraps after 26.8 ms at
 *    40 Gb/s, 42.9 ms at 25, 50 Gb/s and above, longer below: never within the 8 ms over
 *    which HpccCongestionControl compares records;
 *  - bits 15-0: the bytes queued at the port for every class after the frame left, in units of
 *    64 B x max(1, rate / 25 Gb/s), saturating (at 16 MiB at 100 Gb/s).
 * A frame carries the header when its BTH's telemetry bit is set (roce::MakeDataFrame): after
 * the BTH in a data frame, after the AETH in an ACK or NAK, which echoes its data frame's.
 */
class InbandTelemetry
{
  public:
    static constexpr uint32_t kMaxHops = 5;                  //!< records a header holds
    static constexpr uint32_t kHeaderBytes = 2 + 8 * kMaxHops; //!< on the wire: 42
    static constexpr uint32_t kTimeBits = 24;               //!< width of a record's timestamp
    static constexpr uint32_t kTxBits = 20;                 //!< of its sent-bytes counter
    static constexpr uint32_t kQueueBits = 16;              //!< of its queue length

    /** The rates a record can name, in bit/s, by code - 1. */
    static constexpr std::array<uint64_t, 10> RateCodes{1000000000ull,
                                                        10000000000ull,
                                                        25000000000ull,
                                                        40000000000ull,
                                                        50000000000ull,
                                                        100000000000ull,
                                                        200000000000ull,
                                                        400000000000ull,
                                                        800000000000ull,
                                                        1600000000000ull};

    /** The code of \p bitRate (1 for RateCodes[0], ...), 0 if it has none. */
    static uint8_t RateCode(uint64_t bitRate);
    /** The bit rate of \p code (RateCode's inverse; \p code must be one). */
    static uint64_t RateOfCode(uint8_t code);
    /** The rates a record can name, for an error message: "1, 10, 25, ... 1600 Gb/s". */
    static const char* RateList();

    /** One decoded record. */
    struct Hop
    {
        uint64_t bitRate;    //!< the port's link rate
        uint32_t time;       //!< ns modulo 2^24 as the frame left
        uint64_t txBytes;    //!< bytes sent modulo the counter's range, in bytes
        uint64_t queueBytes; //!< bytes queued as the frame left (a multiple of the unit)
    };

    /** Records held. */
    uint32_t GetHops() const { return m_hops & 0x7f; }
    /** A hop found the header full: the records are the first kMaxHops of a longer path. */
    bool Overflowed() const { return (m_hops & 0x80) != 0; }
    /** Record \p i (below GetHops()), decoded. */
    Hop GetHop(uint32_t i) const;

    /**
     * Stamp a record as a frame leaves a port of rate code \p rateCode (nonzero) at \p now,
     * the port having sent \p txBytes in all and holding \p queueBytes after it.
     */
    void Push(uint8_t rateCode, Time now, uint64_t txBytes, uint64_t queueBytes);

    /** Nanoseconds from \p earlier to \p later, two Hop::time stamps (modulo 2^24). */
    static uint32_t TimeDelta(uint32_t later, uint32_t earlier)
    {
        return (later - earlier) & ((1u << kTimeBits) - 1);
    }

    /** Bytes sent from \p earlier to \p later, two records of one port (modulo its counter). */
    static uint64_t TxDelta(const Hop& later, const Hop& earlier);

    /** Write the kHeaderBytes of the header to \p b. */
    void Write(uint8_t* b) const;
    /** Read the header from the kHeaderBytes at \p b. */
    void Read(const uint8_t* b);

    bool operator==(const InbandTelemetry& o) const
    {
        return m_hops == o.m_hops && m_records == o.m_records;
    }

  private:
    /** The unit of the counters at rate code \p code: max(1, rate / 25 Gb/s). */
    static uint64_t Scale(uint8_t code);

    uint8_t m_hops{0}; //!< records held, and the overflow bit
    std::array<uint64_t, kMaxHops> m_records{};
};

} // namespace ns3

#endif
