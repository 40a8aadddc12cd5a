#ifndef AI_FABRIC_AUTO_COLLECTIVE_H
#define AI_FABRIC_AUTO_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Picks an algorithm per request by a fixed rule and builds with it; the schedule's
 * algorithm name records the choice ("auto:ring").
 *
 * The rule: all-to-all -> pairwise; broadcast and reduce -> binomial; reduce-scatter and
 * all-gather -> ring; all-reduce -> hierarchical when the ranks fill several servers with
 * the same number (> 1) each; otherwise recursive doubling when the rank count is a power of
 * two and the message is below the alpha-beta crossover with the ring (from the request's
 * alpha and secondsPerByte hints), and ring above it.
 */
class AutoCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "auto"; }
    bool Supports(CollectiveOperation op) const override;
    /** The short name of the algorithm the rule picks for \p request. */
    static std::string Choose(const CollectiveRequest& request);
    /**
     * Bytes below which recursive doubling beats the ring in the alpha-beta model for \p ranks
     * (0 if never): n* = (2(p-1) - log2 p) a / ((log2 p - 2(p-1)/p) b).
     */
    static double RecursiveDoublingCrossover(uint32_t ranks, Time alpha, double secondsPerByte);

  private:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif
