#include "scenario-availability.h"

#include "failure-log.h"
#include "scenario-distributed.h"
#include "scenario-main.h"
#include "scenario-run.h"

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <set>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{
using State = JobAvailabilityModel::FabricState;
constexpr int kStates = JobAvailabilityModel::kStates;

/** Bad input found while running: the message for the user. */
struct AvailabilityError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

const char*
StateName(int s)
{
    return JobAvailabilityModel::StateName(State(s));
}

/**
 * The link a measured state fails by default: job host 0's NIC link when failures reach that
 * state on links into hosts (\p hostFacing), else the first uplink of its leaf.
 */
uint32_t
DefaultLink(const FabricTopology& t, uint32_t host, bool hostFacing)
{
    const auto& node = t.GetNode(t.HostNode(host));
    uint32_t nic = UINT32_MAX;
    for (uint32_t l : node.links)
    {
        if (t.GetLink(l).medium != FabricTopology::Medium::NvLink)
        {
            nic = l;
            break;
        }
    }
    if (nic == UINT32_MAX)
    {
        throw AvailabilityError("availability: host " + std::to_string(host) + " has no NIC link");
    }
    if (hostFacing)
    {
        return nic;
    }
    const auto& l = t.GetLink(nic);
    const uint32_t leaf = l.a == t.HostNode(host) ? l.b : l.a;
    for (uint32_t up : t.GetNode(leaf).links)
    {
        const auto& u = t.GetLink(up);
        const uint32_t peer = u.a == leaf ? u.b : u.a;
        if (t.GetNode(peer).role != FabricTopology::Role::Host &&
            t.GetNode(peer).role != FabricTopology::Role::NvSwitch)
        {
            return up;
        }
    }
    throw AvailabilityError("availability.links: the job's first leaf has no link to another "
                            "switch; give the link to fail");
}

/** What one run of the job in a fabric state gave (at the scenario's fidelity). */
struct Measurement
{
    Time iteration;
    std::set<uint32_t> hosts;
    uint32_t link{UINT32_MAX};
};

/** End a simulation; in a distributed run, ready MPI for the next one. */
void
EndRun(const Distribution& d)
{
    Simulator::Destroy();
    if (d.IsDistributed())
    {
        RestartMpi();
    }
}

/**
 * The job's mean iteration time with the fabric in \p state (its fault on \p link, from the
 * start); the first iteration is left out when there are more, since it also pays routing's
 * convergence after the fault.  Split over MPI ranks as \p d and \p partition say, every
 * rank measures the same (every process keeps every job's iterations).
 */
Measurement
Measure(Scenario& s, State state, uint32_t link, bool hostFacing, const Distribution& d,
        const std::vector<uint32_t>& partition)
{
    ScenarioRun run(s);
    if (d.IsDistributed())
    {
        run.SetDistribution(d, partition);
    }
    run.Install();
    Measurement m;
    Ptr<TrainingJob> job = run.Jobs().front();
    for (uint32_t r = 0; r < job->GetNRanks(); ++r)
    {
        m.hosts.insert(job->GetHost(r));
    }
    if (state != JobAvailabilityModel::HEALTHY)
    {
        m.link = link == UINT32_MAX ? DefaultLink(s.topology, job->GetHost(0), hostFacing) : link;
        // Split over MPI ranks, a rank holds the link's channel (or its half of a cut link) only
        // if one of its ends is local; a dead link elsewhere still reroutes every rank.
        Ptr<FabricChannel> ch = run.GetNetwork()->GetChannel(m.link);
        Ptr<ComponentFailureProcess> fault =
            s.availability.failureMode.Create<ComponentFailureProcess>();
        DoubleValue value;
        if (state == JobAvailabilityModel::LINK_DOWN)
        {
            run.GetNetwork()->SetLinkUp(m.link, false);
        }
        else if (state == JobAvailabilityModel::REDUCED_RATE && ch)
        {
            fault->GetAttribute("RateFraction", value);
            ch->DegradeRate(value.Get(), true);
        }
        else if (state == JobAvailabilityModel::BIT_ERRORS && ch)
        {
            fault->GetAttribute("BitErrorRate", value);
            ch->SetBitErrorRate(value.Get());
        }
    }
    run.Run(false);
    const auto& its = job->GetIterations();
    if (!job->IsFinished() || its.empty())
    {
        const std::string why = job->IsInterrupted() ? job->GetInterruptionCause()
                                                     : "it did not finish its iterations";
        Simulator::Destroy();
        throw AvailabilityError("availability: measuring the " + std::string(StateName(state)) +
                                " iteration time on link " + std::to_string(m.link) +
                                ", the job stopped: " + why +
                                " (give availability.links." + StateName(state) + ")");
    }
    const std::size_t first = its.size() > 1 ? 1 : 0;
    Time sum;
    for (std::size_t i = first; i < its.size(); ++i)
    {
        sum += its[i].Duration();
    }
    m.iteration = sum / int64_t(its.size() - first);
    EndRun(d);
    return m;
}

/** One long-horizon run's books, summed over runs. */
struct Books
{
    double useful{0}, unsaved{0}, lost{0}, checkpoint{0}, restart{0}, degraded{0}, wall{0};
    uint64_t interruptions{0}, checkpoints{0};
    Time interval;
    void Add(const JobAvailabilityModel::Result& r)
    {
        useful += r.useful.GetSeconds();
        unsaved += r.unsaved.GetSeconds();
        lost += r.lostWork.GetSeconds();
        checkpoint += r.checkpointTime.GetSeconds();
        restart += r.restartTime.GetSeconds();
        degraded += r.degradedLoss.GetSeconds();
        wall += r.wall.GetSeconds();
        interruptions += r.interruptions;
        checkpoints += r.checkpoints;
        interval = r.interval;
    }
    double Goodput() const { return wall > 0 ? useful / wall : 0; }
};

/** The horizon once with the failure processes from \p stream; \p log follows it if given. */
JobAvailabilityModel::Result
RunHorizon(Scenario& s, const ObjectFactory& model, const std::array<Time, kStates>& times,
           const std::set<uint32_t>& hosts, int64_t stream, FailureLog* log, Time* mtbi)
{
    FailureHelper& helper = s.failures.helper;
    const auto& installed = helper.Install(s.topology, nullptr, stream);
    Ptr<JobAvailabilityModel> job = model.Create<JobAvailabilityModel>();
    for (int st = 0; st < kStates; ++st)
    {
        if (times[st].IsStrictlyPositive())
        {
            job->SetIterationTime(State(st), times[st]);
        }
    }
    helper.Follow(job, hosts);
    if (log)
    {
        log->Follow(installed, hosts, true);
    }
    *mtbi = job->GetExpectedMtbi();
    job->Start();
    JobAvailabilityModel::Result r;
    Simulator::Schedule(s.availability.horizon, [&]() {
        r = job->Finish();
        Simulator::Stop();
    });
    Simulator::Run();
    Simulator::Destroy();
    return r;
}

json
BooksJson(const Books& b, uint32_t runs)
{
    const double n = runs;
    return {{"checkpoint_interval_s", b.interval.GetSeconds()},
            {"goodput", b.Goodput()},
            {"useful_s", b.useful / n},
            {"lost_work_s", b.lost / n},
            {"checkpoint_overhead_s", b.checkpoint / n},
            {"restart_s", b.restart / n},
            {"degraded_loss_s", b.degraded / n},
            {"unsaved_at_end_s", b.unsaved / n},
            {"restarts", double(b.interruptions) / n},
            {"checkpoints", double(b.checkpoints) / n},
            {"mtbi_s", b.interruptions ? b.wall / double(b.interruptions) : 0.0}};
}
} // namespace

