#ifndef AI_FABRIC_BINOMIAL_TREE_COLLECTIVE_H
#define AI_FABRIC_BINOMIAL_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Binomial tree broadcast and reduce (MPICH's default for short messages).
 *
 * With ranks numbered relative to the root, rank v receives from v - 2^k where 2^k is its
 * highest set bit and then sends to v + 2^j for every higher j in increasing order (the
 * largest subtree first), one child after the other, each send once the previous one is
 * acknowledged; reduce runs the tree backwards, each
 * rank reducing what its children send before sending on.  log2(p) (a + n b) rounds, plus
 * an acknowledgement per round for broadcast.
 */
class BinomialTreeCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "binomial"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif
