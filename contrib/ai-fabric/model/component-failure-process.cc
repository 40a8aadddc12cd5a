#include "component-failure-process.h"

#include "fabric-channel.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ComponentFailureProcess");
NS_OBJECT_ENSURE_REGISTERED(ComponentFailureProcess);

const char*
ComponentFailureProcess::ModeName(Mode m)
{
    switch (m)
    {
    case HARD:
        return "hard";
    case FLAP:
        return "flap";
    case BIT_ERRORS:
        return "bit_errors";
    case LANE_LOSS:
        return "lane_loss";
    }
    return "unknown";
}

TypeId
ComponentFailureProcess::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ComponentFailureProcess")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<ComponentFailureProcess>()
            .AddAttribute("Mode",
                          "What a failure does to the component's links.",
                          EnumValue(HARD),
                          MakeEnumAccessor(&ComponentFailureProcess::m_mode),
                          MakeEnumChecker(HARD, "hard", FLAP, "flap", BIT_ERRORS, "bit_errors",
                                          LANE_LOSS, "lane_loss"))
            .AddAttribute("TimeToFailure",
                          "Time from a repair (or the start) to the next failure, in seconds.  "
                          "Default: exponential with a mean of 1.07e5 h, a datacenter switch's "
                          "(2% fail within 3 months: Singh et al., SIGCOMM CCR 51(2), 2021).",
                          StringValue("ns3::ExponentialRandomVariable[Mean=385200000]"),
                          MakePointerAccessor(&ComponentFailureProcess::m_timeToFailure),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("TimeToRepair",
                          "Time from a failure to its repair, in seconds (HARD, BIT_ERRORS, "
                          "LANE_LOSS).  Default: exponential with a mean of 4 h, a field "
                          "replacement within a working shift; set it from the operator's own "
                          "repair records.",
                          StringValue("ns3::ExponentialRandomVariable[Mean=14400]"),
                          MakePointerAccessor(&ComponentFailureProcess::m_timeToRepair),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("MaxFailures",
                          "Stop after this many failures; 0 for no limit.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ComponentFailureProcess::m_maxFailures),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("FlapCount",
                          "Downs in one flap burst.  Default 5: switches error-disable a port "
                          "that flaps more than 5 times in 10 s (Cisco link-flap errdisable).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&ComponentFailureProcess::m_flapCount),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("FlapDownTime",
                          "How long each down of a flap lasts.  Default 1 s: 5 downs and ups "
                          "of 1 s fill the 10 s flap-detection window.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&ComponentFailureProcess::m_flapDown),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FlapUpTime",
                          "How long the link is up between the downs of a flap.  Default 1 s.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&ComponentFailureProcess::m_flapUp),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("BitErrorRate",
                          "BIT_ERRORS: the failed links' bit-error rate, in [0, 0.5].  Default "
                          "1e-8, five orders above IEEE 802.3bs's 1e-13 after FEC: a 4 KiB "
                          "frame is then lost with probability 3.3e-4.",
                          DoubleValue(1e-8),
                          MakeDoubleAccessor(&ComponentFailureProcess::m_ber),
                          MakeDoubleChecker<double>(0.0, 0.5))
            .AddAttribute("RateFraction",
                          "LANE_LOSS: the fraction of the line rate left, in [0.01, 1] (an "
                          "8-lane port keeps at least 1/8; below 1% a link is better modelled "
                          "as down).  Default 0.75: a 400G link of four 100G lanes "
                          "(400GBASE-DR4) losing one.",
                          DoubleValue(0.75),
                          MakeDoubleAccessor(&ComponentFailureProcess::m_rateFraction),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddTraceSource("Failed",
                            "The component failed: start, duration, component, kind, mode "
                            "(fired before its links change).",
                            MakeTraceSourceAccessor(&ComponentFailureProcess::m_failedTrace),
                            "ns3::ComponentFailureProcess::FailedCallback")
            .AddTraceSource("FlapDown",
                            "A flap takes the links down: its start and how long it lasts "
                            "(fired before they go down).",
                            MakeTraceSourceAccessor(&ComponentFailureProcess::m_downTrace),
                            "ns3::ComponentFailureProcess::FailedCallback")
            .AddTraceSource("Repaired",
                            "The component is healthy again (the failure that ends).",
                            MakeTraceSourceAccessor(&ComponentFailureProcess::m_repairedTrace),
                            "ns3::ComponentFailureProcess::FailedCallback");
    return tid;
}

ComponentFailureProcess::ComponentFailureProcess() = default;

void
ComponentFailureProcess::DoDispose()
{
    m_channels.clear();
    m_remoteLinks.clear();
    m_timeToFailure = nullptr;
    m_timeToRepair = nullptr;
    Object::DoDispose();
}

void
ComponentFailureProcess::SetComponent(const std::string& name, const std::string& kind)
{
    m_component = name;
    m_kind = kind;
}

void
ComponentFailureProcess::AddChannel(Ptr<FabricChannel> channel)
{
    m_channels.push_back(channel);
}

int64_t
ComponentFailureProcess::AssignStreams(int64_t stream)
{
    m_timeToFailure->SetStream(stream);
    m_timeToRepair->SetStream(stream + 1);
    return 2;
}

Time
ComponentFailureProcess::Draw(Ptr<RandomVariableStream> v, const char* what) const
{
    const double s = v->GetValue();
    NS_ABORT_MSG_IF(std::isnan(s) || s < 0,
                    "ComponentFailureProcess " << m_component << ": " << what << " drew " << s
                                               << " s; it must be a time >= 0");
    // Every time the clock can reach is exact; beyond its end the event never happens in
    // this run.  (Converting a draw past the clock to a Time would overflow.)
    const Time left = Time::Max() - Simulator::Now();
    if (s >= left.GetSeconds())
    {
        return Time::Max();
    }
    const Time t = Seconds(s);
    return t < left ? t : Time::Max();
}

void
ComponentFailureProcess::Start()
{
    NS_ABORT_MSG_IF(m_mode == LANE_LOSS && !(m_rateFraction > 0),
                    "ComponentFailureProcess " << m_component
                                               << ": RateFraction must be in (0, 1]");
    ScheduleNextFailure();
}

// Events hold a reference: a started process lives as long as it has events to come.

void
ComponentFailureProcess::ScheduleNextFailure()
{
    if (m_maxFailures != 0 && m_failures >= m_maxFailures)
    {
        return;
    }
    const Time ttf = Draw(m_timeToFailure, "TimeToFailure");
    if (ttf != Time::Max())
    {
        Simulator::Schedule(ttf, &ComponentFailureProcess::Fail, Ptr<ComponentFailureProcess>(this));
    }
}

void
ComponentFailureProcess::Fail()
{
    ++m_failures;
    m_failed = true;
    Failure f;
    f.start = Simulator::Now();
    f.component = m_component;
    f.kind = m_kind;
    f.mode = m_mode;
    if (m_mode == FLAP)
    {
        f.duration = m_flapDown * m_flapCount + m_flapUp * (m_flapCount - 1);
        NS_LOG_INFO(m_component << " flaps " << m_flapCount << " times");
        m_failedTrace(f);
        FlapDown(m_flapCount);
        return;
    }
    f.duration = Draw(m_timeToRepair, "TimeToRepair");
    NS_LOG_INFO(m_component << " fails (" << ModeName(m_mode) << ") for "
                            << f.duration.As(Time::S));
    m_failedTrace(f); // before the links change: followers see them as they were
    ApplyToChannels(true);
    if (f.duration != Time::Max())
    {
        Simulator::Schedule(f.duration, &ComponentFailureProcess::Repair, Ptr<ComponentFailureProcess>(this));
    }
}

void
ComponentFailureProcess::AddRemoteLink(Callback<void, bool> setUp)
{
    m_remoteLinks.push_back(setUp);
}

void
ComponentFailureProcess::ApplyToChannels(bool apply)
{
    if (m_mode == HARD || m_mode == FLAP)
    {
        for (const auto& setUp : m_remoteLinks)
        {
            setUp(!apply);
        }
    }
    for (const auto& ch : m_channels)
    {
        switch (m_mode)
        {
        case HARD:
        case FLAP:
            ch->SetUp(!apply);
            break;
        case BIT_ERRORS:
            ch->AddBitErrors(m_ber, apply);
            break;
        case LANE_LOSS:
            ch->DegradeRate(m_rateFraction, apply);
            break;
        }
    }
}

void
ComponentFailureProcess::FlapDown(uint32_t remaining)
{
    m_downTrace(Failure{Simulator::Now(), m_flapDown, m_component, m_kind, m_mode});
    ApplyToChannels(true);
    Simulator::Schedule(m_flapDown, &ComponentFailureProcess::FlapUp, Ptr<ComponentFailureProcess>(this), remaining - 1);
}

void
ComponentFailureProcess::FlapUp(uint32_t remaining)
{
    ApplyToChannels(false);
    if (remaining > 0)
    {
        Simulator::Schedule(m_flapUp, &ComponentFailureProcess::FlapDown, Ptr<ComponentFailureProcess>(this), remaining);
        return;
    }
    m_failed = false;
    Failure f{Simulator::Now(), Time(0), m_component, m_kind, m_mode};
    m_repairedTrace(f);
    ScheduleNextFailure();
}

void
ComponentFailureProcess::Repair()
{
    ApplyToChannels(false);
    m_failed = false;
    NS_LOG_INFO(m_component << " repaired");
    Failure f{Simulator::Now(), Time(0), m_component, m_kind, m_mode};
    m_repairedTrace(f);
    ScheduleNextFailure();
}

} // namespace ns3
