#ifndef AI_FABRIC_PAIRWISE_COLLECTIVE_H
#define AI_FABRIC_PAIRWISE_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Pairwise-exchange all-to-all (MPICH's long-message all-to-all).
 *
 * Each rank copies its own block locally; in step s = 1 .. p-1 it sends n/p bytes to rank
 * r + s and receives from r - s, and starts step s + 1 when both have finished (a sendrecv),
 * so no receiver sees more than one sender at a time: (p-1)(a + n/p b) plus acknowledgements.
 */
class PairwiseCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "pairwise"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif
