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

/** An RdmaHelper whose NICs run the congestion control \p tid. */
ns3::RdmaHelper RdmaRunning(ns3::TypeId tid);

/** Run the simulator to completion and destroy it. */
void RunAndDestroy();

/**
 * A star of \p senders + 1 hosts at 100 Gb/s (2 m cables) whose NICs run DCQCN, installed by
 * \p rdma: host 0 is the incast's receiver.
 */
ns3::Ptr<ns3::FabricNetwork> DcqcnStar(uint32_t senders, ns3::RdmaHelper& rdma);

/**
 * An incast that PFC must hold: \p senders hosts of a 100 Gb/s star each send 1 MiB of plain
 * messages to host 0 from 1 us, through a switch of 4 MiB buffer (so it pauses them).
 */
ns3::Ptr<ns3::FabricNetwork> PausingIncast(uint32_t senders);

} // namespace aifabric_test

#endif
