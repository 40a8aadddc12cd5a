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

/** A request for \p op of \p bytes over \p ranks ranks, each on a server of its own. */
inline ns3::CollectiveRequest
Request(ns3::CollectiveOperation op, uint64_t bytes, uint32_t ranks)
{
    ns3::CollectiveRequest r;
    r.op = op;
    r.bytes = bytes;
    r.ranks = ranks;
    return r;
}

/** A request for \p op of \p bytes over \p servers x \p gpus, one rank per GPU in server order. */
inline ns3::CollectiveRequest
ServersRequest(uint32_t servers, uint32_t gpus, ns3::CollectiveOperation op, uint64_t bytes)
{
    ns3::CollectiveRequest r = Request(op, bytes, servers * gpus);
    for (uint32_t rank = 0; rank < r.ranks; ++rank)
    {
        r.placement.push_back({rank / gpus, rank % gpus});
    }
    return r;
}
/** Bytes of \p rank's steps of \p kind in \p s. */
inline uint64_t
StepBytes(const ns3::CollectiveSchedule& s, uint32_t rank, ns3::CollectiveStep::Kind kind)
{
    uint64_t bytes = 0;
    for (const ns3::CollectiveStep& step : s.GetSteps(rank))
    {
        bytes += step.kind == kind ? step.bytes : 0;
    }
    return bytes;
}
} // namespace aifabric_test

#endif
