// What the benchmark programs share: a run's figures, measured in a child process.
#ifndef AI_FABRIC_BENCH_RUN_H
#define AI_FABRIC_BENCH_RUN_H

#include "ns3/ai-fabric-module.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace aifabric_bench
{

/** Figures of one benchmark run (plain data: it crosses a pipe). */
struct Result
{
    uint64_t packets{0};  //!< data packets the workload moved
    double simSeconds{0}; //!< simulated time of the workload
    double wallSeconds{0};
    uint64_t events{0};
    long peakRssKb{0};
};

/**
 * Run \p fn in a child process, so that the peak RSS (from wait4) is the run's own; exits the
 * program with a message naming \p what if the child fails.
 */
inline Result
InChild(const std::function<Result()>& fn, const char* what)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        std::perror("pipe");
        std::exit(1);
    }
    const pid_t pid = fork();
    if (pid == 0)
    {
        close(fds[0]);
        const Result r = fn();
        if (write(fds[1], &r, sizeof r) != sizeof r)
        {
            _exit(1);
        }
        _exit(0);
    }
    close(fds[1]);
    Result r;
    const ssize_t n = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int status = 0;
    struct rusage usage
    {
    };
    wait4(pid, &status, 0, &usage);
    if (n != sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    {
        std::fprintf(stderr, "benchmark run failed: %s\n", what);
        std::exit(1);
    }
    r.peakRssKb = usage.ru_maxrss;
    return r;
}

/**
 * The figures of a run that started at \p start and moved \p packets in \p simSeconds: the
 * simulator's event count and the wall time so far; then destroys the simulator.
 */
inline Result
Finish(std::chrono::steady_clock::time_point start, uint64_t packets, double simSeconds)
{
    Result r;
    r.packets = packets;
    r.simSeconds = simSeconds;
    r.events = ns3::Simulator::GetEventCount();
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ns3::Simulator::Destroy();
    return r;
}

/** Data frames the RDMA NICs of \p net's hosts sent (retransmissions included). */
inline uint64_t
DataFramesSent(ns3::Ptr<ns3::FabricNetwork> net)
{
    uint64_t frames = 0;
    for (uint32_t h = 0; h < net->GetNHosts(); ++h)
    {
        frames += net->GetHostNode(h)->GetObject<ns3::RdmaNic>()->GetTotals().framesSent;
    }
    return frames;
}

/**
 * Binds the simulator core \p core and the event scheduler \p scheduler for every run of the
 * benchmark.  The core is ns3::FabricSimulatorImpl (ai-fabric-run's, on ns3::FabricScheduler
 * only) or ns3::DefaultSimulatorImpl; the scheduler any ns-3 scheduler.  On other values it
 * prints what is allowed, prefixed with \p program, and returns false.
 */
inline bool
UseSimulator(const char* program, const std::string& core, const std::string& scheduler)
{
    ns3::TypeId tid;
    if (!ns3::TypeId::LookupByNameFailSafe(scheduler, &tid) ||
        !tid.IsChildOf(ns3::Scheduler::GetTypeId()) || !tid.HasConstructor())
    {
        std::fprintf(stderr,
                     "%s: --scheduler: '%s' is not an ns-3 event scheduler (such as "
                     "ns3::FabricScheduler or ns3::MapScheduler)\n",
                     program,
                     scheduler.c_str());
        return false;
    }
    if (core != "ns3::FabricSimulatorImpl" && core != "ns3::DefaultSimulatorImpl")
    {
        std::fprintf(stderr,
                     "%s: --simulator: '%s' is not ns3::FabricSimulatorImpl or "
                     "ns3::DefaultSimulatorImpl\n",
                     program,
                     core.c_str());
        return false;
    }
    if (core == "ns3::FabricSimulatorImpl" && scheduler != "ns3::FabricScheduler")
    {
        std::fprintf(stderr,
                     "%s: --simulator: ns3::FabricSimulatorImpl runs on "
                     "ns3::FabricScheduler only, not --scheduler=%s\n",
                     program,
                     scheduler.c_str());
        return false;
    }
    ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue(core));
    ns3::GlobalValue::Bind("SchedulerType", ns3::StringValue(scheduler));
    return true;
}

} // namespace aifabric_bench

#endif
