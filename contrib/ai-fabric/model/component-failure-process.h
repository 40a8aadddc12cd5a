#ifndef AI_FABRIC_COMPONENT_FAILURE_PROCESS_H
#define AI_FABRIC_COMPONENT_FAILURE_PROCESS_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <string>
#include <vector>

namespace ns3
{

class FabricChannel;

/**
 * \ingroup ai-fabric
 * \brief One way a component fails, and when: an alternating up/failed renewal process.
 *
 * Times to failure and to repair are drawn from ns-3 random variables (exponential, Weibull,
 * or any other), in seconds, from the process's own stream.  What a failure does to the links
 * the component carries depends on the Mode:
 *  - HARD: every link is down until the repair;
 *  - FLAP: a burst of FlapCount downs of FlapDownTime separated by FlapUpTime, then the
 *    component is healthy again (the time to repair is not used);
 *  - BIT_ERRORS: the links corrupt frames at BitErrorRate until the repair;
 *  - LANE_LOSS: the links run at RateFraction of their rate until the repair.
 *
 * The process only changes link state and error rates: routing, the transport and jobs react
 * to what they observe.  With no links (a GPU, or a long-horizon availability run) the
 * process only fires its traces, which JobAvailabilityModel follows.
 */
class ComponentFailureProcess : public Object
{
  public:
    /** What a failure of this process does (plain enum: ns-3 3.37's EnumValue). */
    enum Mode
    {
        HARD,       //!< down until repaired
        FLAP,       //!< a burst of down/up transitions
        BIT_ERRORS, //!< frames corrupted at a bit-error rate
        LANE_LOSS,  //!< a reduced line rate
    };
    /** The mode's name as written in results files: hard, flap, bit_errors, lane_loss. */
    static const char* ModeName(Mode m);

    /** One failure, reported when it starts (its duration is drawn then). */
    struct Failure
    {
        Time start;
        Time duration;       //!< until the repair, or a flap burst's length (Time::Max: never)
        std::string component;
        std::string kind;    //!< link, transceiver, nic, switch, server, gpu
        Mode mode;
    };
    /** Signature of the Failed trace. */
    using FailedCallback = void (*)(const Failure& failure);

    static TypeId GetTypeId();
    ComponentFailureProcess();

    /** Name this process's component (e.g. "link 12", "leaf3") and its kind. */
    void SetComponent(const std::string& name, const std::string& kind);
    const std::string& GetComponentName() const { return m_component; }
    const std::string& GetKind() const { return m_kind; }
    Mode GetMode() const { return m_mode; }
    /** A link the component carries: a failure acts on it. */
    void AddChannel(Ptr<FabricChannel> channel);
    /**
     * A link the component carries that this process has no channel for (both its ends are
     * another MPI rank's): a hard failure or flap calls \p setUp with the link's new state
     * (FabricNetwork::SetLinkUp, so this rank routes around it); lane loss and bit errors
     * leave it to the rank that has it.
     */
    void AddRemoteLink(Callback<void, bool> setUp);
    /** Start the process: the first failure comes after a drawn time to failure. */
    void Start();
    /** Whether the component is failed now. */
    bool IsFailed() const { return m_failed; }
    /** Failures so far. */
    uint32_t GetFailureCount() const { return m_failures; }
    /** Assign streams to the time-to-failure and time-to-repair variables; returns 2. */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void Fail();
    void Repair();
    void FlapDown(uint32_t remaining);
    void FlapUp(uint32_t remaining);
    void ScheduleNextFailure();
    void ApplyToChannels(bool apply);
    /**
     * A draw of \p v in seconds, checked to be a usable duration; Time::Max when it ends past
     * the end of ns-3's clock (about 106 days at picosecond resolution), where no event runs.
     */
    Time Draw(Ptr<RandomVariableStream> v, const char* what) const;

    Mode m_mode{};
    Ptr<RandomVariableStream> m_timeToFailure;
    Ptr<RandomVariableStream> m_timeToRepair;
    uint32_t m_maxFailures{};
    uint32_t m_flapCount{};
    Time m_flapDown;
    Time m_flapUp;
    double m_ber{};
    double m_rateFraction{};

    std::string m_component;
    std::string m_kind;
    std::vector<Ptr<FabricChannel>> m_channels;
    std::vector<Callback<void, bool>> m_remoteLinks; //!< AddRemoteLink's
    bool m_failed{false};
    uint32_t m_failures{0};
    TracedCallback<const Failure&> m_failedTrace;
    TracedCallback<const Failure&> m_repairedTrace;
    TracedCallback<const Failure&> m_downTrace; //!< each down of a flap, with its length
};

} // namespace ns3

#endif
