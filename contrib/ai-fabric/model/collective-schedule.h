#ifndef AI_FABRIC_COLLECTIVE_SCHEDULE_H
#define AI_FABRIC_COLLECTIVE_SCHEDULE_H

#include "collective-protocol.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/** The collective operations (names as nccl-tests spells them: allreduce, ...). */
enum CollectiveOperation
{
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER,
    BROADCAST,
    REDUCE,
    ALL_TO_ALL,
};

/** "allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall". */
const char* CollectiveOperationName(CollectiveOperation op);
/** Parse a name as above; false if unknown. */
bool ParseCollectiveOperation(const std::string& name, CollectiveOperation& op);
/** Every operation's name, comma separated, for error messages. */
std::string CollectiveOperationNames();
/**
 * busbw / algbw for \p op over \p ranks (nccl-tests PERFORMANCE.md): 2(n-1)/n for all-reduce,
 * (n-1)/n for reduce-scatter, all-gather and all-to-all, 1 for broadcast and reduce.
 */
double BusBandwidthFactor(CollectiveOperation op, uint32_t ranks);

/** Where a rank runs, as far as an algorithm needs to know: its server and local GPU index. */
struct RankPlacement
{
    uint32_t server{0};
    uint32_t localIndex{0};
};

/**
 * What to build a schedule for.  \c bytes is the size nccl-tests reports: the whole buffer for
 * all-reduce, broadcast and reduce; the full (all ranks') vector for reduce-scatter input and
 * all-gather output; each rank's send buffer for all-to-all.
 */
struct CollectiveRequest
{
    CollectiveOperation op{ALL_REDUCE};
    uint64_t bytes{0};
    uint32_t ranks{0};
    uint32_t root{0};         //!< broadcast and reduce
    uint32_t elementBytes{4}; //!< datatype size (float32); pieces are whole elements
    std::vector<RankPlacement> placement; //!< per rank; empty = one rank per server
    DataRate nicRate;         //!< for the tuner: rank 0's scale-out NIC's line rate
    DataRate nvLinkRate;      //!< for the tuner: rank 0's NVLink port's rate (0: none)
    // The MoE routing an all-to-all dispatches, as far as a training job knows it.  Only an
    // algorithm that routes tokens (deepep) reads them, in place of its own attributes.
    uint32_t experts{0}; //!< routed experts in equal shares over the ranks (0: not given)
    uint32_t topK{0};    //!< experts each token goes to (0: not given)
    /**
     * Per rank, whether the schedule keeps its steps (empty: every rank).  A process of a
     * distributed run builds only the ranks it simulates; the others' steps are counted, and
     * their connections recorded, but not stored.
     */
    std::vector<bool> simulatedRanks;
    /**
     * The NVLS engines the group can address (TopologyHelper's Nvls): engine rank ranks + i is
     * the engine of server engineServers[i].  Only an algorithm that uses them (nvls) builds
     * steps for them; simulatedRanks may name them after the GPU ranks.
     */
    std::vector<uint32_t> engineServers;
    /**
     * How the messages are carried (wire bytes, slices, latencies).  CollectiveAlgorithm::Build
     * sets it from the algorithm's Protocol attribute; null (a schedule built by hand): whole
     * messages of their data alone, without latency.
     */
    Ptr<const CollectiveProtocol> protocol;
};

/**
 * \ingroup ai-fabric
 * \brief One rank's unit of work in a collective.
 *
 * SEND and RECV move \c bytes to or from rank \c peer over connection \c channel (several
 * channels between a pair are separate queue pairs, so ECMP sees separate flows); REDUCE and
 * COPY are work on the rank's accelerator; JOIN is no work and finishes the instant it starts
 * (one JOIN between m steps and the n steps that wait for all of them takes m + n
 * dependencies instead of m x n).  A step starts when every step in \c deps (indices of
 * earlier steps of the same rank, CollectiveSchedule::GetDeps) has finished.
 */
struct CollectiveStep
{
    enum Kind : uint8_t
    {
        SEND,
        RECV,
        REDUCE,
        COPY,
        JOIN,
    };
    Kind kind : 8;
    uint32_t peer : 24; //!< ranks below 2^24 (CollectiveSchedule checks)
    uint32_t channel{0};
    uint64_t bytes{0};

