// The keys of a scenario section, generated from the model's attributes: one home for each
// key's name, type, range, default and help.
#ifndef AI_FABRIC_SECTION_SCHEMA_H
#define AI_FABRIC_SECTION_SCHEMA_H

#include "ns3/attribute.h"
#include "ns3/type-id.h"

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * The members of a family: every registered TypeId derived from \p base with a constructor,
 * by its name in snake_case without "ns3::" and \p suffix ("ns3::FatTreeTopologyHelper" with
 * suffix "TopologyHelper" is "fat_tree").  Adding a member is adding its file pair.
 */
std::map<std::string, ns3::TypeId> FamilyMembers(ns3::TypeId base, const std::string& suffix);

/** A JSON value as attribute text: strings as they are, numbers and booleans as written. */
std::string JsonAttributeText(const nlohmann::json& value);

/**
 * A key the runner reads itself that takes a whole number: its range, default and help in one
 * place, for SectionSchema::Key and for reading it (scenario-keys.h's Get).
 */
struct IntegerKey
{
    std::string key;
    uint64_t def;
    uint64_t min;
    uint64_t max;
    std::string help;
};

/** A key the runner reads itself that takes one of \c words (its default, \c def, among them). */
struct WordKey
{
    std::string key;
    std::vector<std::string> words;
    std::string def;
    std::string help;
};

/** A key the runner reads itself that takes a time with a unit (\c def as ns-3 writes one). */
struct TimeKey
{
    std::string key;
    std::string def;
    std::string help;
};

/**
 * The keys of one scenario section.  A bound TypeId gives every settable attribute as a key
 * named in snake_case ("BufferSize" is "buffer_size"), read with the attribute's checker and
 * described by its default and help text; keys the runner reads itself are declared with what
 * they allow.  Apply refuses a key the section does not have, naming those it has.
 */
class SectionSchema
{
  public:
    /** Sets attribute \p name of the objects the section configures. */
    using Setter = std::function<void(const std::string& name, const ns3::AttributeValue& value)>;

    /** The schema of section \p name, e.g. "switch". */
    explicit SectionSchema(std::string name);

    /** Every settable attribute of \p tid, except \p excluded, as a key applied by \p set. */
    SectionSchema& Bind(ns3::TypeId tid, Setter set, const std::set<std::string>& excluded = {});
    /** Attribute \p attribute of \p tid under another key, \p key (applied by \p set). */
    SectionSchema& BindAs(const std::string& key,
                          ns3::TypeId tid,
                          const std::string& attribute,
                          Setter set);
    /**
     * A TypeId attribute \p attribute of \p tid chosen by family member name: key \p key
     * takes the name of a registered subclass of \p base (FamilyMembers(base, suffix)) and
     * \p set gets its TypeIdValue, so adding a member is adding its file pair.  Each member
     * with attributes of its own has a key of its name, an object of those attributes' keys
     * (e.g. rdma.hpcc.base_rtt), applied as the member's attribute defaults
     * (Config::SetDefault, for the process: the runner reads one scenario) and refused
     * unless \p key names that member, or, without \p key, the default does; with
     * \p pickedOtherwise, members may be picked without \p key (an auto algorithm picks
     * protocols), and each member's keys are taken then.
     */
    SectionSchema& BindFamily(const std::string& key,
                              ns3::TypeId tid,
                              const std::string& attribute,
                              ns3::TypeId base,
                              const std::string& suffix,
                              Setter set,
                              bool pickedOtherwise = false);
    /** A key the runner reads itself: what it allows, its default and help, for PrintKeys. */
    SectionSchema& Key(const std::string& key,
                       const std::string& allowed,
                       const std::string& defaultText,
                       const std::string& help);
    /** Key \p k: "an integer in [min, max]", its default. */
    SectionSchema& Key(const IntegerKey& k);
    /** Key \p k: its words, its default. */
    SectionSchema& Key(const WordKey& k);
    /** Key \p k: "a time with a unit", its default. */
    SectionSchema& Key(const TimeKey& k);
    /** A key that moved to \p to: a scenario that uses it is told where it went. */
    SectionSchema& Moved(const std::string& key, const std::string& to);

    /**
     * Refuse \p section unless it is an object of this schema's keys, then parse and set every
     * bound key it has (at \p where, default the section's name).  Throws ScenarioError naming
     * the key, its value and what is allowed.
     */
    void Apply(const nlohmann::json& section, const std::string& where = "") const;
    /** One Markdown table row per key: key, allowed values, default, help. */
    void PrintKeys(std::ostream& os) const;

    const std::string& GetName() const { return m_name; }
    /** "EcnKminPer25G" is "ecn_kmin_per_25g". */
    static std::string SnakeCase(const std::string& attribute);

  private:
    struct Entry
    {
        std::string key;
        bool bound{false};
        ns3::TypeId tid;
        std::string attribute;
        Setter set;
        std::string allowed;
        std::string defaultText;
        std::string help;
        std::string movedTo; //!< non-empty: the key moved there
        std::map<std::string, ns3::TypeId> family; //!< non-empty: a family key's members
        /** A family member's own keys (its name is the key); \c familyKey chooses it. */
        std::shared_ptr<SectionSchema> member;
        std::string familyKey;
        std::string familyDefault; //!< the member chosen without the key ("": any may be)
    };
    const Entry* Find(const std::string& key) const;
    void Add(Entry entry);

    std::string m_name;
    std::vector<Entry> m_entries;
};

} // namespace aifabric

#endif
