// Reading one key of a scenario object: its type and range checked, or a ScenarioError that
// names the key, the value and what is allowed.
#ifndef AI_FABRIC_SCENARIO_KEYS_H
#define AI_FABRIC_SCENARIO_KEYS_H

#include "attribute-text.h"
#include "scenario.h"
#include "section-schema.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>

namespace aifabric
{

/** Throw the ScenarioError "key = value: allowed". */
[[noreturn]] void Fail(const std::string& key, const nlohmann::json& value,
                       const std::string& allowed);
/** Refuse keys of \p obj (which must be an object) not in \p allowed. */
void CheckKeys(const nlohmann::json& obj, const std::string& where,
               const std::set<std::string>& allowed);
/** "where.key". */
std::string Path(const std::string& where, const std::string& key);

/** \p key of \p obj, \p def if absent: a non-negative integer in [min, max]. */
uint64_t GetUnsigned(const nlohmann::json& obj, const std::string& where, const std::string& key,
                     uint64_t def, uint64_t min = 0, uint64_t max = UINT64_MAX);
/** The largest byte count a key takes (1 TiB). */
constexpr uint64_t kMaxBytes = uint64_t(1) << 40;
/** What a byte count key takes, for --print-keys: [1, kMaxBytes]. */
extern const char* const kBytesAllowed;
/**
 * A byte count: a non-negative integer, or a text with a unit ("64KiB", "1GiB", "4MB": B, KB,
 * MB, GB, TB by 1000, KiB, MiB, GiB, TiB by 1024) that comes to whole bytes; within [min, max].
 */
uint64_t GetBytes(const nlohmann::json& obj, const std::string& where, const std::string& key,
                  uint64_t def, uint64_t min, uint64_t max);
/** A number >= 0 (> 0 unless \p zeroAllowed). */
double GetNumber(const nlohmann::json& obj, const std::string& where, const std::string& key,
                 double def, bool zeroAllowed);
bool GetBool(const nlohmann::json& obj, const std::string& where, const std::string& key,
             bool def);
std::string GetString(const nlohmann::json& obj, const std::string& where,
                      const std::string& key, const std::string& def);
/** A duration in seconds (a double), for MTBFs beyond ns-3's clock; must be >= 0, or > 0. */
double GetSeconds(const nlohmann::json& obj, const std::string& where, const std::string& key,
                  double def, bool zeroAllowed);
/** A time >= 0 within ns-3's clock. */
ns3::Time GetTime(const nlohmann::json& obj, const std::string& where, const std::string& key,
                  ns3::Time def);
/** A time > 0. */
ns3::Time GetPositiveTime(const nlohmann::json& obj, const std::string& where,
                          const std::string& key, ns3::Time def);
/** A required host id below \p hosts. */
uint32_t GetHost(const nlohmann::json& obj, const std::string& where, const std::string& key,
                 uint32_t hosts);
/** A required link: its id (the link column of links.csv) or its name by its ends ("s0g0-l0"). */
uint32_t GetLink(const nlohmann::json& obj, const std::string& where, const std::string& key,
                 const ns3::FabricTopology& topology);

/** Parse \p text with the ns-3 value type \p V and \p checker, or fail naming \p key. */
template <typename V>
V
ParseValue(const std::string& key, const nlohmann::json& raw, const std::string& text,
           ns3::Ptr<const ns3::AttributeChecker> checker)
{
    V value;
    if (!ParseAttributeText(text, *checker, value))
    {
        Fail(key, raw, "allowed: " + AllowedText(*checker));
    }
    return value;
}

/** Key \p k of \p obj, its default if absent. */
uint64_t Get(const nlohmann::json& obj, const std::string& where, const IntegerKey& k);
/** Key \p k of \p obj, its default if absent; another word fails naming the allowed ones. */
std::string Get(const nlohmann::json& obj, const std::string& where, const WordKey& k);
/** Key \p k of \p obj (>= 0), its default if absent. */
ns3::Time Get(const nlohmann::json& obj, const std::string& where, const TimeKey& k);

/** Mark the queue-pair keys that moved from \p schema's section to the "rdma" section. */
SectionSchema& MovedRdmaKeys(SectionSchema& schema);

} // namespace aifabric

#endif
