// Distributed runs: ns-3's MPI engine, the partition of the fabric, and results merged at rank 0.
#ifndef AI_FABRIC_SCENARIO_DISTRIBUTED_H
#define AI_FABRIC_SCENARIO_DISTRIBUTED_H

#include "scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aifabric
{

/** This process's place in a run: rank 0 of 1 unless run under mpirun with --ranks-by. */
struct Distribution
{
    std::string ranksBy; //!< "pod", "rail" or "map:FILE"; empty: a single-process run
    uint32_t rank{0};
    uint32_t ranks{1};
    bool IsDistributed() const { return !ranksBy.empty(); }
};

/** Whether this build has ns-3's mpi module (ai-fabric built against ns-3 from source). */
bool MpiBuilt();
/**
 * Start MPI, enable ns-3's MpiInterface on MPI_COMM_WORLD and select DistributedSimulatorImpl
 * (call before anything is simulated); returns this process's rank and the rank count.
 */
Distribution EnableMpi(int* argc, char*** argv, const std::string& ranksBy);
/**
 * Ready ns-3's MPI interface for another distributed run after Simulator::Destroy (every rank,
 * between the runs of one process).
 */
void RestartMpi();
/** Finish MPI (every rank, at exit). */
void DisableMpi();
/**
 * Rank 0 receives every rank's \p mine, in rank order; other ranks receive nothing.  Every
 * rank throws ResultsWriteError naming \p what if all of them pass one MPI gather (2 GiB).
 */
std::vector<std::string> GatherAtRoot(const std::string& mine, const std::string& what);
/** The largest \p value over all ranks, on every rank. */
int64_t MaxOverRanks(int64_t value);

/**
 * Split the fabric as \p d.ranksBy says; bad input throws ScenarioError naming --ranks-by.
 */
std::vector<uint32_t> PartitionScenario(const Scenario& scenario, const Distribution& d);

} // namespace aifabric

#endif