    static const char* KindName(Kind k);
};

// 16 bytes: a large schedule holds hundreds of millions of steps.
static_assert(sizeof(CollectiveStep) == 16, "CollectiveStep grew");

/**
 * Indices of steps of one rank: a step's dependencies (CollectiveSchedule::GetDeps) or
 * dependents (GetDependents), either a stored list or up to kInline values held by value (a
 * generated step's).  A stored list is valid until the schedule's steps change or, for
 * dependents, the rank's index is released (CollectiveSchedule::ReleaseIndex).
 */
class StepDeps
{
  public:
    static constexpr std::size_t kInline = 2; //!< the most held by value

    /** The stored list [\p begin, \p end). */
    StepDeps(const uint32_t* begin, const uint32_t* end)
        : m_stored(begin),
          m_size(static_cast<uint32_t>(end - begin))
    {
    }

    /** No dependencies. */
    StepDeps() = default;

    /** One, held by value. */
    explicit StepDeps(uint32_t a)
        : m_size(1),
          m_own{a, 0}
    {
    }

    /** Two, held by value. */
    StepDeps(uint32_t a, uint32_t b)
        : m_size(2),
          m_own{a, b}
    {
    }

    const uint32_t* begin() const
    {
        return m_stored ? m_stored : m_own;
    }

    const uint32_t* end() const
    {
        return begin() + m_size;
    }

    std::size_t size() const
    {
        return m_size;
    }

    bool empty() const
    {
        return m_size == 0;
    }

  private:
    const uint32_t* m_stored{nullptr}; //!< null: the values are m_own
    uint32_t m_size{0};
    uint32_t m_own[kInline]{};
};

/**
 * \ingroup ai-fabric
 * \brief Steps computed on demand instead of stored: an algorithm whose steps follow a formula
 * (the ring) gives its schedule one, so that a schedule of 10^4 ranks does not hold its
 * O(ranks^2) steps.  The steps must be what the algorithm would store, in the same order.
 */
class StepGenerator
{
  public:
    virtual ~StepGenerator() = default;
    /** Steps of \p rank. */
    virtual uint32_t GetNSteps(uint32_t rank) const = 0;
    /** \p rank's step \p i. */
    virtual CollectiveStep GetStep(uint32_t rank, uint32_t i) const = 0;
    /** Its dependencies (at most StepDeps::kInline). */
    virtual StepDeps GetDeps(uint32_t rank, uint32_t i) const = 0;
    /** The steps that wait for \p rank's step \p i, ascending (at most StepDeps::kInline). */
    virtual StepDeps GetDependents(uint32_t rank, uint32_t i) const = 0;
    /** Each (peer, channel) \p rank's steps use, in the order of first use. */
    virtual std::vector<std::pair<uint32_t, uint32_t>> GetPeers(uint32_t rank) const = 0;
    /** \p rank's steps other than RECVs that have no dependencies, ascending. */
    virtual std::vector<uint32_t> GetStartSteps(uint32_t rank) const = 0;
    /** How many of \p rank's steps are \p kind (SEND or RECV) with \p peer on \p channel. */
    virtual uint32_t GetNMessages(uint32_t rank,
                                  CollectiveStep::Kind kind,
                                  uint32_t peer,
                                  uint32_t channel) const = 0;
    /** The index of the \p k-th of them. */
    virtual uint32_t GetMessageStep(uint32_t rank,
                                    CollectiveStep::Kind kind,
                                    uint32_t peer,
                                    uint32_t channel,
                                    uint32_t k) const = 0;
};

/**
 * One rank's SEND (or RECV) steps on one connection, in order (CollectiveSchedule::
 * GetMessageSteps): the step of its k-th message.  Valid until its schedule's steps change or
 * the rank's index is released (CollectiveSchedule::ReleaseIndex).
 */
class MessageSteps
{
  public:
    /** No messages. */
    MessageSteps() = default;

    /** \p size steps stored at \p steps. */
    MessageSteps(const uint32_t* steps, uint32_t size)
        : m_stored(steps),
          m_size(size)
    {
    }

