// Small fabrics and run helpers shared by the tests.
#ifndef AI_FABRIC_TESTS_FABRIC_FIXTURE_H
#define AI_FABRIC_TESTS_FABRIC_FIXTURE_H

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <vector>

namespace aifabric_test
{

/** One leaf switch with \p hosts hosts, each on its own cable of \p metres. */
ns3::FabricTopology Star(uint32_t hosts, ns3::DataRate rate, double metres);

/** Totals over every port of a network after a run. */
struct FabricTotals
{
    uint64_t hostDataFramesSent{0}; //!< frames sent by host ports (hosts send only data)
    uint64_t framesDropped{0};      //!< all reasons, all ports
    uint64_t pfcPausesSent{0};
    uint64_t ecnMarked{0};
    std::vector<uint64_t> dropsByReason;
};
FabricTotals Totals(ns3::Ptr<ns3::FabricNetwork> net);

/** Run the simulator to completion and destroy it. */
void RunAndDestroy();

} // namespace aifabric_test

#endif
