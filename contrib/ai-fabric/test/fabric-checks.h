// Checks of the fabric against closed forms, shared by the module's ns-3 TestSuites
// (ai-fabric-test-suite.cc, run by test.py) and the GoogleTest suite (tests/): each runs a small
// simulation and returns what it measured beside what the closed form says.
#ifndef AI_FABRIC_FABRIC_CHECKS_H
#define AI_FABRIC_FABRIC_CHECKS_H

#include "ns3/data-rate.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace checks
{

/**
 * Set ns-3's time resolution to picoseconds, once: setting it again converts every Time alive,
 * and Times left in freed objects of an earlier simulation crash that.
 */
void UsePicoseconds();

/** One leaf switch with \p hosts hosts, each on its own cable of \p metres. */
FabricTopology Star(uint32_t hosts, DataRate rate, double metres);

/** Totals over every port of a network after a run. */
struct FabricTotals
{
    uint64_t hostDataFramesSent{0}; //!< frames sent by host ports (hosts send only data)
    uint64_t framesDropped{0};      //!< all reasons, all ports
    uint64_t pfcPausesSent{0};
    uint64_t ecnMarked{0};
    uint64_t framesTrimmed{0}; //!< data frames cut to their headers (FabricSwitch Trimming)
    std::vector<uint64_t> dropsByReason;
};
FabricTotals Totals(Ptr<FabricNetwork> net);

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

/** What an incast did. */
struct IncastCheck
{
    FabricTotals totals;
    uint64_t leafBufferPeak{0}; //!< the switch's fullest buffer, bytes
    uint64_t delivered{0};      //!< frames delivered to the receiver
    uint64_t completeFlows{0};
    uint64_t framesPerSender{0}; //!< 1 MiB in 4096-byte payloads
    uint64_t headroomCap{0};     //!< PFC headroom of each sender-facing switch port, bytes
    uint64_t headroomPeak{0};    //!< most headroom any sender-facing port held, bytes
};

/**
 * \p senders hosts each send 1 MiB to host 0 through one switch with a \p buffer buffer, PFC
 * on or off (\p pfc).  With PFC nothing may drop and every frame is delivered; without, frames
 * sent = delivered + dropped.  Destroys the simulator when done.
 */
IncastCheck Incast(uint32_t senders, bool pfc, DataRate rate = DataRate("100Gbps"),
                   double metres = 2, QueueSize buffer = QueueSize("4MiB"));

/** Frames sent by \p node on each of its links toward a node with \p role. */
std::vector<uint64_t> UplinkFrames(Ptr<FabricNetwork> net, uint32_t node, FabricTopology::Role role);
/** Pearson's chi-square of \p counts against a uniform spread. */
double ChiSquare(const std::vector<uint64_t>& counts);

/** How flows spread over equal-cost uplinks. */
struct SpreadCheck
{
    std::vector<uint64_t> uplinkFrames; //!< per uplink of the first leaf
    double chiSquare{0};
    double bound{0}; //!< chi-square with 7 degrees of freedom at p = 0.001
};

/**
 * 800 single-frame flows from the 8 hosts of leaf 0 to those of leaf 1 of a 2-leaf, 8-spine
 * fabric: flow hashing must spread them over the 8 uplinks (chi-square below the p = 0.001
 * bound, 24.3).  Destroys the simulator when done.
 */
SpreadCheck EcmpSpread();

} // namespace checks
} // namespace ns3

#endif