    /** \p rank's \p kind steps with \p peer on \p channel, as \p generator computes them. */
    MessageSteps(const StepGenerator* generator,
                 uint32_t rank,
                 CollectiveStep::Kind kind,
                 uint32_t peer,
                 uint32_t channel)
        : m_generator(generator),
          m_size(generator->GetNMessages(rank, kind, peer, channel)),
          m_rank(rank),
          m_peer(peer),
          m_channel(channel),
          m_kind(kind)
    {
    }

    /** The number of messages. */
    uint32_t size() const
    {
        return m_size;
    }

    /** The step of message \p k (< size()). */
    uint32_t operator[](uint32_t k) const
    {
        return m_generator ? m_generator->GetMessageStep(m_rank, m_kind, m_peer, m_channel, k)
                           : m_stored[k];
    }

  private:
    const uint32_t* m_stored{nullptr};         //!< stored steps (no generator)
    const StepGenerator* m_generator{nullptr}; //!< or the generator that computes them
    uint32_t m_size{0};
    uint32_t m_rank{0};
    uint32_t m_peer{0};
    uint32_t m_channel{0};
    CollectiveStep::Kind m_kind{CollectiveStep::SEND};
};

class CollectiveSchedule;

/**
 * \ingroup ai-fabric
 * \brief One rank's steps, read through its schedule (stored or generated): indexable and
 * iterable (an input range); elements are returned by value.
 */
class StepRange
{
  public:
    /** The \p size steps of \p rank of \p schedule. */
    StepRange(const CollectiveSchedule* schedule, uint32_t rank, uint32_t size)
        : m_schedule(schedule),
          m_rank(rank),
          m_size(size)
    {
    }

    /** An input iterator over the steps (dereferences to a copy). */
    class Iterator
    {
      public:
        using iterator_category = std::input_iterator_tag;
        using value_type = CollectiveStep;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = CollectiveStep;

        Iterator(const StepRange* range, uint32_t i)
            : m_range(range),
              m_i(i)
        {
        }

        CollectiveStep operator*() const
        {
            return (*m_range)[m_i];
        }

        Iterator& operator++()
        {
            ++m_i;
            return *this;
        }

        bool operator!=(const Iterator& o) const
        {
            return m_i != o.m_i;
        }

        bool operator==(const Iterator& o) const
        {
            return m_i == o.m_i;
        }

      private:
        const StepRange* m_range;
        uint32_t m_i;
    };

    /** Step \p i. */
    inline CollectiveStep operator[](uint32_t i) const;

    uint32_t size() const
    {
        return m_size;
    }

    bool empty() const
    {
        return m_size == 0;
    }

    Iterator begin() const
    {
        return {this, 0};
    }

    Iterator end() const
    {
        return {this, m_size};
    }

  private:
    const CollectiveSchedule* m_schedule;
    uint32_t m_rank;
    uint32_t m_size;
};

/**
 * \ingroup ai-fabric
 * \brief The contract between collective algorithms and the executor: for each rank a DAG of
 * steps, in topological order.
 *
 * Matching is by order, as MPI's non-overtaking rule and an RDMA receive queue have it: the
 * k-th SEND from rank a to rank b on channel c is received by the k-th RECV of b from a on c,
 * and both carry the same bytes.  A schedule is valid when every dependency points to an
 * earlier step, every SEND has its RECV, and the steps of all ranks together, with each SEND
 * before its RECV and each SEND after the one before it in its direction (a queue pair posts
 * its messages in order), form a DAG (no rank waits forever).
 */
class CollectiveSchedule
{
  public:
    CollectiveSchedule(CollectiveOperation op, uint64_t bytes, uint32_t ranks);
    /**
     * An empty schedule for \p request, keeping the steps of its simulatedRanks only; with
     * \p engines, over its GPU ranks and then its NVLS engines (CollectiveRequest::engineServers),
     * each engine on its server.
     */
    explicit CollectiveSchedule(const CollectiveRequest& request, bool engines = false);

