// A 64-GPU job (8 servers x 8 GPUs, rail-optimized) over 30 days of component failures: GPUs
// fail hard, fabric links fail hard and are routed around, transceivers lose lanes.  The job
// checkpoints at a fixed interval or at Young's or Daly's optimum; prints each policy's
// goodput (useful time / wall time, the mean over --runs histories) beside Daly's closed form,
// which counts interruptions only: the difference is the time lost to degraded links.
//
// The iteration times per fabric state are inputs here (the runner's availability section
// measures them at packet level): 1.234x healthy for a link at half its lanes is what
// scenarios/studies/availability.py measured for a 64-GPU data-parallel job; a dead fabric link
// costs nothing there, since the hierarchical all-reduce stays on the rail leaves.
//
//   checkpoint-availability [--gpuMtbf=2000h] [--days=30] [--runs=4]
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cstdio>
#include <set>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    Time gpuMtbf = Hours(2000);
    uint32_t days = 30;
    uint32_t runs = 4;
    CommandLine cmd(__FILE__);
    cmd.AddValue("gpuMtbf", "mean time between failures of one GPU", gpuMtbf);
    cmd.AddValue("days", "horizon in days (at most 100)", days);
    cmd.AddValue("runs", "failure histories per policy", runs);
    cmd.Parse(argc, argv);
    if (days == 0 || days > 100 || runs == 0 || !gpuMtbf.IsStrictlyPositive())
    {
        std::fprintf(stderr, "checkpoint-availability: days must be 1-100, runs and gpuMtbf > 0\n");
        return 2;
    }

    RailOptimizedTopologyHelper rail(8, 8, 8);
    const FabricTopology topology = rail.Build();
    std::set<uint32_t> hosts;
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        hosts.insert(h);
    }

    FailureHelper failures;
    failures.AddFailureMode("gpu", ComponentFailureProcess::HARD, gpuMtbf.GetSeconds(), 0.0);
    failures.AddFailureMode("link", ComponentFailureProcess::HARD, Hours(500).GetSeconds(),
                            Hours(2).GetSeconds());
    failures.AddFailureMode("transceiver", ComponentFailureProcess::LANE_LOSS,
                            Hours(2000).GetSeconds(), Hours(4).GetSeconds(), 0,
                            {{"RateFraction", "0.5"}});

    const Time iteration = Seconds(1);
    struct Policy
    {
        const char* name;
        JobAvailabilityModel::Policy policy;
        Time interval;
    };
    const Policy policies[] = {{"fixed 10min", JobAvailabilityModel::FIXED, Minutes(10)},
                               {"fixed 1h", JobAvailabilityModel::FIXED, Hours(1)},
                               {"fixed 4h", JobAvailabilityModel::FIXED, Hours(4)},
                               {"young", JobAvailabilityModel::YOUNG, Time(0)},
                               {"daly", JobAvailabilityModel::DALY, Time(0)}};
    std::printf("# %u GPUs, %u days, %u histories per policy\n", topology.GetNHosts(), days, runs);
    std::printf("# %12s %12s %10s %12s %9s\n", "policy", "interval", "goodput", "closed form",
                "restarts");
    for (const Policy& p : policies)
    {
        double useful = 0;
        double wall = 0;
        uint32_t restarts = 0;
        Time interval;
        Time mtbi;
        Ptr<JobAvailabilityModel> job;
        for (uint32_t r = 0; r < runs; ++r)
        {
            // Each history draws its own streams; every policy sees the same histories.
            failures.Install(topology, nullptr, 1 + r * 100000);
            job = CreateObject<JobAvailabilityModel>();
            job->SetAttribute("CheckpointPolicy", EnumValue(p.policy));
            if (p.policy == JobAvailabilityModel::FIXED)
            {
                job->SetAttribute("CheckpointInterval", TimeValue(p.interval));
            }
            job->SetIterationTime(JobAvailabilityModel::HEALTHY, iteration);
            job->SetIterationTime(JobAvailabilityModel::LINK_DOWN, iteration);
            job->SetIterationTime(JobAvailabilityModel::REDUCED_RATE, 1.234 * iteration);
            failures.Follow(job, hosts);
            interval = job->GetCheckpointInterval();
            mtbi = job->GetExpectedMtbi();
            job->Start();
            JobAvailabilityModel::Result result;
            Simulator::Schedule(Days(days), [&result, job]() {
                result = job->Finish();
                Simulator::Stop();
            });
            Simulator::Run();
            Simulator::Destroy();
            useful += result.useful.GetSeconds();
            wall += result.wall.GetSeconds();
            restarts += result.interruptions;
        }
        TimeValue checkpoint;
        TimeValue restart;
        job->GetAttribute("CheckpointTime", checkpoint);
        job->GetAttribute("RestartTime", restart);
        const double closedForm =
            checkpoint::ExpectedGoodput(interval, checkpoint.Get(), restart.Get(), mtbi);
        std::printf("  %12s %10.1f min %10.4f %12.4f %9.1f\n", p.name, interval.GetMinutes(),
                    useful / wall, closedForm, double(restarts) / runs);
    }
    return 0;
}
