#include "range-checkers.h"

#include <functional>
#include <string>

namespace ns3
{

namespace
{

/** A checker of ns-3's value type \p V (checker base \p Base) that accepts what \p accept does. */
template <typename V, typename Base>
class BoundedChecker : public Base
{
  public:
    BoundedChecker(std::function<bool(const V&)> accept, std::string type, std::string info)
        : m_accept(std::move(accept)),
          m_type(std::move(type)),
          m_info(std::move(info))
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const V* v = dynamic_cast<const V*>(&value);
        return v && m_accept(*v);
    }

    std::string GetValueTypeName() const override
    {
        return m_type;
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return m_info;
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<V>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const V* src = dynamic_cast<const V*>(&source);
        V* dst = dynamic_cast<V*>(&destination);
        if (!src || !dst)
        {
            return false;
        }
        *dst = *src;
        return true;
    }

  private:
    std::function<bool(const V&)> m_accept;
    std::string m_type;
    std::string m_info;
};

} // namespace

Ptr<const AttributeChecker>
MakeDataRateChecker(DataRate min)
{
    return Ptr<const AttributeChecker>(
        new BoundedChecker<DataRateValue, DataRateChecker>(
            [min](const DataRateValue& v) { return v.Get() >= min; },
            "DataRateValue",
            ">= " + std::to_string(min.GetBitRate()) + "bps"),
        false);
}

Ptr<const AttributeChecker>
MakeTypeIdChecker(TypeId base)
{
    return Ptr<const AttributeChecker>(
        new BoundedChecker<TypeIdValue, TypeIdChecker>(
            [base](const TypeIdValue& v) { return v.Get().IsChildOf(base); },
            "TypeIdValue",
            "derived from " + base.GetName()),
        false);
}

} // namespace ns3
