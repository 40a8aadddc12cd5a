#include "job-availability-model.h"

#include "checkpoint-interval.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobAvailabilityModel");
NS_OBJECT_ENSURE_REGISTERED(JobAvailabilityModel);

JobAvailabilityModel::Effect
JobAvailabilityModel::EffectOf(ComponentFailureProcess::Mode mode, Reach reach)
{
    const bool dead = mode == ComponentFailureProcess::HARD || mode == ComponentFailureProcess::FLAP;
    switch (reach)
    {
    case JOB_HOSTS:
        return dead ? RESTART : DEGRADED;
    case OTHER_HOSTS:
        return NO_EFFECT;
    case SHARED_FABRIC:
        break;
    }
    return dead ? REROUTED : DEGRADED;
}

const char*
JobAvailabilityModel::EffectName(Effect e)
{
    switch (e)
    {
    case RESTART:
        return "job restart";
    case REROUTED:
        return "rerouted";
    case DEGRADED:
        return "degraded";
    case NO_EFFECT:
        break;
    }
    return "";
}

JobAvailabilityModel::FabricState
JobAvailabilityModel::DegradedState(Effect e, ComponentFailureProcess::Mode mode)
{
    if (e == REROUTED)
    {
        return LINK_DOWN;
    }
    return mode == ComponentFailureProcess::LANE_LOSS ? REDUCED_RATE : BIT_ERRORS;
}

const char*
JobAvailabilityModel::StateName(FabricState s)
{
    switch (s)
    {
    case HEALTHY:
        return "healthy";
    case LINK_DOWN:
        return "link_down";
    case REDUCED_RATE:
        return "reduced_rate";
    case BIT_ERRORS:
        return "bit_errors";
    case kStates:
        break;
    }
    return "unknown";
}

double
JobAvailabilityModel::Result::Goodput() const
{
    return wall.IsStrictlyPositive() ? useful.GetSeconds() / wall.GetSeconds() : 0.0;
}

Time
JobAvailabilityModel::Result::MeanTimeBetweenInterruptions() const
{
    return interruptions ? wall / interruptions : Time(0);
}

TypeId
JobAvailabilityModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::JobAvailabilityModel")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<JobAvailabilityModel>()
            .AddAttribute("CheckpointPolicy",
                          "How the interval between checkpoints is chosen: fixed "
                          "(CheckpointInterval), young (sqrt(2 delta M), Young 1974) or daly "
                          "(Daly 2006's higher-order optimum), M the job's expected MTBI.",
                          EnumValue(DALY),
                          MakeEnumAccessor(&JobAvailabilityModel::m_policy),
                          MakeEnumChecker(FIXED, "fixed", YOUNG, "young", DALY, "daly"))
            .AddAttribute("CheckpointInterval",
                          "Compute time between checkpoints with the fixed policy.  Default "
                          "1 h, inside the 25-100 min practitioners report for runs of "
                          "thousands of GPUs.",
                          TimeValue(Hours(1)),
                          MakeTimeAccessor(&JobAvailabilityModel::m_fixedInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("CheckpointTime",
                          "Wall time to write a checkpoint (delta), the job stalled.  Default "
                          "60 s: a 405B-parameter model's 5.7 TB (14 bytes per parameter: bf16 "
                          "weights, fp32 master weights and two Adam moments) at an assumed "
                          "100 GB/s of aggregate storage writes.",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&JobAvailabilityModel::m_checkpointCost),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RestartTime",
                          "Wall time from an interruption until the job computes again: "
                          "detection, rescheduling onto spares, communicator setup and "
                          "checkpoint load.  Default 10 min, an assumption: measure your own.",
                          TimeValue(Minutes(10)),
                          MakeTimeAccessor(&JobAvailabilityModel::m_restartCost),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Event",
                            "A followed component failed: the failure and its effect on the job "
                            "(job restart, rerouted, degraded).",
                            MakeTraceSourceAccessor(&JobAvailabilityModel::m_eventTrace),
                            "ns3::JobAvailabilityModel::EventCallback");
    return tid;
}

JobAvailabilityModel::JobAvailabilityModel() = default;

void
JobAvailabilityModel::DoDispose()
{
    m_components.clear();
    Object::DoDispose();
}

void
JobAvailabilityModel::SetIterationTime(FabricState state, Time t)
{
    NS_ABORT_MSG_IF(state >= kStates, "JobAvailabilityModel: no fabric state " << state);
    NS_ABORT_MSG_IF(!t.IsStrictlyPositive(),
                    "JobAvailabilityModel: the " << StateName(state)
                                                 << " iteration time must be > 0, got " << t);
    m_iterationTime[state] = t;
}

void
JobAvailabilityModel::AddInterruptingComponent(Ptr<ComponentFailureProcess> process,
                                               double mtbfSeconds)
{
    NS_ABORT_MSG_IF(!(mtbfSeconds > 0),
                    "JobAvailabilityModel: " << process->GetComponentName()
                                             << ": the mean time to failure must be > 0");
    m_inverseMtbiSum += 1.0 / mtbfSeconds;
    m_components.push_back(process);
    process->TraceConnectWithoutContext("Failed",
                                        MakeCallback(&JobAvailabilityModel::Interrupted, this));
}

void
JobAvailabilityModel::AddDegradingComponent(Ptr<ComponentFailureProcess> process,
                                            FabricState state)
{
    NS_ABORT_MSG_IF(state == HEALTHY || state >= kStates,
                    "JobAvailabilityModel: a degrading component needs a degraded state");
    m_components.push_back(process);
    process->TraceConnectWithoutContext(
        "Failed",
        MakeCallback(&JobAvailabilityModel::Degraded, this).Bind(state));
    process->TraceConnectWithoutContext(
        "Repaired",
        MakeCallback(&JobAvailabilityModel::Restored, this).Bind(state));
    m_degradable[state] = true;
}

Time
JobAvailabilityModel::GetExpectedMtbi() const
{
    return m_inverseMtbiSum > 0 ? Seconds(1.0 / m_inverseMtbiSum) : Time::Max();
}

Time
JobAvailabilityModel::GetCheckpointInterval() const
{
    if (m_policy == FIXED)
    {
        return m_fixedInterval;
    }
    NS_ABORT_MSG_IF(m_inverseMtbiSum <= 0,
                    "JobAvailabilityModel: the " << (m_policy == YOUNG ? "young" : "daly")
                                                 << " checkpoint policy needs components that "
                                                    "interrupt the job (an MTBI)");
    return m_policy == YOUNG ? checkpoint::YoungInterval(m_checkpointCost, GetExpectedMtbi())
                             : checkpoint::DalyInterval(m_checkpointCost, GetExpectedMtbi());
}

void
JobAvailabilityModel::Start()
{
    NS_ABORT_MSG_IF(!m_iterationTime[HEALTHY].IsStrictlyPositive(),
                    "JobAvailabilityModel: the healthy iteration time is not set");
    for (int s = LINK_DOWN; s < kStates; ++s)
    {
        NS_ABORT_MSG_IF(m_degradable[s] && !m_iterationTime[s].IsStrictlyPositive(),
                        "JobAvailabilityModel: components degrade the fabric to "
                            << StateName(FabricState(s)) << " but its iteration time is not set");
    }
    m_interval = GetCheckpointInterval();
    m_result = Result();
    m_result.interval = m_interval;
    m_start = Simulator::Now();
    m_started = true;
    StartComputing();
}

double
JobAvailabilityModel::Speed() const
{
    Time worst = m_iterationTime[HEALTHY];
    for (int s = LINK_DOWN; s < kStates; ++s)
    {
        if (m_active[s] > 0)
        {
            worst = std::max(worst, m_iterationTime[s]);
        }
    }
    return m_iterationTime[HEALTHY].GetSeconds() / worst.GetSeconds();
}

void
JobAvailabilityModel::Accrue()
{
    const Time now = Simulator::Now();
    if (m_phase == COMPUTING)
    {
        const double dt = (now - m_lastUpdate).GetSeconds();
        const double speed = Speed();
        m_unsaved += dt * speed;
        m_degradedLoss += dt * (1 - speed);
    }
    m_lastUpdate = now;
}

void
JobAvailabilityModel::EndPhase()
{
    Accrue();
    m_phaseEvent.Cancel();
    const double spent = (Simulator::Now() - m_phaseStart).GetSeconds();
    if (m_phase == CHECKPOINTING)
    {
        m_checkpointSeconds += spent;
    }
    else if (m_phase == RESTARTING)
    {
        m_restartSeconds += spent;
    }
}

void
JobAvailabilityModel::StartComputing()
{
    m_phase = COMPUTING;
    m_phaseStart = m_lastUpdate = Simulator::Now();
    m_phaseEvent =
        Simulator::Schedule(m_interval, &JobAvailabilityModel::StartCheckpoint, this);
}

void
JobAvailabilityModel::StartCheckpoint()
{
    EndPhase();
    m_phase = CHECKPOINTING;
    m_phaseStart = Simulator::Now();
    m_phaseEvent =
        Simulator::Schedule(m_checkpointCost, &JobAvailabilityModel::CheckpointDone, this);
}

void
JobAvailabilityModel::CheckpointDone()
{
    EndPhase();
    m_useful += m_unsaved;
    m_unsaved = 0;
    ++m_result.checkpoints;
    StartComputing();
}

void
JobAvailabilityModel::Interrupted(const ComponentFailureProcess::Failure& f)
{
    if (!m_started)
    {
        return;
    }
    m_eventTrace(f, "job restart");
    NS_LOG_INFO(f.component << " interrupts the job, losing " << m_unsaved << " s of work");
    ++m_result.interruptions;
    EndPhase();
    m_lost += m_unsaved;
    m_unsaved = 0;
    m_phase = RESTARTING;
    m_phaseStart = m_lastUpdate = Simulator::Now();
    m_phaseEvent = Simulator::Schedule(m_restartCost, &JobAvailabilityModel::RestartDone, this);
}

void
JobAvailabilityModel::RestartDone()
{
    EndPhase();
    StartComputing();
}

void
JobAvailabilityModel::Degraded(FabricState state, const ComponentFailureProcess::Failure& f)
{
    if (m_started)
    {
        m_eventTrace(f, state == LINK_DOWN ? "rerouted" : "degraded");
    }
    Accrue();
    ++m_active[state];
}

void
JobAvailabilityModel::Restored(FabricState state, const ComponentFailureProcess::Failure&)
{
    Accrue();
    NS_ASSERT(m_active[state] > 0);
    --m_active[state];
}

JobAvailabilityModel::Result
JobAvailabilityModel::Finish()
{
    NS_ABORT_MSG_IF(!m_started, "JobAvailabilityModel: Finish() before Start()");
    EndPhase();
    m_phaseStart = Simulator::Now(); // a second Finish() adds nothing twice
    Result& r = m_result;
    r.wall = Simulator::Now() - m_start;
    r.useful = Seconds(m_useful);
    r.unsaved = Seconds(m_unsaved);
    r.lostWork = Seconds(m_lost);
    r.checkpointTime = Seconds(m_checkpointSeconds);
    r.restartTime = Seconds(m_restartSeconds);
    r.degradedLoss = Seconds(m_degradedLoss);
    return r;
}

} // namespace ns3
