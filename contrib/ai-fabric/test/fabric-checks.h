// Checks of the fabric against closed forms, shared by the module's ns-3 TestSuites
// (ai-fabric-test-suite.cc, run by test.py) and the GoogleTest suite (tests/): each runs a small
// simulation and returns what it measured beside what the closed form says.
#ifndef AI_FABRIC_FABRIC_CHECKS_H
#define AI_FABRIC_FABRIC_CHECKS_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{
namespace checks
{

/** A measured time and its closed form. */
struct TimeCheck
{
    Time measured;
    Time expected;
};

/**
 * One frame of \p payload bytes from host 0 to host 1 through one switch (7 m cables, 450 ns
 * forwarding latency, links of \p gbps): it arrives after two serializations of its wire bytes,
 * two cable delays and the switch pipeline, exactly to the picosecond.  Needs picosecond time
 * resolution; destroys the simulator when done.
 */
TimeCheck OneFrameOneHop(uint64_t gbps, uint32_t payload);

} // namespace checks
} // namespace ns3

#endif
