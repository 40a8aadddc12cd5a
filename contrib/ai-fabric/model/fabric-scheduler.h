#ifndef AI_FABRIC_FABRIC_SCHEDULER_H
#define AI_FABRIC_FABRIC_SCHEDULER_H

#include "ns3/scheduler.h"

#include <array>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An event scheduler (a radix heap) that resolves same-time ties the same way however
 * the fabric is split over MPI ranks.
 *
 * ns-3's schedulers run the events of one timestamp in the order they were scheduled (their
 * uid).  A frame from another MPI rank is scheduled when its message is received at a window
 * boundary, not when it was sent, so under ns-3's rule a frame arriving at the same picosecond
 * as a local event (a transmit completion, a pacing timer) may run before it in one process and
 * after it in two.  This scheduler runs, at each timestamp, every FrameArrival first, ordered by
 * its tie key (receiving port), then every ControlArrival (a notice of the FabricControlPath,
 * which crosses ranks alike) by its key, and then the other events in scheduling order.  Every
 * event a rank runs then sees the same state as in a single process, and results are identical.
 *
 * Select it with Simulator::SetScheduler or the "SchedulerType" global value, in single-process
 * and distributed runs alike (ai-fabric-run does).  The tie rule differs from ns-3's, so a run
 * under another scheduler may differ from one under this by the order of simultaneous events.
 *
 * The queue is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, J. ACM 37(2), 1990): an event is
 * filed in a bucket by the highest bit in which its time differs from the latest time taken out
 * of the buckets (at a removal or a peek), and a bucket is split into lower ones only when it is
 * the earliest left.  Insertion appends to the bucket's last block; each event moves at most
 * once per bit of its distance ahead, through memory in order, where a binary heap of the tens
 * of thousands of events a 1,024-GPU run keeps pending walks 15 levels of scattered cache lines
 * for every removal.  The events of the current instant, hundreds when a large collective runs
 * in step, are put in order once and taken in order: a bucket holds its events in the order they
 * were scheduled (a split files a bucket's events, in order, into lower buckets that are all
 * empty), so only the frame arrivals among them are sorted, by tie key. Once a ring falls out of
 * step its events come picoseconds apart, one per instant, and each would cost a split: an
 * earliest bucket of at most one block within 4 ns is instead sorted whole into a run of
 * instants, taken in order, which later events inside its span join. An event inserted before
 * the current instant or run (ns-3's DistributedSimulatorImpl peeks at the next event, then
 * receives other ranks' frames, which may come before it) waits in a binary heap of its own, and
 * goes first.
 *
 * One consequence for models: ns-3 judges an event expired once an event with a larger uid at
 * the same time has run, so when a frame arrival runs before an event scheduled earlier for the
 * same picosecond, EventId::IsRunning() says false and EventId::Cancel() does nothing for that
 * event, which still runs.  Events a frame arrival may cancel check their own state when they
 * run (FabricNetDevice's PFC events and refreshes, RdmaQueuePair's timeout and pacing).
 */
class FabricScheduler final : public Scheduler
{
  public:
    static TypeId GetTypeId();

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;
    /**
     * Ask the processor for the memory of the events that come next from the current instant or
     * run, while the one RemoveNext returned last runs: the event after the next, and, if the next
     * is a frame arrival, its other lines and its receiving port's lines that Receive reads (the
     * port's address is read from the event, which the call before asked for).  At thousands of
     * ports each is likely a cache miss otherwise.  A hint only: it changes nothing but timing, and
     * asks for nothing when the instant or run is used up or an early event (m_early) comes first.
     */
    void Prefetch() const;

  private:
    /**
     * A scheduled event, 32 bytes: its time, its same-time order (a frame's tie key, else the
     * maximum), and the rest of ns-3's Event (uid, context, implementation).
     */
    struct Entry
    {
        uint64_t ts;
        uint64_t order;
        uint32_t uid;
        uint32_t context;
        EventImpl* impl;
    };

    /** The order of an event that is not an arrival: after every arrival of its instant. */
    static constexpr uint64_t kPlain = ~uint64_t{0};

    /** Whether \p a runs before \p b: by time, then order, then uid. */
    static bool Before(const Entry& a, const Entry& b)
    {
        if (a.ts != b.ts)
        {
            return a.ts < b.ts;
        }
        return a.order != b.order ? a.order < b.order : a.uid < b.uid;
    }

    /** Before, reversed: the std heap functions then keep the first entry at the front. */
    static bool After(const Entry& a, const Entry& b)
    {
        return Before(b, a);
    }

    /** A bucket's entries come in blocks of 4 KiB, which split buckets give back for reuse: the
     * queue keeps about as much memory as it held entries at its peak (blocks are not freed
     * until it is destroyed), and a block reused is a block in cache. */
    struct Block
    {
        static constexpr uint32_t kEntries = 127;
        Entry entries[kEntries];
        Block* next;
        uint32_t count;
    };

    /** A bucket: its blocks in a list, filled in order. */
    struct Bucket
    {
        Block* head{nullptr};
        Block* tail{nullptr};
    };

    static Event ToEvent(const Entry& e);

    /** The bucket of time \p ts (later than \p last): its highest bit not in \p last. */
    static unsigned BucketOf(uint64_t ts, uint64_t last)
    {
        return 63 - static_cast<unsigned>(__builtin_clzll(ts ^ last));
    }

    /** Add \p e to bucket \p b. */
    void File(const Entry& e, unsigned b) const
    {
        Bucket& bucket = m_later[b];
        Block* tail = bucket.tail;
        if (!tail || tail->count == Block::kEntries)
        {
            tail = AddBlock(bucket);
        }
        tail->entries[tail->count++] = e;
        m_occupied |= uint64_t{1} << b;
    }

    /** Append an empty block to \p bucket (one from the free list if any); the block. */
    [[gnu::noinline]] Block* AddBlock(Bucket& bucket) const;
    /** The next entry (the current instant's or an early one's), filling the current instant
     * from the earliest bucket when it is empty; null when nothing is queued. */
    const Entry* Front() const;
    /** Whether m_early holds the entry of \p uid; it is removed if so. */
    bool RemoveEarly(uint32_t uid);

    static constexpr unsigned kRunLevel = 12;             //!< runs: buckets up to 4 ns wide
    mutable uint64_t m_last{0};                           //!< the last time in m_now
    mutable uint64_t m_floor{0};                          //!< the first time in m_now
    mutable std::vector<Entry> m_now;                     //!< its entries, sorted
    mutable std::vector<Entry> m_plain;                   //!< Front's room for non-arrivals
    mutable std::size_t m_next{0};                        //!< the first of them not taken
    mutable std::array<Bucket, 64> m_later;               //!< later entries by BucketOf
    mutable uint64_t m_occupied{0};                       //!< bit b: m_later[b] is not empty
    mutable Block* m_free{nullptr};                       //!< blocks to reuse, last freed first
    mutable std::vector<std::unique_ptr<Block>> m_blocks; //!< every block, to free them
    std::vector<Entry> m_early;                           //!< before m_floor, a heap by After
    mutable bool m_uidOrdered{true}; //!< every bucket holds its entries in uid order
    uint32_t m_lastFiledUid{0};      //!< the uid Insert filed in a bucket last
};

} // namespace ns3

#endif