    /** Append \p step, waiting for \p deps, to \p rank's list; returns its index. */
    uint32_t Add(uint32_t rank, const CollectiveStep& step, const std::vector<uint32_t>& deps);
    uint32_t Send(uint32_t rank, uint32_t peer, uint64_t bytes, const std::vector<uint32_t>& deps,
                  uint32_t channel = 0);
    uint32_t Recv(uint32_t rank, uint32_t peer, uint64_t bytes, const std::vector<uint32_t>& deps,
                  uint32_t channel = 0);
    uint32_t Reduce(uint32_t rank, uint64_t bytes, const std::vector<uint32_t>& deps);
    uint32_t Copy(uint32_t rank, uint64_t bytes, const std::vector<uint32_t>& deps);
    uint32_t Join(uint32_t rank, const std::vector<uint32_t>& deps);
    /**
     * Append \p sub, a schedule over ranks.size() ranks, to the ranks \p ranks: sub's rank j
     * becomes ranks[j] (peers mapped the same way, channels shifted by \p channelOffset) and
     * sub's steps without dependencies wait for \p after[j] (steps of ranks[j]; through a JOIN
     * when several steps wait for several).  Returns, per
     * j, the appended steps that nothing else in sub depends on (what a next phase waits for).
     */
    std::vector<std::vector<uint32_t>> Embed(const CollectiveSchedule& sub,
                                             const std::vector<uint32_t>& ranks,
                                             const std::vector<std::vector<uint32_t>>& after,
                                             uint32_t channelOffset = 0);
    /** The steps of \p rank (a kept one) that no later step depends on. */
    std::vector<uint32_t> GetSinks(uint32_t rank) const;
    /**
     * The steps of \p rank (a kept one) other than RECVs that have no dependencies, ascending:
     * those that start at launch.  A stored schedule's are found by a pass over the rank's
     * steps, a generated one's are computed.
     */
    std::vector<uint32_t> GetStartSteps(uint32_t rank) const;
    /** Each (peer, channel) \p rank's steps use, in the order of first use. */
    std::vector<std::pair<uint32_t, uint32_t>> GetPeers(uint32_t rank) const;

    CollectiveOperation GetOperation() const { return m_op; }
    uint64_t GetBytes() const { return m_bytes; }
    /** Release the spare capacity growth left (large schedules hold millions of steps). */
    void ShrinkToFit();
    /** Whether this schedule stores \p rank's steps (CollectiveRequest::simulatedRanks). */
    bool IsKept(uint32_t rank) const { return m_kept.empty() || m_kept[rank]; }
    uint32_t GetNRanks() const { return static_cast<uint32_t>(m_steps.size()); }

    /** The steps of \p rank (none unless kept). */
    StepRange GetSteps(uint32_t rank) const
    {
        return {this, rank, GetNSteps(rank)};
    }

    /** The number of steps of \p rank (0 unless kept). */
    uint32_t GetNSteps(uint32_t rank) const
    {
        return m_generator ? (IsKept(rank) ? m_generator->GetNSteps(rank) : 0)
                           : static_cast<uint32_t>(m_steps[rank].size());
    }

    /** \p rank's step \p i. */
    CollectiveStep GetStep(uint32_t rank, uint32_t i) const
    {
        return m_generator ? m_generator->GetStep(rank, i) : m_steps[rank][i];
    }
    /** The dependencies of \p rank's step \p step. */
    StepDeps GetDeps(uint32_t rank, uint32_t step) const
    {
        if (m_generator)
        {
            return m_generator->GetDeps(rank, step);
        }
        const uint32_t* deps = m_deps[rank].data();
        return {deps + (step == 0 ? 0 : m_depsEnd[rank][step - 1]), deps + m_depsEnd[rank][step]};
    }

    /**
     * The steps that wait for \p rank's step \p step, ascending.  A stored schedule indexes a
     * rank's dependents and messages the first time they are asked for (kept until its steps
     * change or the rank's index is released, ReleaseIndex).
     */
    StepDeps GetDependents(uint32_t rank, uint32_t step) const;
    /** \p rank's \p kind (SEND or RECV) steps with \p peer on \p channel, in order. */
    MessageSteps GetMessageSteps(uint32_t rank,
                                 CollectiveStep::Kind kind,
                                 uint32_t peer,
                                 uint32_t channel) const;
    /**
     * Release \p rank's index (GetDependents, GetMessageSteps of a stored schedule), which
     * otherwise lives as long as the schedule: the executor does when the rank has run it.
     */
    void ReleaseIndex(uint32_t rank) const;
    /** All kept ranks' steps. */
    uint64_t GetNSteps() const;
    /**
     * Take the steps from \p generator instead of storing them (the schedule must have none
     * stored).  CollectiveAlgorithm::Build validates stored schedules only; a generator is
     * proven against its algorithm's stored steps by the tests.
     */
    void SetGenerator(std::shared_ptr<const StepGenerator> generator);

