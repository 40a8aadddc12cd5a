#ifndef AI_FABRIC_COLLECTIVE_APPLICATION_H
#define AI_FABRIC_COLLECTIVE_APPLICATION_H

#include "accelerator.h"
#include "collective-schedule.h"
#include "message-queue-pair.h"

#include "ns3/application.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/** One executed step, for timelines: what it was and when it ran. */
struct CollectiveStepRecord
{
    uint32_t rank;
    uint32_t index; //!< position in the rank's schedule
    CollectiveStep::Kind kind;
    uint32_t peer;    //!< SEND/RECV
    uint32_t channel; //!< SEND/RECV
    uint64_t bytes;
    Time start; //!< when its dependencies were met
    Time end;   //!< SEND: acknowledged; RECV: last byte arrived; REDUCE/COPY: finished
};

/**
 * \ingroup ai-fabric
 * \brief One rank of a collective: executes that rank's part of a CollectiveSchedule over
 * RDMA queue pairs and its Accelerator.
 *
 * A step starts when its dependencies have finished.  A SEND posts its message on the queue
 * pair of (peer, channel), in schedule order per queue pair, and finishes when the message
 * is acknowledged.  A RECV finishes when the matching message (the k-th from that peer on
 * that channel) has fully arrived; messages that arrive before their RECV starts wait, as in
 * a pre-posted receive buffer.  The schedule's protocol sets what travels and when: a message
 * goes as its wire bytes (CollectiveSchedule::WireBytes), a RECV finishes the hop latency
 * after its message arrived, and the first steps start the launch latency after the schedule
 * began, and the queue pairs of one channel together send no faster than the protocol's
 * channel rate (CollectiveProtocol::GetChannelWireRate).  REDUCE and COPY run on the accelerator's engines.  Schedules
 * given to Execute run one after another.  When a queue pair of the rank fails (retry count
 * exceeded) the rank stops: it runs no further step or schedule and fires Failed.
 */
class CollectiveApplication : public Application
{
  public:
    /** Called when this rank has finished a schedule: the rank. */
    using DoneCallback = Callback<void, uint32_t>;

    static TypeId GetTypeId();
    CollectiveApplication();
    ~CollectiveApplication() override;

    /** This application is rank \p rank, computing on \p accelerator. */
    void Setup(uint32_t rank, Ptr<Accelerator> accelerator);
    uint32_t GetRank() const { return m_rank; }
    /** The steps (not JOINs) this rank finished, in every schedule it ran: the Step trace's
     * calls, counted without a callback. */
    uint64_t GetStepsFinished() const { return m_stepsFinished; }
    /** Use \p qp (this rank's end) for traffic with \p peer on \p channel (one connection per
     * pair: a second aborts at the next search). */
    void AddConnection(uint32_t peer, uint32_t channel, Ptr<MessageQueuePair> qp);
    /** Whether a connection to \p peer on \p channel exists. */
    bool HasConnection(uint32_t peer, uint32_t channel) const;
    /** This rank's end of the connection to \p peer on \p channel (null if none). */
    Ptr<MessageQueuePair> GetConnection(uint32_t peer, uint32_t channel) const;
    /**
     * Run this rank's part of \p schedule once the schedules before it are done (at once if
     * idle and the application has started); \p done is called at the end.
     */
    void Execute(std::shared_ptr<const CollectiveSchedule> schedule,
                 DoneCallback done = DoneCallback());
    /** When the current (or last) schedule started and finished on this rank. */
    Time GetStartTime() const { return m_started; }
    Time GetFinishTime() const { return m_finished; }
    bool IsBusy() const { return m_schedule != nullptr; }
    /** Called with the rank when it stops on a failed queue pair (its group's hook). */
    void SetFailureCallback(Callback<void, uint32_t> failed) { m_failureCallback = failed; }
    /** Whether the rank stopped because a queue pair failed. */
    bool IsFailed() const { return m_failed; }
    /**
     * \p engine (an NVLS engine's rank of this group, on this rank's server) runs every
     * schedule that has a rank for it, once per round: when the first of the ranks that
     * serve it is given the schedule.
     */
    void AddEngine(Ptr<CollectiveApplication> engine);

  protected:
    void DoDispose() override;

  private:
    struct Connection;
    struct Pending
    {
        std::shared_ptr<const CollectiveSchedule> schedule;
        DoneCallback done;
    };

    void StartApplication() override;
    void StopApplication() override;
    void Begin();
    /** The launch latency has passed: start the steps without dependencies, in order. */
    void Launch();
    void RunReady();
    void StartStep(uint32_t i);
    /** Step \p i is done: release its dependents (onto the ready list). */
    void FinishStep(uint32_t i);
    /** An accelerator engine finished step \p i. */
    void Finished(uint32_t i);
    void PostReadySends(Connection& c);
    void MessageSent(Connection& c);
    void MessageArrived(Connection& c, uint64_t bytes);
    /** Give a message of \p bytes that arrived at \p arrival to its RECV, after the hop latency. */
    void Match(Connection& c, uint64_t bytes, Time arrival);
    /** RECV step \p i has its data. */
    void Deliver(uint32_t i);
    class StepEvent;
    /** Run \p handler for step \p i \p delay from now. */
    void ScheduleStep(Time delay, void (CollectiveApplication::*handler)(uint32_t), uint32_t i);
    /** The connection of SEND \p step (the last one found is kept: a rank's sends run in
     * series on few connections). */
    Connection& ConnectionOf(const CollectiveStep& step);

