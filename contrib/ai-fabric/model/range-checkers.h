#ifndef AI_FABRIC_RANGE_CHECKERS_H
#define AI_FABRIC_RANGE_CHECKERS_H

#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/type-id.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The largest byte (or parameter) count an attribute takes: 2^50, a pebibyte, a thousand times
 * the largest models' parameter counts.  Products of such a count with element sizes and sums
 * over thousands of ranks stay within 64 bits, where a count near 2^64 would wrap.
 */
constexpr uint64_t kMaxByteCount = uint64_t(1) << 50;

/**
 * \ingroup ai-fabric
 * A DataRate checker with a lower bound (ns-3's own accepts any rate, 0 included, which a
 * link, a source or an accelerator cannot run at).
 *
 * \param min the smallest rate allowed
 * \returns the checker; its type information reads ">= min"
 */
Ptr<const AttributeChecker> MakeDataRateChecker(DataRate min);

/**
 * \ingroup ai-fabric
 * A TypeId checker that accepts only \p base and the types derived from it (ns-3's own accepts
 * any TypeId, so a congestion control could be set to ns3::Object).
 *
 * \param base the type every value must be, or derive from
 * \returns the checker; its type information reads "derived from <base>"
 */
Ptr<const AttributeChecker> MakeTypeIdChecker(TypeId base);

} // namespace ns3

#endif