    /** Whether the steps are generated (SetGenerator) rather than stored. */
    bool IsGenerated() const
    {
        return m_generator != nullptr;
    }
    /** How its messages are carried (null: data alone, no latency). */
    Ptr<const CollectiveProtocol> GetProtocol() const { return m_protocol; }
    /** Bytes on the wire for a message of \p payload bytes: the protocol's. */
    uint64_t WireBytes(uint64_t payload) const
    {
        return m_protocol ? m_protocol->WireBytes(payload) : payload;
    }
    /**
     * Bytes on the wire for a message of \p payload bytes from rank \p from to rank \p to:
     * the protocol's, over the engine efficiency when either is an NVLS engine.
     */
    uint64_t WireBytes(uint64_t payload, uint32_t from, uint32_t to) const
    {
        const uint64_t wire = WireBytes(payload);
        return (from < m_engineRanks && to < m_engineRanks) || m_engineEfficiency == 1.0
                   ? wire
                   : static_cast<uint64_t>(std::ceil(static_cast<double>(wire) / m_engineEfficiency));
    }
    /**
     * The share of NVLink's data rate that transfers to and from the NVLS engines (ranks from
     * the request's GPU count on: multimem operations) reach; they are sent as their wire
     * bytes over it.
     */
    void SetEngineEfficiency(double efficiency) { m_engineEfficiency = efficiency; }
    /**
     * The latency the protocol adds to a message from \p peer to \p rank: NVLink's when the two
     * share a server (CollectiveRequest::placement), the network's otherwise; with an
     * algorithm's own latencies (SetAlgorithmLatencies), theirs for messages to or from an
     * engine and across servers.
     */
    Time GetHopLatency(uint32_t rank, uint32_t peer) const;
    /** The time from launch to the first step. */
    Time GetLaunchLatency() const;
    /**
     * Latencies of an algorithm NCCL gives constants of its own (NVLS, NVLS-tree: its
     * baseLat and hwLat rows, not the rings' the protocol holds): steps start \p launch after
     * the launch, a message to or from an engine adds \p engineHop, one between servers
     * \p netHop.  Ignored without a protocol or under "ideal" (data alone, no latency).
     */
    void SetAlgorithmLatencies(Time launch, Time engineHop, Time netHop);
    /** The algorithm that built it (with what "auto" chose, e.g. "auto:ring"). */
    const std::string& GetAlgorithm() const { return m_algorithm; }
    void SetAlgorithm(const std::string& name) { m_algorithm = name; }
    /**
     * Whether its algorithm pipelines the whole collective (NCCL's ring, tree, NVLS, NVLS-tree
     * and PXN, and DeepEP's dispatch: in the steady state every connection it uses carries
     * data at once), so that the collective fidelity may run it as its SteadyStateSchedule.
     */
    bool IsPipelined() const { return m_pipelined; }
    void SetPipelined(bool pipelined) { m_pipelined = pipelined; }
    /**
     * Remove every step (releasing their memory), keeping the operation, size, placement,
     * protocol and latencies.
     */
    void ClearSteps();
    /**
     * The least time from rank \p rank's first step to its end: the critical path of the
     * steps a SteadyStateSchedule stands for (zero unless set).
     */
    Time GetCriticalPath(uint32_t rank) const { return m_path.empty() ? Time() : m_path[rank]; }
    void SetCriticalPath(uint32_t rank, Time path);
    /**
     * The channels each connection's messages stand for (1 unless a SteadyStateSchedule
     * merged channels whose paths are the same): a channel's send budget is that many
     * channels' (CollectiveProtocol::GetChannelWireRate).
     */
    uint32_t GetChannelsPerConnection() const { return m_channelsPerConnection; }
    void SetChannelsPerConnection(uint32_t channels) { m_channelsPerConnection = channels; }
    /** The time NCCL's cost model predicts for it, when auto built it (zero: none). */
    Time GetPredictedTime() const { return m_predicted; }
    void SetPredictedTime(Time t) { m_predicted = t; }