    /** A connection's key in the index: peer in the high half, channel in the low. */
    static uint64_t ConnectionKey(uint32_t peer, uint32_t channel)
    {
        return uint64_t{peer} << 32 | channel;
    }

    /** The connection to \p peer on \p channel, or null (sorts the index if it is not). */
    Connection* FindConnection(uint32_t peer, uint32_t channel) const;
    void End();
    /** Release the per-step state of the schedule that ended. */
    void ReleaseSteps();
    struct Live;
    /** Step \p i's state, made (waiting for all its dependencies) if it has none yet. */
    Live& Touch(uint32_t i);
    /** A queue pair of the rank failed: stop. */
    void ConnectionFailed();
    /** An engine: one of the ranks it serves was given \p schedule. */
    void ServeRound(const std::shared_ptr<const CollectiveSchedule>& schedule);

    uint32_t m_rank{0};
    Ptr<Accelerator> m_accelerator;
    std::vector<std::unique_ptr<Connection>> m_connections;
    /**
     * Every connection by key, in one array (sorted when first searched after an
     * AddConnection): a search reads a few contiguous lines where a node-based map chases a
     * pointer, a likely cache miss, per level.
     */
    mutable std::vector<std::pair<uint64_t, Connection*>> m_connectionIndex;
    mutable bool m_indexSorted{true};      //!< m_connectionIndex is sorted
    Connection* m_lastConnection{nullptr}; //!< ConnectionOf's last answer
    std::deque<Pending> m_pending;
    bool m_running{false};
    bool m_failed{false};
    Callback<void, uint32_t> m_failureCallback;
    std::vector<Ptr<CollectiveApplication>> m_engines; //!< engines this rank starts
    uint32_t m_served{0}; //!< an engine: the ranks that start it
    /** An engine: per schedule of an open round, the served ranks that have been given it. */
    std::map<const CollectiveSchedule*, uint32_t> m_rounds;

    // The schedule being executed.
    std::shared_ptr<const CollectiveSchedule> m_schedule;
    DoneCallback m_done;

    /**
     * The state of a step between its first finished dependency (or its start, or its
     * message's arrival) and its end, in one word: the dependencies not yet finished (low
     * bits), whether it started and (a RECV) whether its message arrived; and when it started.
     * Only such steps have one, so the executor's memory follows the steps in flight, not the
     * schedule's length.  A RECV without dependencies starts at the launch and has none,
     * unless its message arrived before the launch.
     */
    struct Live
    {
        uint32_t word{0}; //!< waiting count, kStarted, kArrived
        Time start;       //!< when it started (once kStarted)
    };

    /**
     * The live steps by index, in one array with open addressing (linear probing, grown at
     * half full): no allocation per step, as a node-based map makes.  A pointer it returns
     * holds until the next Insert or Erase.
     */
    class LiveSteps
    {
      public:
        /** Step \p i's state, or null. */
        Live* Find(uint32_t i);
        /** Step \p i's state, made empty if it had none; whether it was made. */
        std::pair<Live*, bool> Insert(uint32_t i);
        /** Forget step \p i (which must be live). */
        void Erase(uint32_t i);
        /** Every live step's index, in no order. */
        std::vector<uint32_t> Keys() const;
        /** Forget every step and release the array. */
        void Clear();

      private:
        static constexpr uint32_t kEmpty = UINT32_MAX; //!< no step has this index

        struct Slot
        {
            uint32_t key;
            Live live;
        };

        /** Where \p i's probe starts. */
        std::size_t Home(uint32_t i) const;
        /** Store \p i (absent, with room) in the first free slot of its probe. */
        Live* Place(uint32_t i, const Live& live);
        void Grow();
        std::vector<Slot> m_slots; //!< a power of two of them, or none
        std::size_t m_size{0};
        unsigned m_shift{32}; //!< 32 - log2(slots): Home keeps the hash's top bits
    };

    LiveSteps m_live;
    static constexpr uint32_t kStarted = 1U << 31;
    static constexpr uint32_t kArrived = 1U << 30;
    static constexpr uint32_t kWaitingMask = kArrived - 1;
    bool m_launched{false};                 //!< the current schedule's launch latency has passed
    std::deque<uint32_t> m_ready;           //!< steps whose dependencies are met, to start
    uint64_t m_stepsLeft{0};
    Time m_started;
    Time m_stepsBegan; //!< when the current schedule's first steps could start (after its launch)
    Time m_finished;

    uint64_t m_stepsFinished{0}; //!< GetStepsFinished
    TracedCallback<const CollectiveStepRecord&> m_stepTrace;
    TracedCallback<uint32_t, Time, Time> m_doneTrace; //!< rank, start, finish
    TracedCallback<uint32_t> m_failedTrace;           //!< rank
};

} // namespace ns3

#endif
