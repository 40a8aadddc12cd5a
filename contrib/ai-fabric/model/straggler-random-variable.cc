#include "straggler-random-variable.h"

#include "ns3/double.h"
#include "ns3/rng-stream.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(StragglerRandomVariable);

TypeId
StragglerRandomVariable::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::StragglerRandomVariable")
            .SetParent<RandomVariableStream>()
            .SetGroupName("AiFabric")
            .AddConstructor<StragglerRandomVariable>()
            .AddAttribute("Fraction", "Probability that a draw is a straggler.  Default 0.01 with Factor 1.1: "
                          "the \"1% of GPUs 10% slower\" case of issue 5 (an illustration, not a "
                          "measured rate).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&StragglerRandomVariable::m_fraction),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("Factor", "A straggler's compute time factor.", DoubleValue(1.1),
                          MakeDoubleAccessor(&StragglerRandomVariable::m_factor),
                          MakeDoubleChecker<double>(0))
    ;
    return tid;
}

StragglerRandomVariable::StragglerRandomVariable() = default;

double
StragglerRandomVariable::GetValue()
{
    double u = Peek()->RandU01();
    if (IsAntithetic())
    {
        u = 1 - u;
    }
    return u < m_fraction ? m_factor : 1.0;
}

uint32_t
StragglerRandomVariable::GetInteger()
{
    return static_cast<uint32_t>(std::lround(GetValue()));
}

} // namespace ns3