    /** Each connection the schedule uses once: (lower rank, higher rank, channel). */
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> GetConnections() const;
    /** Bytes rank \p rank sends in all. */
    uint64_t GetBytesSent(uint32_t rank) const;
    /**
     * An empty string if valid, else what is wrong (the first problem found).  A schedule that
     * keeps some ranks only is checked as far as they go: their steps, the messages between
     * two kept ranks, and no deadlock among them (a receive from another rank counts as met).
     */
    std::string Validate() const;

  private:
    CollectiveOperation m_op;
    uint64_t m_bytes;
    std::string m_algorithm;
    Time m_predicted;
    bool m_pipelined{false};
    std::vector<Time> m_path; //!< per rank (empty: none)
    uint32_t m_channelsPerConnection{1};
    // Per rank, the steps and their dependencies in one flat list (step i's are
    // m_deps[m_depsEnd[i - 1] .. m_depsEnd[i])): 16 bytes a step, 4 for its end offset and 4
    // a dependency, without a heap block per step, since a large schedule holds millions of
    // steps.
    std::vector<std::vector<CollectiveStep>> m_steps;
    std::vector<std::vector<uint32_t>> m_depsEnd;
    std::vector<std::vector<uint32_t>> m_deps;
    std::vector<bool> m_kept;     //!< ranks whose steps are stored; empty: all
    std::shared_ptr<const StepGenerator> m_generator; //!< null: the steps are stored

    /** A stored rank's dependents and message steps (GetDependents, GetMessageSteps). */
    struct RankIndex
    {
        std::vector<uint32_t> dependentsBegin; //!< per step, then the end: into dependents
        std::vector<uint32_t> dependents;      //!< each step's dependents, ascending
        /** (kind, peer, channel) of each connection's steps, sorted, and where they begin. */
        std::vector<std::pair<std::tuple<uint8_t, uint32_t, uint32_t>, uint32_t>> messageKeys;
        std::vector<uint32_t> messageSteps; //!< grouped by key, in order; messageKeys' ends
    };

    /** Per rank, built on first use (null: none built); cleared when steps are added. */
    mutable std::vector<std::shared_ptr<const RankIndex>> m_index;
    const RankIndex& IndexOf(uint32_t rank) const;
    /** \p rank's dependents, ascending, into \p index. */
    void IndexDependents(uint32_t rank, RankIndex& index) const;
    /** \p rank's SEND and RECV steps by connection, into \p index. */
    void IndexMessages(uint32_t rank, RankIndex& index) const;
    Ptr<const CollectiveProtocol> m_protocol;
    double m_engineEfficiency{1.0};
    bool m_algorithmLatencies{false}; //!< the three below replace the protocol's
    Time m_launch;
    Time m_engineHop;
    Time m_netHop;
    uint32_t m_engineRanks{UINT32_MAX}; //!< the first engine rank (none: UINT32_MAX)
    std::vector<uint32_t> m_server; //!< per rank (empty: each rank on its own server)
    std::vector<uint32_t> m_count; //!< steps per rank, stored or not
    /** Per rank, each (peer, channel) its steps use, in the order of first use. */
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_peers;

    /** Abort if \p peer does not fit CollectiveStep::peer. */
    static void CheckPeer(uint32_t peer);
    /** Append \p step, waiting for [\p deps, \p depsEnd) each plus \p shift. */
    uint32_t Append(uint32_t rank,
                    const CollectiveStep& step,
                    const uint32_t* deps,
                    const uint32_t* depsEnd,
                    uint32_t shift);
};

CollectiveStep
StepRange::operator[](uint32_t i) const
{
    return m_schedule->GetStep(m_rank, i);
}

/**
 * Cut \p bytes into \p parts pieces of whole \p elementBytes elements, as even as possible
 * (the first pieces one element larger); pieces may be empty when there are few elements.
 */
std::vector<uint64_t> SplitBytes(uint64_t bytes, uint32_t parts, uint32_t elementBytes);
/** Piece \p index of SplitBytes(\p bytes, \p parts, \p elementBytes), without the vector. */
uint64_t SplitPiece(uint64_t bytes, uint32_t parts, uint32_t index, uint32_t elementBytes);

} // namespace ns3

#endif