int
RunAvailability(Scenario& s, ResultsFolder* folderOfRoot, const std::string& program,
                const Distribution& d, const std::vector<uint32_t>& partition)
{
    const auto wallStart = std::chrono::steady_clock::now();
    AvailabilitySpec& v = s.availability;
    std::array<Time, kStates> times = v.iterationTimes;
    std::array<std::string, kStates> how;
    std::array<int64_t, kStates> measuredLink;
    measuredLink.fill(-1);
    std::set<uint32_t> hosts;
    try
    {
        // The job's GPUs and healthy iteration time: from a run if there is a job.
        if (s.hasTraining)
        {
            const Measurement healthy =
                Measure(s, JobAvailabilityModel::HEALTHY, 0, false, d, partition);
            hosts = healthy.hosts;
            if (times[0].IsZero())
            {
                times[0] = healthy.iteration;
                how[0] = "measured";
            }
        }
        else
        {
            for (uint32_t h = 0; h < s.topology.GetNHosts(); ++h)
            {
                hosts.insert(h);
            }
        }
        how[0] = how[0].empty() ? "given" : how[0];
        // Which degraded states the failure processes can lead to.
        std::array<bool, kStates> needed{};
        std::array<bool, kStates> hostFacing{}; //!< some failure reaches it on a host's link
        bool interrupts = false;
        for (const auto& i : s.failures.helper.Install(s.topology, nullptr, 1))
        {
            const JobAvailabilityModel::Effect e = FailureHelper::EffectOf(i, hosts);
            interrupts = interrupts || e == JobAvailabilityModel::RESTART;
            if (e == JobAvailabilityModel::REROUTED || e == JobAvailabilityModel::DEGRADED)
            {
                const State st = JobAvailabilityModel::DegradedState(e, i.process->GetMode());
                needed[st] = true;
                hostFacing[st] = hostFacing[st] ||
                                 (e == JobAvailabilityModel::DEGRADED && !i.component->hosts.empty());
            }
        }
        EndRun(d);
        StringValue policy;
        v.model.Create<JobAvailabilityModel>()->GetAttribute("CheckpointPolicy", policy);
        if (!interrupts && policy.Get() != "fixed")
        {
            throw AvailabilityError("availability.checkpoint_policy = \"" + policy.Get() +
                                    "\": no failure interrupts the job, so it has no MTBI; use "
                                    "\"fixed\" with a checkpoint_interval");
        }
        for (int st = 1; st < kStates; ++st)
        {
            if (!needed[st] || times[st].IsStrictlyPositive())
            {
                how[st] = times[st].IsStrictlyPositive() ? "given" : "not reached";
                continue;
            }
            if (!s.hasTraining)
            {
                throw AvailabilityError(std::string("availability.iteration_times.") +
                                        StateName(st) +
                                        " is required: failures reach that state and there is "
                                        "no training job to measure it on");
            }
            spdlog::info("measuring the {} iteration time at {} level", StateName(st),
                         s.fidelity);
            const Measurement m = Measure(s, State(st), v.linkGiven[st] ? v.links[st] : UINT32_MAX,
                                          hostFacing[st], d, partition);
            times[st] = m.iteration;
            measuredLink[st] = m.link;
            how[st] = "measured";
        }
    }
    catch (const AvailabilityError& e)
    {
        PrintError(program, e.what());
        return kBadInput;
    }
    catch (const std::invalid_argument& e)
    {
        PrintError(program, e.what());
        return kBadInput;
    }

    if (!folderOfRoot)
    {
        return 0; // another rank: it helped measure the fabric states
    }
    ResultsFolder& folder = *folderOfRoot;
    if (d.IsDistributed())
    {
        // The horizon has no fabric: rank 0 runs it alone, in one process's simulator.
        UseOneProcessSimulator();
    }
    // The horizon: the policy's interval first, then each swept fixed interval.
    std::vector<ObjectFactory> models{v.model};
    for (Time t : v.sweep)
    {
        ObjectFactory f = v.model;
        f.Set("CheckpointPolicy", StringValue("fixed"));
        f.Set("CheckpointInterval", TimeValue(t));
        models.push_back(f);
    }
    FailureLog log;
    std::vector<Books> books(models.size());
    Time expectedMtbi;
    const int64_t streamsPerRun = 1 << 24;
    for (std::size_t m = 0; m < models.size(); ++m)
    {
        for (uint32_t r = 0; r < v.runs; ++r)
        {
            // The same failure histories (streams) for every interval: paired comparisons.
            books[m].Add(RunHorizon(s, models[m], times, hosts, (1 << 24) + r * streamsPerRun,
                                    m == 0 && r == 0 ? &log : nullptr, &expectedMtbi));
        }
        spdlog::info("checkpoint interval {:.0f} s: goodput {:.4f}", books[m].interval.GetSeconds(),
                     books[m].Goodput());
    }
    Ptr<JobAvailabilityModel> probe = v.model.Create<JobAvailabilityModel>();
    TimeValue delta;
    TimeValue restart;
    probe->GetAttribute("CheckpointTime", delta);
    probe->GetAttribute("RestartTime", restart);

    // Results, whole or not at all.
    folder.Write("failures.csv", [&log](std::ostream& f) { log.WriteCsv(f); });
    folder.Write("availability.csv", [&](std::ostream& f) {
        f << "checkpoint_interval_s,policy,runs,goodput,closed_form_goodput,useful_s,lost_work_s,"
             "checkpoint_s,restart_s,degraded_loss_s,restarts,checkpoints,mtbi_s\n"
          << std::setprecision(10);
        for (std::size_t m = 0; m < models.size(); ++m)
        {
            const Books& b = books[m];
            const double n = v.runs;
            StringValue policy;
            models[m].Create<JobAvailabilityModel>()->GetAttribute("CheckpointPolicy", policy);
            f << b.interval.GetSeconds() << ',' << policy.Get() << ',' << v.runs << ','
              << b.Goodput() << ','
              << checkpoint::ExpectedGoodput(b.interval, delta.Get(), restart.Get(), expectedMtbi)
              << ',' << b.useful / n << ',' << b.lost / n << ',' << b.checkpoint / n << ','
              << b.restart / n << ',' << b.degraded / n << ',' << b.interruptions / n << ','
              << b.checkpoints / n << ','
              << (b.interruptions ? b.wall / double(b.interruptions) : 0.0) << '\n';
        }
    });
    json states = json::object();
    for (int st = 0; st < kStates; ++st)
    {
        json j = {{"iteration_s", times[st].GetSeconds()}, {"source", how[st]}};
        if (measuredLink[st] >= 0)
        {
            j["link"] = measuredLink[st];
        }
        states[StateName(st)] = j;
    }
    const double days = v.horizon.GetSeconds() / 86400;
    const Books& main = books[0];
    json a = BooksJson(main, v.runs);
    a["horizon_days"] = days;
    a["runs"] = v.runs;
    a["job_gpus"] = hosts.size();
    a["checkpoint_time_s"] = delta.Get().GetSeconds();
    a["restart_time_s"] = restart.Get().GetSeconds();
    // Without interrupting components the job has no MTBI (nor Young or Daly intervals).
    const bool interrupted = expectedMtbi != Time::Max();
    a["expected_mtbi_s"] = interrupted ? json(expectedMtbi.GetSeconds()) : json(nullptr);
    a["expected_interruptions_per_day"] = interrupted ? 86400 / expectedMtbi.GetSeconds() : 0.0;
    a["interruptions_per_day"] = double(main.interruptions) / v.runs / days;
    a["young_interval_s"] =
        interrupted ? json(checkpoint::YoungInterval(delta.Get(), expectedMtbi).GetSeconds())
                    : json(nullptr);
    a["daly_interval_s"] =
        interrupted ? json(checkpoint::DalyInterval(delta.Get(), expectedMtbi).GetSeconds())
                    : json(nullptr);
    // Daly's expectation from the interruptions alone: the goodput when nothing degrades.
    a["closed_form_goodput"] =
        checkpoint::ExpectedGoodput(main.interval, delta.Get(), restart.Get(), expectedMtbi);
    a["fabric_states"] = states;
    a["table"] = "availability.csv";
    json summary = {{"scenario", s.document},
                    {"name", s.name},
                    {"seed", s.seed},
                    {"version", AI_FABRIC_VERSION},
                    {"mode", "availability"},
                    {"fidelity", s.fidelity}, // of the measured states
                    {"mpi_ranks", d.ranks},
                    {"availability", a},
                    {"failures", log.Summary()}};
    summary["wall_seconds"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    folder.Write("summary.json", [&summary](std::ostream& f) { f << summary.dump(2) << '\n'; });
    folder.Commit();

    std::cout << "# ai-fabric availability: " << hosts.size() << " GPUs over " << days
              << " days x " << v.runs << " runs\n"
              << std::fixed << std::setprecision(2);
    if (interrupted)
    {
        std::cout << "# expected MTBI " << expectedMtbi.GetHours() << " h ("
                  << 86400 / expectedMtbi.GetSeconds() << " interruptions/day); Young "
                  << a["young_interval_s"].get<double>() / 60 << " min, Daly "
                  << a["daly_interval_s"].get<double>() / 60 << " min\n";
    }
    else
    {
        std::cout << "# no failure interrupts the job\n";
    }
    std::cout
              << "#  interval (min)  goodput  closed form  restarts/run\n";
    for (std::size_t m = 0; m < models.size(); ++m)
    {
        const Books& b = books[m];
        std::cout << std::setw(17) << b.interval.GetSeconds() / 60 << std::setw(9)
                  << std::setprecision(4) << b.Goodput() << std::setw(13)
                  << checkpoint::ExpectedGoodput(b.interval, delta.Get(), restart.Get(), expectedMtbi)
                  << std::setw(14) << std::setprecision(1) << double(b.interruptions) / v.runs
                  << std::setprecision(2) << '\n';
    }
    spdlog::info("availability: goodput {:.4f} over {} runs of {:.1f} days; results in {}",
                 main.Goodput(), v.runs, days, folder.GetDestination().string());
    return 0;
}

} // namespace aifabric
