// The long-horizon availability run of a scenario: iteration times per fabric state measured
// at packet level (or given), then the failure processes over weeks, event by event.
#ifndef AI_FABRIC_SCENARIO_AVAILABILITY_H
#define AI_FABRIC_SCENARIO_AVAILABILITY_H

#include "results-folder.h"
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
 */
int RunAvailability(Scenario& scenario, ResultsFolder& folder, const std::string& program);

} // namespace aifabric

#endif
