#ifndef AI_FABRIC_AUTO_COLLECTIVE_H
#define AI_FABRIC_AUTO_COLLECTIVE_H

#include "collective-algorithm.h"
#include "nccl-tuning-model.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Picks algorithm, protocol and channel count per request as NCCL does
 * (NcclTuningModel) and builds with them; the schedule's algorithm name records the choice
 * ("auto:ring/ll128/16ch").  All-to-all runs pxn in Simple, as NCCL's point-to-point with
 * PXN.  Its own Protocol attribute is not used: the tuner picks the protocol.
 */
class AutoCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "auto"; }
    bool Supports(CollectiveOperation op) const override;
    /** What the tuner picks for \p request. */
    static NcclTuningModel::Choice Choose(const CollectiveRequest& request);

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif
