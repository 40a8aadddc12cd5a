// Collectives on small fabrics, and the alpha-beta model the tests compare them with: the checks
// the module's ns-3 TestSuites share (contrib/ai-fabric/test/collective-checks).
#ifndef AI_FABRIC_TESTS_COLLECTIVE_FIXTURE_H
#define AI_FABRIC_TESTS_COLLECTIVE_FIXTURE_H

#include "collective-checks.h"

#include "ns3/ai-fabric-module.h"

namespace aifabric_test
{
using ns3::checks::Attributes;
using ns3::checks::CollectiveRun;
using ns3::checks::FatTreeModel;
using ns3::checks::NetworkHook;
using ns3::checks::RingAllReduceModel;
using ns3::checks::RunCollective;
using ns3::checks::RunOnFatTree;
using ns3::checks::RunOnStar;
using ns3::checks::ScopedDefaults;
} // namespace aifabric_test

#endif
