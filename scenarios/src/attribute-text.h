// Attribute values from user text, checked before ns-3 sees them: ns-3 3.37 aborts on text it
// cannot read whole (a space, a trailing character, a letter in a number), and reads a negative
// number into an unsigned attribute modulo 2^64.
#ifndef AI_FABRIC_ATTRIBUTE_TEXT_H
#define AI_FABRIC_ATTRIBUTE_TEXT_H

#include "ns3/attribute.h"

#include <string>

namespace aifabric
{

/**
 * Parse \p text into \p value with \p checker's type and range; false (never an abort) when
 * it is not a whole valid value.  Besides ns-3's own parsing and range check: no text may hold
 * white space or control characters (ns-3 3.37 aborts on a string value that does); an
 * integer is digits (no sign for an unsigned one); a time and a rate need a unit, and a time must fit ns-3's clock; a factory text
 * ("ns3::Type[Name=value|...]") names a type derived from the pointee with valid attributes.
 */
bool ParseAttributeText(const std::string& text,
                        const ns3::AttributeChecker& checker,
                        ns3::AttributeValue& value);

/** What \p checker accepts, for an error message: the kind of text, its unit and range. */
std::string AllowedText(const ns3::AttributeChecker& checker);

/**
 * The seconds a time text with a unit ("5h", "1e6h", "30d") stands for, without ns-3's clock's
 * limit; false unless \p text is a finite number followed by one of s, ms, us, ns, ps, fs, min,
 * h, d, y.
 */
bool TimeTextSeconds(const std::string& text, double& seconds);

} // namespace aifabric

#endif
