#include "section-schema.h"

#include "attribute-text.h"
#include "scenario.h"

#include "ns3/abort.h"
#include "ns3/config.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"

#include <cctype>
#include <iomanip>
#include <sstream>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

std::map<std::string, TypeId>
FamilyMembers(TypeId base, const std::string& suffix)
{
    std::map<std::string, TypeId> members;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        std::string name = tid.GetName();
        if (tid == base || !tid.IsChildOf(base) || !tid.HasConstructor() ||
            name.rfind("ns3::", 0) != 0 || name.size() <= 5 + suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        {
            continue;
        }
        // Snake case, digits kept with their word: Ll128Protocol is "ll128".
        name = SectionSchema::SnakeCase(name.substr(5, name.size() - 5 - suffix.size()));
        for (std::size_t i = 1; i < name.size(); ++i)
        {
            if (name[i - 1] == '_' && std::isdigit(static_cast<unsigned char>(name[i])))
            {
                name.erase(--i, 1);
            }
        }
        members.emplace(name, tid);
    }
    return members;
}

std::string
JsonAttributeText(const json& v)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_boolean())
    {
        return v.get<bool>() ? "true" : "false";
    }
    if (v.is_number())
    {
        return v.dump();
    }
    return "\x01"; // never parses: objects and arrays are not attribute values
}

namespace
{
/** An attribute's default as a scenario would write it. */
std::string
DefaultText(const TypeId::AttributeInformation& info)
{
    if (const auto* time = dynamic_cast<const TimeValue*>(PeekPointer(info.initialValue)))
    {
        if (time->Get().IsZero())
        {
            return "0s";
        }
        std::ostringstream os;
        os << std::setprecision(12) << time->Get().As(Time::AUTO);
        std::string text = os.str();
        return text.front() == '+' ? text.substr(1) : text;
    }
    return info.initialValue->SerializeToString(info.checker);
}
} // namespace

SectionSchema::SectionSchema(std::string name)
    : m_name(std::move(name))
{
}

std::string
SectionSchema::SnakeCase(const std::string& attribute)
{
    std::string key;
    for (std::size_t i = 0; i < attribute.size(); ++i)
    {
        const auto c = static_cast<unsigned char>(attribute[i]);
        const auto prev = i ? static_cast<unsigned char>(attribute[i - 1]) : 0;
        const bool wordStart = (std::isupper(c) && std::islower(prev)) ||
                               (std::isdigit(c) && std::isalpha(prev));
        if (wordStart)
        {
            key += '_';
        }
        key += static_cast<char>(std::tolower(c));
    }
    return key;
}

void
SectionSchema::Add(Entry entry)
{
    NS_ABORT_MSG_IF(Find(entry.key), "section " << m_name << ": key " << entry.key << " twice");
    m_entries.push_back(std::move(entry));
}

SectionSchema&
SectionSchema::Bind(TypeId tid, Setter set, const std::set<std::string>& excluded)
{
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        const TypeId::AttributeInformation info = tid.GetAttribute(i);
        if (!(info.flags & TypeId::ATTR_SET) || excluded.count(info.name))
        {
            continue;
        }
        BindAs(SnakeCase(info.name), tid, info.name, set);
    }
    return *this;
}

SectionSchema&
SectionSchema::BindAs(const std::string& key, TypeId tid, const std::string& attribute, Setter set)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(attribute, &info),
                        tid.GetName() << " has no attribute " << attribute);
    Entry e;
    e.key = key;
    e.bound = true;
    e.tid = tid;
    e.attribute = attribute;
    e.set = std::move(set);
    e.allowed = AllowedText(*info.checker);
    e.defaultText = DefaultText(info);
    e.help = info.help + " (" + tid.GetName() + "::" + attribute + ")";
    Add(std::move(e));
    return *this;
}

SectionSchema&
SectionSchema::BindFamily(const std::string& key,
                          TypeId tid,
                          const std::string& attribute,
                          TypeId base,
                          const std::string& suffix,
                          Setter set,
                          bool pickedOtherwise)
{
    BindAs(key, tid, attribute, std::move(set));
    Entry& e = m_entries.back();
    TypeId::AttributeInformation info;
    tid.LookupAttributeByName(attribute, &info);
    e.family = FamilyMembers(base, suffix);
    const std::string initial = info.initialValue->SerializeToString(info.checker);
    e.allowed.clear();
    for (const auto& [name, member] : e.family)
    {
        e.allowed += (e.allowed.empty() ? "" : ", ") + name;
        e.defaultText = member.GetName() == initial ? name : e.defaultText;
    }
    e.help = info.help + " By name: a subclass ns3::<Name>" + suffix + " (" + tid.GetName() +
             "::" + attribute + ")";
    const auto family = e.family;
    const std::string chosen = pickedOtherwise ? "" : e.defaultText;
    for (const auto& [name, member] : family)
    {
        if (member.GetAttributeN() == 0)
        {
            continue;
        }
        Entry m;
        m.key = name;
        m.bound = true;
        m.familyKey = key;
        m.familyDefault = chosen;
        m.member = std::make_shared<SectionSchema>(m_name + "." + name);
        const std::string typeName = member.GetName();
        m.member->Bind(member, [typeName](const std::string& n, const AttributeValue& v) {
            Config::SetDefault(typeName + "::" + n, v);
        });
        m.allowed = "an object of the " + m_name + "." + name + ".* keys";
        m.defaultText = "{}";
        m.help =
            "The attributes of " + typeName + ", with " + key + " \"" + name + "\"" +
            (pickedOtherwise ? " or without " + key + " (when it is picked otherwise)." : " only.");
        Add(std::move(m));
    }
    return *this;
}

