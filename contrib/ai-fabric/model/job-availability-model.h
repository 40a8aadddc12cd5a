#ifndef AI_FABRIC_JOB_AVAILABILITY_MODEL_H
#define AI_FABRIC_JOB_AVAILABILITY_MODEL_H

#include "component-failure-process.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A training job over days or weeks: failures, checkpoints, restarts and goodput.
 *
 * The long-horizon mode.  Packets cannot be simulated for weeks, so the job's iteration time in
 * each fabric state (healthy, a link down after routing converged, a link at reduced rate, a
 * link with bit errors) is measured at packet level beforehand and given here; the same
 * ComponentFailureProcess objects that change links at packet level then run for the whole
 * horizon, and this model follows their Failed and Repaired traces event by event:
 *  - a failure of a component the job cannot run without (an interrupting component) stops the
 *    job: the work since the last completed checkpoint is lost and the job pays RestartTime
 *    (a new interruption during a restart starts it again);
 *  - any other failure puts the fabric in a degraded state while it lasts: the job computes at
 *    healthy iteration time / that state's iteration time (the worst active state counts);
 *  - after every CheckpointInterval of computing, the job writes a checkpoint for
 *    CheckpointTime; an interruption during it loses the checkpoint too.
 * Work is continuous (not whole iterations), as in Young's and Daly's models, so with only
 * interruptions this model's expected goodput is checkpoint::ExpectedGoodput.
 */
class JobAvailabilityModel : public Object
{
  public:
    /** The fabric states whose iteration times are measured at packet level. */
    enum FabricState
    {
        HEALTHY,      //!< nothing failed
        LINK_DOWN,    //!< a link is dead and routing converged around it
        REDUCED_RATE, //!< a link runs with lanes lost
        BIT_ERRORS,   //!< a link corrupts frames
        kStates
    };
    /** How the checkpoint interval is chosen (plain enum: ns-3 3.37's EnumValue). */
    enum Policy
    {
        FIXED, //!< CheckpointInterval
        YOUNG, //!< checkpoint::YoungInterval(CheckpointTime, the job's MTBI)
        DALY,  //!< checkpoint::DalyInterval(CheckpointTime, the job's MTBI)
    };
    /** The state's name as written in results files: healthy, link_down, ... */
    static const char* StateName(FabricState s);
    /** Where a failed component sits relative to a job. */
    enum Reach
    {
        JOB_HOSTS,     //!< it serves a host of the job: a GPU, its server, NIC or host link
        OTHER_HOSTS,   //!< it serves only hosts the job does not use
        SHARED_FABRIC, //!< a switch, switch-to-switch link or transceiver traffic may route over
    };
    /** What a failure does to a job. */
    enum Effect
    {
        NO_EFFECT, //!< the job does not depend on it
        RESTART,   //!< the job stops and restarts from its last checkpoint
        REROUTED,  //!< routing goes around it (LINK_DOWN while it lasts)
        DEGRADED,  //!< the job runs on, slower (REDUCED_RATE or BIT_ERRORS while it lasts)
    };
    /**
     * The effect of a failure in \p mode of a component at \p reach: a component a job's host
     * needs interrupts it if the failure kills it (hard, flap) and slows it otherwise (lane
     * loss, bit errors); one in the shared fabric is routed around when dead, else slows the
     * job; one serving only other hosts does nothing to it.
     */
    static Effect EffectOf(ComponentFailureProcess::Mode mode, Reach reach);
    /** As results files write it: "job restart", "rerouted", "degraded", or "". */
    static const char* EffectName(Effect e);
    /** The state a REROUTED or DEGRADED failure in \p mode puts the fabric in. */
    static FabricState DegradedState(Effect e, ComponentFailureProcess::Mode mode);
    /** Signature of the Event trace: a failure, and its effect on the job. */
    using EventCallback = void (*)(const ComponentFailureProcess::Failure& failure,
                                   const char* effect);

