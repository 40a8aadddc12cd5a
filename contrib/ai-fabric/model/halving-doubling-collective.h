#ifndef AI_FABRIC_HALVING_DOUBLING_COLLECTIVE_H
#define AI_FABRIC_HALVING_DOUBLING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Recursive halving then doubling (Rabenseifner; Thakur, Rabenseifner & Gropp 2005).
 *
 * Reduce-scatter by recursive halving: in round k a rank exchanges half of the range it still
 * holds with rank XOR p/2^(k+1) and reduces the half it keeps.  All-gather by recursive
 * doubling retraces the rounds backwards.  All-reduce is both:
 * 2 log2(p) a + 2(p-1)/p n b + (p-1)/p n g.  Needs a power-of-two rank count.
 */
class HalvingDoublingCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "halving-doubling"; }
    bool Supports(CollectiveOperation op) const override;

  private:
    void CheckRequest(const CollectiveRequest& request) const override;
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif
