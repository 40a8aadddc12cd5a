// What the scenario programs share after parsing their arguments.
#ifndef AI_FABRIC_SCENARIO_MAIN_H
#define AI_FABRIC_SCENARIO_MAIN_H

#include "run-estimate.h"
#include "scenario-distributed.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace aifabric
{

/** Exit code for bad input: the message names the parameter, the value and what is allowed. */
constexpr int kBadInput = 2;
/** Exit code when the results could not be written (disk full): no results folder is left. */
constexpr int kWriteFailed = 1;

/** Print "program: error: what" on stderr in one write. */
void PrintError(const std::string& program, const std::string& what);

/** Throw ScenarioError unless every argument is valid UTF-8 without control characters. */
void CheckArgumentText(int argc, char** argv);

/**
 * ns-3's own information flags, as every ns-3 program takes them: --PrintTypeIds,
 * --PrintAttributes=TYPE, --PrintGroups, --PrintGroup=GROUP, --PrintGlobals (printed by ns-3's
 * CommandLine) and --version (this program's and ns-3's).  Prints and exits 0 for one of them;
 * returns otherwise.
 */
void HandleNs3InfoFlag(const std::string& program, const std::string& arg);

/**
 * A heap on huge pages (UseHugePageHeap), picosecond time, the FabricScheduler and the
 * one-process simulator core (UseOneProcessSimulator): call first in main.
 */
void InitSimulator();

/**
 * Run the next simulation in one process on ns3::FabricSimulatorImpl (ns-3's default core
 * without its per-event hooks; the same results) and ns3::FabricScheduler; a distributed run
 * binds ns-3's distributed core instead (EnableMpi), on the same scheduler.
 */
void UseOneProcessSimulator();

/**
 * Build the scenario of \p document, run it, write the results folder \p out and log a summary; returns the exit code.  Bad input, a destination that is not a
 * results folder of this program or holds one of \p inputs (the files the run reads) prints
 * one line prefixed with \p program and returns kBadInput before simulating; a failed write
 * returns kWriteFailed; neither leaves a results folder (ResultsFolder).  With a collective
 * section the nccl-tests table goes to stdout.  In a distributed run every rank calls it with
 * its \p distribution; rank 0 writes the results and the table, and every rank exits alike.
 * With \p estimator (--estimate: the run at flow level, EstimateAtFlowLevel), called once the
 * scenario and destination are known good, the progress line shows the share of its events
 * done and the time left; a scenario at fidelity "flow" or "collective" is then bad input.
 */
int RunScenarioDocument(const std::function<nlohmann::json()>& document, const std::string& out,
                        const std::vector<std::string>& inputs, const std::string& program,
                        const Distribution& distribution = Distribution(),
                        const Estimator& estimator = Estimator());

} // namespace aifabric

#endif