SectionSchema&
SectionSchema::Key(const std::string& key,
                   const std::string& allowed,
                   const std::string& defaultText,
                   const std::string& help)
{
    Entry e;
    e.key = key;
    e.allowed = allowed;
    e.defaultText = defaultText;
    e.help = help;
    Add(std::move(e));
    return *this;
}

SectionSchema&
SectionSchema::Key(const IntegerKey& k)
{
    return Key(k.key,
               "an integer in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]",
               std::to_string(k.def),
               k.help);
}

SectionSchema&
SectionSchema::Key(const WordKey& k)
{
    std::string words;
    for (const auto& w : k.words)
    {
        words += (words.empty() ? "" : ", ") + w;
    }
    return Key(k.key, words, k.def.empty() ? "required" : k.def, k.help);
}

SectionSchema&
SectionSchema::Key(const TimeKey& k)
{
    return Key(k.key, "a time with a unit, e.g. \"10us\"", k.def, k.help);
}

SectionSchema&
SectionSchema::Moved(const std::string& key, const std::string& to)
{
    Entry e;
    e.key = key;
    e.movedTo = to;
    Add(std::move(e));
    return *this;
}

const SectionSchema::Entry*
SectionSchema::Find(const std::string& key) const
{
    for (const Entry& e : m_entries)
    {
        if (e.key == key)
        {
            return &e;
        }
    }
    return nullptr;
}

void
SectionSchema::Apply(const json& section, const std::string& where) const
{
    const std::string w = where.empty() ? m_name : where;
    if (!section.is_object())
    {
        throw ScenarioError(w + " = " + section.dump() + ": must be an object");
    }
    for (const auto& [key, value] : section.items())
    {
        const Entry* e = Find(key);
        if (!e)
        {
            std::string list;
            for (const Entry& k : m_entries)
            {
                list += k.movedTo.empty() ? (list.empty() ? "" : ", ") + k.key : "";
            }
            throw ScenarioError(
                w + "." + key + " = " + value.dump() + ": unknown key; allowed in " + w + ": " +
                list + " (ai-fabric-run --print-keys=" + m_name.substr(0, m_name.find('.')) +
                " describes each)");
        }
        if (!e->movedTo.empty())
        {
            throw ScenarioError(w + "." + key + " = " + value.dump() + ": moved to " +
                                e->movedTo);
        }
        if (!e->bound)
        {
            continue; // the runner reads it
        }
        if (e->member)
        {
            const bool given = section.contains(e->familyKey);
            const json chosen = given ? section.at(e->familyKey) : json(e->familyDefault);
            if ((given || !e->familyDefault.empty()) && chosen != json(e->key))
            {
                throw ScenarioError(w + "." + key + " = " + value.dump() + ": applies with " + w +
                                    "." + e->familyKey + " \"" + e->key + "\" only (it is " +
                                    chosen.dump() + ")");
            }
            e->member->Apply(value, w + "." + key);
            continue;
        }
        if (!e->family.empty())
        {
            const auto member = value.is_string() ? e->family.find(value.get<std::string>())
                                                  : e->family.end();
            if (member == e->family.end())
            {
                throw ScenarioError(w + "." + key + " = " + value.dump() + ": allowed: " +
                                    e->allowed);
            }
            e->set(e->attribute, TypeIdValue(member->second));
            continue;
        }
        TypeId::AttributeInformation info;
        e->tid.LookupAttributeByName(e->attribute, &info);
        Ptr<AttributeValue> parsed = info.checker->Create();
        if (!ParseAttributeText(JsonAttributeText(value), *info.checker, *parsed))
        {
            throw ScenarioError(w + "." + key + " = " + value.dump() +
                                ": allowed: " + e->allowed + " (" + info.help + ")");
        }
        e->set(e->attribute, *parsed);
    }
}

void
SectionSchema::PrintKeys(std::ostream& os) const
{
    // A table cell's text may not hold the column separator.
    auto cell = [](const std::string& text) {
        std::string escaped;
        for (const char c : text)
        {
            escaped += c == '|' ? "\\|" : std::string(1, c);
        }
        return escaped;
    };
    for (const Entry& e : m_entries)
    {
        if (e.movedTo.empty())
        {
            os << "| `" << m_name << '.' << e.key << "` | " << cell(e.allowed) << " | `"
               << cell(e.defaultText) << "` | " << cell(e.help) << " |\n";
        }
        if (e.member)
        {
            e.member->PrintKeys(os);
        }
    }
}

} // namespace aifabric
