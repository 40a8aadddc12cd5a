// How long a packet-level run will take, from the same scenario at flow level.
#ifndef AI_FABRIC_RUN_ESTIMATE_H
#define AI_FABRIC_RUN_ESTIMATE_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * What the flow model says a packet-level run of the same scenario will do.  Its data frames
 * are the packet model's exactly where nothing is lost (the same messages cut at the same
 * MTU; resent frames come on top); its events follow
 * the frames' hops: the shipped scenarios' packet-level runs took 1.40 to 2.06 events per
 * flow-level frame hop (median 1.6; the module chapter, Usage, "Run-time estimate").
 */
struct RunEstimate
{
    /** Packet-level events per frame hop: the middle of the measured range. */
    static constexpr double kEventsPerFrameHop = 1.7;

    double simulatedSeconds{0};
    uint64_t dataFrames{0};
    double frameHops{0};
    double flowWallSeconds{0}; //!< what the estimate itself took
    double Events() const { return frameHops * kEventsPerFrameHop; }
};

/**
 * Run \p program (this executable) with \p arguments (the user's, less --out, --fidelity,
 * --pcap and --estimate) at fidelity "flow" into a scratch folder, and read its summary.
 * Nothing if the flow model cannot run the scenario; \p why then says why (its error line).
 */
std::optional<RunEstimate> EstimateAtFlowLevel(const std::string& program,
                                               const std::vector<std::string>& arguments,
                                               std::string& why);

/** What makes an estimate for a run (or nothing, saying why in the log). */
using Estimator = std::function<std::optional<RunEstimate>()>;

/** The estimate as one log line: frames, events and the wall time they take at 0.6-1.9 M/s. */
std::string DescribeEstimate(const RunEstimate& e);

} // namespace aifabric

#endif