    /** What the run came to. */
    struct Result
    {
        Time wall;              //!< the horizon
        Time useful;            //!< checkpointed work, in healthy-fabric compute time
        Time unsaved;           //!< work done since the last checkpoint, at the end
        Time lostWork;          //!< computed, then lost to interruptions
        Time checkpointTime;    //!< wall time spent writing checkpoints
        Time restartTime;       //!< wall time spent restarting
        Time degradedLoss;      //!< compute wall time minus the work it did (slow states)
        // wall = useful + unsaved + lostWork + checkpointTime + restartTime + degradedLoss
        uint32_t interruptions{0};
        uint32_t checkpoints{0};
        Time interval;          //!< the checkpoint interval used
        /** useful / wall. */
        double Goodput() const;
        /** wall / interruptions (zero without interruptions). */
        Time MeanTimeBetweenInterruptions() const;
    };

    static TypeId GetTypeId();
    JobAvailabilityModel();

    /** The job's iteration time in \p state (measured at packet level). */
    void SetIterationTime(FabricState state, Time t);
    Time GetIterationTime(FabricState state) const { return m_iterationTime[state]; }
    /**
     * Follow \p process, a component the job cannot run without: each failure interrupts the
     * job ("job restart").  Its MTBF, \p mtbfSeconds (a double: component MTBFs of 1e5 h
     * and more are beyond ns-3's picosecond clock), enters the job's expected MTBI.
     */
    void AddInterruptingComponent(Ptr<ComponentFailureProcess> process, double mtbfSeconds);
    /**
     * Follow \p process, a component the job runs around: while it is failed the fabric is in
     * \p state ("rerouted" for LINK_DOWN, else "degraded").
     */
    void AddDegradingComponent(Ptr<ComponentFailureProcess> process, FabricState state);
    /** The job's expected mean time between interruptions: 1 / sum(1 / MTBF) over them. */
    Time GetExpectedMtbi() const;
    /** The checkpoint interval the policy gives. */
    Time GetCheckpointInterval() const;
    /** Start the job now; it runs until Finish(). */
    void Start();
    /** Close the books at now. */
    Result Finish();

  protected:
    void DoDispose() override;

  private:
    enum Phase
    {
        COMPUTING,
        CHECKPOINTING,
        RESTARTING,
    };

    void Interrupted(const ComponentFailureProcess::Failure& f);
    void Degraded(FabricState state, const ComponentFailureProcess::Failure& f);
    void Restored(FabricState state, const ComponentFailureProcess::Failure& f);
    /** Add the work done since the last update at the current speed. */
    void Accrue();
    void StartComputing();
    /** Stop what the job is doing (computing, checkpointing, restarting) at now. */
    void EndPhase();
    void StartCheckpoint();
    void CheckpointDone();
    void RestartDone();
    /** Healthy iteration time / iteration time of the worst active state. */
    double Speed() const;

    Policy m_policy{};
    Time m_fixedInterval;
    Time m_checkpointCost;
    Time m_restartCost;

    std::array<Time, kStates> m_iterationTime;
    std::array<uint32_t, kStates> m_active{}; //!< failed components per degraded state
    double m_inverseMtbiSum{0}; //!< sum of 1 / MTBF over interrupting components, 1/s
    std::vector<Ptr<ComponentFailureProcess>> m_components;

    std::array<bool, kStates> m_degradable{}; //!< a component degrades to this state

    Time m_interval;
    Phase m_phase{COMPUTING};
    Time m_start;
    Time m_lastUpdate;
    Time m_phaseStart;
    // Work and time in seconds (doubles: work accrues at fractional speeds).
    double m_unsaved{0}; //!< work since the last checkpoint
    double m_useful{0};
    double m_lost{0};
    double m_checkpointSeconds{0};
    double m_restartSeconds{0};
    double m_degradedLoss{0};
    EventId m_phaseEvent;
    Result m_result;
    bool m_started{false};

    TracedCallback<const ComponentFailureProcess::Failure&, const char*> m_eventTrace;
};

} // namespace ns3

#endif
