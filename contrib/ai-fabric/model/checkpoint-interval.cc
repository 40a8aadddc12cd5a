#include "checkpoint-interval.h"

#include "ns3/abort.h"

#include <cmath>

namespace ns3
{
namespace checkpoint
{

namespace
{
void
CheckPositive(Time t, const char* what)
{
    NS_ABORT_MSG_IF(!t.IsStrictlyPositive(), "checkpoint: " << what << " must be > 0, got " << t);
}
} // namespace

Time
YoungInterval(Time checkpoint, Time mtbi)
{
    CheckPositive(checkpoint, "the checkpoint time");
    CheckPositive(mtbi, "the mean time between interruptions");
    return Seconds(std::sqrt(2 * checkpoint.GetSeconds() * mtbi.GetSeconds()));
}

Time
DalyInterval(Time checkpoint, Time mtbi)
{
    CheckPositive(checkpoint, "the checkpoint time");
    CheckPositive(mtbi, "the mean time between interruptions");
    const double d = checkpoint.GetSeconds();
    const double m = mtbi.GetSeconds();
    if (d >= 2 * m)
    {
        return mtbi;
    }
    const double x = d / (2 * m);
    return Seconds(std::sqrt(2 * d * m) * (1 + std::sqrt(x) / 3 + x / 9) - d);
}

double
ExpectedGoodput(Time interval, Time checkpoint, Time restart, Time mtbi)
{
    CheckPositive(interval, "the checkpoint interval");
    CheckPositive(mtbi, "the mean time between interruptions");
    const double m = mtbi.GetSeconds();
    const double tau = interval.GetSeconds();
    return tau / (m * std::exp(restart.GetSeconds() / m) *
                  std::expm1((tau + checkpoint.GetSeconds()) / m));
}

} // namespace checkpoint
} // namespace ns3
