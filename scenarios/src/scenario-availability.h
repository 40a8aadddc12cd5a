// The long-horizon availability run of a scenario: iteration times per fabric state measured
// at packet level (or given), then the failure processes over weeks, event by event.
#ifndef AI_FABRIC_SCENARIO_AVAILABILITY_H
#define AI_FABRIC_SCENARIO_AVAILABILITY_H

#include "results-folder.h"
#include "scenario-distributed.h"
#include "scenario.h"

#include <string>

namespace aifabric
{

/**
 * Run \p scenario's "availability" section and write its results into \p folder:
 * summary.json, failures.csv (the first run's failures over the horizon) and availability.csv
 * (goodput per checkpoint interval).  Bad input prints one line prefixed with \p program and
 * returns kBadInput without committing the folder; returns the exit code.  A failed write
 * throws ResultsWriteError.
 *
 * Split over MPI ranks (\p distribution, \p partition of the fabric's nodes), every rank takes
 * part in measuring the fabric states and rank 0, the only one with a \p folder (null on the
 * others), then runs the long horizon alone.
 */
int RunAvailability(Scenario& scenario, ResultsFolder* folder, const std::string& program,
                    const Distribution& distribution, const std::vector<uint32_t>& partition);

} // namespace aifabric

#endif
