// Small fabrics and run helpers shared by the tests.
#ifndef AI_FABRIC_TESTS_FABRIC_FIXTURE_H
#define AI_FABRIC_TESTS_FABRIC_FIXTURE_H

#include "fabric-checks.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <vector>

namespace aifabric_test
{

// The topology and totals the module's ns-3 TestSuites use too.
using ns3::checks::FabricTotals;
using ns3::checks::Star;
using ns3::checks::Totals;

/** Run the simulator to completion and destroy it. */
void RunAndDestroy();

} // namespace aifabric_test

#endif
