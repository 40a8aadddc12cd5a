#ifndef AI_FABRIC_RECURSIVE_DOUBLING_COLLECTIVE_H
#define AI_FABRIC_RECURSIVE_DOUBLING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Recursive doubling (Thakur, Rabenseifner & Gropp 2005): in round k each rank exchanges
 * with rank XOR 2^k.  All-reduce exchanges the whole buffer every round and reduces it:
 * log2(p) (a + n b + n g), the latency-optimal choice for small messages.  All-gather
 * doubles the gathered data each round.  Needs a power-of-two rank count.
 */
class RecursiveDoublingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "recursive-doubling"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    void CheckRequest(const CollectiveRequest& request) const override;
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif
