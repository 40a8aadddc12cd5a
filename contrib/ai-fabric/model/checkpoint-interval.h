#ifndef AI_FABRIC_CHECKPOINT_INTERVAL_H
#define AI_FABRIC_CHECKPOINT_INTERVAL_H

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Checkpoint-interval formulas for a job interrupted at exponentially distributed times.
 *
 * All take the checkpoint cost \p checkpoint (delta), the restart cost \p restart (R) and the
 * job's mean time between interruptions \p mtbi (M).
 */
namespace checkpoint
{

/** Young's first-order optimum, sqrt(2 delta M) (Young, CACM 17(9), 1974). */
Time YoungInterval(Time checkpoint, Time mtbi);

/**
 * Daly's higher-order optimum (Daly, FGCS 22(3), 2006):
 * sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9] - delta for delta < 2M, else M.
 */
Time DalyInterval(Time checkpoint, Time mtbi);

/**
 * Expected goodput (useful time / wall time) with compute \p interval (tau) between checkpoints,
 * when interruptions may also hit checkpoints and restarts (Daly 2006, the model
 * behind his optimum):
 * tau / (M e^{R/M} (e^{(tau + delta)/M} - 1)).
 */
double ExpectedGoodput(Time interval, Time checkpoint, Time restart, Time mtbi);

} // namespace checkpoint
} // namespace ns3

#endif
