#ifndef AI_FABRIC_STRAGGLER_RANDOM_VARIABLE_H
#define AI_FABRIC_STRAGGLER_RANDOM_VARIABLE_H

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A compute slowdown factor: Factor with probability Fraction, else 1.
 *
 * For TrainingJob's Slowdown: "1% of GPUs 10% slower" is Fraction = 0.01, Factor = 1.1.
 * Each value uses one uniform draw of the stream.
 */
class StragglerRandomVariable : public RandomVariableStream
{
  public:
    static TypeId GetTypeId();
    StragglerRandomVariable();
    double GetValue() override;
    uint32_t GetInteger() override;

  private:
    double m_fraction;
    double m_factor;
};

} // namespace ns3

#endif
