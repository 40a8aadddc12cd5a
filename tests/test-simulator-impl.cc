// FabricSimulatorImpl runs what ns-3's DefaultSimulatorImpl runs, in the same order, with the
// same uids, expiry and destroy semantics: a random program of schedules, cancels, removals,
// stops and destroy events, logged under both over the same scheduler, gives the same log.
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
/** A program whose every step depends on what the simulator answered before. */
class Program
{
  public:
    explicit Program(std::ostringstream& log)
        : m_log(log)
    {
    }

    void Start()
    {
        for (int i = 0; i < 40; ++i)
        {
            Keep(Simulator::Schedule(NanoSeconds(m_rng() % 50), &Program::Step, this, i));
        }
        Simulator::ScheduleWithContext(7, NanoSeconds(5), &Program::Step, this, -1);
        Keep(Simulator::ScheduleDestroy(&Program::Destroyed, this, 0));
    }

    void Step(int label)
    {
        // FabricNow: the clock the fabric reads (straight from a running FabricSimulatorImpl).
        m_log << "run " << label << " at " << FabricNow().GetTimeStep() << " context "
              << Simulator::GetContext() << " count " << Simulator::GetEventCount() << "\n";
        if (++m_steps > 3000)
        {
            return;
        }
        // Now and then: a new queue mid-run (the events moved over), and a stop now.
        if (m_steps % 500 == 250)
        {
            Simulator::SetScheduler(ObjectFactory("ns3::FabricScheduler"));
            m_log << "  new scheduler\n";
        }
        if (m_steps % 500 == 100)
        {
            Simulator::Stop();
            m_log << "  stop now\n";
        }
        // Ask about a few earlier events, then act on one.
        for (int k = 0; k < 3 && !m_ids.empty(); ++k)
        {
            const EventId& id = m_ids[m_rng() % m_ids.size()];
            m_log << "  uid " << id.GetUid() << " expired " << Simulator::IsExpired(id) << " left "
                  << Simulator::GetDelayLeft(id).GetTimeStep() << "\n";
        }
        const int next = m_label++;
        switch (m_rng() % 9)
        {
        case 0:
            Keep(Simulator::ScheduleNow(&Program::Step, this, next));
            break;
        case 1:
            // As the fabric's frames are: straight into a running FabricSimulatorImpl.
            FabricScheduleWithContext(m_rng() % 4,
                                      NanoSeconds(m_rng() % 20),
                                      MakeEvent(&Program::Step, this, next));
            break;
        case 2:
            if (!m_ids.empty())
            {
                Simulator::Cancel(m_ids[m_rng() % m_ids.size()]);
            }
            break;
        case 3:
            if (!m_ids.empty())
            {
                Simulator::Remove(m_ids[m_rng() % m_ids.size()]);
            }
            break;
        case 4:
            Keep(Simulator::ScheduleDestroy(&Program::Destroyed, this, next));
            break;
        default:
            // Two, so the program grows until it stops: many same-time ties (1 ns grid).
            Keep(Simulator::Schedule(NanoSeconds(m_rng() % 20), &Program::Step, this, next));
            Keep(Simulator::Schedule(NanoSeconds(m_rng() % 20), &Program::Step, this, -next));
            break;
        }
    }

    void Destroyed(int label)
    {
        m_log << "destroy " << label << "\n";
        if (label % 3 == 0 && !m_ids.empty())
        {
            // A destroy event that removes another and schedules one more.
            Simulator::Remove(m_ids[m_rng() % m_ids.size()]);
            Simulator::ScheduleDestroy(&Program::Destroyed, this, label + 1);
        }
    }

  private:
    void Keep(const EventId& id)
    {
        m_log << "  scheduled uid " << id.GetUid() << " ts " << id.GetTs() << "\n";
        m_ids.push_back(id);
    }

    std::ostringstream& m_log;
    std::mt19937 m_rng{11};
    std::vector<EventId> m_ids;
    int m_label{1000};
    int m_steps{0};
};

/**
 * The log of the program under \p impl (with FabricScheduler), stopped twice by time and now
 * and then by itself, run until its events run out; then again, destroyed with events pending.
 */
std::string
RunUnder(const std::string& impl)
{
    StringValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricScheduler"));
    std::ostringstream log;
    {
        Program program(log);
        program.Start();
        EXPECT_EQ(Simulator::GetImplementation()->GetInstanceTypeId().GetName(), impl);
        Simulator::Stop(NanoSeconds(40));
        Simulator::Run();
        log << "stopped at " << Simulator::Now().GetTimeStep() << "\n";
        Simulator::Stop(NanoSeconds(400));
        Simulator::Run();
        log << "stopped at " << Simulator::Now().GetTimeStep() << "\n";
        // Run again after each stop (IsFinished says true after one) until nothing runs.
        uint64_t before = 0;
        do
        {
            before = Simulator::GetEventCount();
            Simulator::Run();
            log << "ran to " << Simulator::Now().GetTimeStep() << "\n";
        } while (Simulator::GetEventCount() != before);
        log << "ran out after " << Simulator::GetEventCount() << " events\n";
        Simulator::Destroy();
    }
    {
        Program program(log);
        program.Start();
        Simulator::Stop(NanoSeconds(30));
        Simulator::Run();
        log << "destroyed with events pending at " << Simulator::Now().GetTimeStep() << "\n";
        Simulator::Destroy();
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", scheduler);
    return log.str();
}
} // namespace

TEST(SimulatorImpl, RunsWhatDefaultSimulatorImplRunsInItsOrder)
{
    const std::string reference = RunUnder("ns3::DefaultSimulatorImpl");
    const std::string fabric = RunUnder("ns3::FabricSimulatorImpl");
    // The program did what it is meant to exercise.
    for (const char* seen : {"expired 1",
                             "expired 0",
                             "destroy ",
                             "context 7",
                             "context 3",
                             "stopped at 40000",
                             "stop now",
                             "new scheduler",
                             "ran to ",
                             "destroyed with events pending"})
    {
        EXPECT_NE(reference.find(seen), std::string::npos) << seen;
    }
    EXPECT_GT(reference.size(), 100000u);
    EXPECT_EQ(fabric, reference);
}

// The fabric's direct path to the simulator (FabricNow, FabricScheduleWithContext) is taken only
// inside a FabricSimulatorImpl's Run, and never under another core.
TEST(SimulatorImpl, TheDirectPathIsTakenOnlyWhileAFabricSimulatorImplRuns)
{
    StringValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    for (const std::string impl : {"ns3::FabricSimulatorImpl", "ns3::DefaultSimulatorImpl"})
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricScheduler"));
        std::vector<bool> running;
        Simulator::Schedule(NanoSeconds(3), [&running]() {
            running.push_back(FabricSimulatorImpl::GetRunning() != nullptr);
            EXPECT_EQ(FabricNow(), NanoSeconds(3));
        });
        EXPECT_EQ(FabricSimulatorImpl::GetRunning(), nullptr);
        Simulator::Run();
        EXPECT_EQ(FabricSimulatorImpl::GetRunning(), nullptr);
        EXPECT_EQ(FabricNow(), NanoSeconds(3));
        Simulator::Destroy();
        EXPECT_EQ(running, std::vector<bool>{impl == "ns3::FabricSimulatorImpl"}) << impl;
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", scheduler);
}
