#include "attribute-text.h"

#include "ns3/nstime.h"
#include "ns3/pointer.h"

#include <cmath>
#include <map>
#include <regex>
#include <sstream>

using namespace ns3;

namespace aifabric
{

namespace
{

/** The checker's value type without the "ns3::" some of ns-3's checkers put in front. */
std::string
ValueType(const AttributeChecker& checker)
{
    const std::string name = checker.GetValueTypeName();
    return name.rfind("ns3::", 0) == 0 ? name.substr(5) : name;
}

bool
Matches(const std::string& text, const char* pattern)
{
    return std::regex_match(text, std::regex(pattern));
}

constexpr const char* kNumber = R"(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)";

/** Printable ASCII without spaces: what every non-string attribute text is made of. */
bool
IsOneWord(const std::string& text)
{
    if (text.empty())
    {
        return false;
    }
    for (unsigned char c : text)
    {
        if (c <= ' ' || c >= 0x7f)
        {
            return false;
        }
    }
    return true;
}

/** "ns3::Type[Name=value|...]": a type derived from \p base with valid attributes. */
bool
IsFactoryText(const std::string& text, TypeId base)
{
    static const std::regex factory(R"(^(ns3::[A-Za-z0-9_]+)(\[(.*)\])?$)");
    std::smatch m;
    TypeId tid;
    if (!std::regex_match(text, m, factory) || !TypeId::LookupByNameFailSafe(m[1].str(), &tid) ||
        !tid.HasConstructor() || !tid.IsChildOf(base))
    {
        return false;
    }
    std::istringstream attributes(m[3].str());
    std::string pair;
    while (m[2].matched && std::getline(attributes, pair, '|'))
    {
        const auto eq = pair.find('=');
        TypeId::AttributeInformation info;
        if (eq == std::string::npos || !tid.LookupAttributeByName(pair.substr(0, eq), &info) ||
            !ParseAttributeText(pair.substr(eq + 1), *info.checker, *info.checker->Create()))
        {
            return false;
        }
    }
    return true;
}

/** The text's syntax for its type, where ns-3 would abort on it or read it wrongly. */
bool
IsWellFormed(const std::string& text, const AttributeChecker& checker)
{
    // ns-3 3.37 copies every attribute value through its text and aborts on one it cannot
    // read whole: even a string may hold no white space.
    const std::string type = ValueType(checker);
    if (!IsOneWord(text))
    {
        return false;
    }
    if (type == "StringValue")
    {
        return true;
    }
    if (type == "UintegerValue")
    {
        return Matches(text, "[0-9]{1,20}");
    }
    if (type == "IntegerValue")
    {
        return Matches(text, "[+-]?[0-9]{1,19}");
    }
    if (type == "DoubleValue")
    {
        return Matches(text, (std::string("[+-]?") + kNumber).c_str());
    }
    if (type == "DataRateValue")
    {
        // A bare number would be bits per second: a unit is required.
        return Matches(text, (kNumber + std::string("[A-Za-z/]+")).c_str());
    }
    if (type == "TimeValue")
    {
        double seconds = 0;
        return TimeTextSeconds(text, seconds) && std::abs(seconds) < Time::Max().GetSeconds();
    }
    if (auto pointer = dynamic_cast<const PointerChecker*>(&checker))
    {
        return IsFactoryText(text, pointer->GetPointeeTypeId());
    }
    if (type == "TypeIdValue")
    {
        TypeId tid;
        return TypeId::LookupByNameFailSafe(text, &tid);
    }
    return true;
}

} // namespace

bool
TimeTextSeconds(const std::string& text, double& seconds)
{
    static const std::map<std::string, double> unit{{"s", 1},       {"ms", 1e-3}, {"us", 1e-6},
                                                    {"ns", 1e-9},   {"ps", 1e-12}, {"fs", 1e-15},
                                                    {"min", 60},    {"h", 3600},  {"d", 86400},
                                                    {"y", 31536000}};
    static const std::regex time(std::string("([+-]?") + kNumber + ")(s|ms|us|ns|ps|fs|min|h|d|y)");
    std::smatch m;
    if (!std::regex_match(text, m, time))
    {
        return false;
    }
    seconds = std::strtod(m[1].str().c_str(), nullptr) * unit.at(m[4]);
    return std::isfinite(seconds);
}

bool
ParseAttributeText(const std::string& text, const AttributeChecker& checker, AttributeValue& value)
{
    return IsWellFormed(text, checker) &&
           value.DeserializeFromString(text, Ptr<const AttributeChecker>(&checker)) &&
           checker.Check(value);
}

std::string
AllowedText(const AttributeChecker& checker)
{
    static const std::map<std::string, std::string> kinds{
        {"TimeValue", "a time with a unit (s, ms, us, ns, ps, min, h, d), e.g. \"2us\""},
        {"DataRateValue", "a rate with a unit (bps, Kbps, Mbps, Gbps; KB/s ... for bytes), "
                          "e.g. \"400Gbps\""},
        {"QueueSizeValue", "a size with a unit (B, KB, KiB, MB, MiB; p for packets), "
                           "e.g. \"32MiB\""},
        {"UintegerValue", "an integer"},
        {"IntegerValue", "an integer"},
        {"DoubleValue", "a number"},
        {"BooleanValue", "true or false"},
        {"StringValue", "a word (no white space)"},
        {"TypeIdValue", "a type name"},
        {"PointerValue", "a type name with attributes, \"ns3::Type[Name=value|Name=value]\""},
        {"EnumValue", "one of"},
    };
    const std::string type = ValueType(checker);
    std::string allowed = kinds.count(type) ? kinds.at(type) : type;
    if (checker.HasUnderlyingTypeInformation())
    {
        // ns-3 writes a number's range as "<C++ type> <min>:<max>".
        const std::string info = checker.GetUnderlyingTypeInformation();
        const auto space = info.find(' ');
        const auto colon = info.find(':', space == std::string::npos ? 0 : space);
        const bool ranged = space != std::string::npos && colon != std::string::npos;
        const std::string min = ranged ? info.substr(space + 1, colon - space - 1) : "";
        if (ranged && (type == "UintegerValue" || type == "IntegerValue" || type == "DoubleValue"))
        {
            allowed += " in [" + min + ", " + info.substr(colon + 1) + "]";
        }
        else if (ranged && type == "TimeValue")
        {
            // Its maximum is the clock's end; only a positive minimum says anything.
            const Time least(min);
            if (min.front() != '-' && least.IsStrictlyPositive()) // Time::Min() reads back positive
            {
                std::ostringstream os;
                os << least.As(Time::AUTO);
                allowed += ", >= " + os.str().substr(os.str().front() == '+' ? 1 : 0);
            }
        }
        else if (type == "DataRateValue" || type == "EnumValue" || type == "TypeIdValue")
        {
            allowed += " " + info; // a rate's minimum, an enum's names, a type's base
        }
    }
    return allowed;
}

} // namespace aifabric
