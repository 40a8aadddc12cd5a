// The scenario's own keys: name, description, seed and stop_time.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include "ns3/rng-seed-manager.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

ScenarioSection
ScenarioKeysSection()
{
    ScenarioSection section;
    section.keys = {"name", "description", "seed", "stop_time"};
    section.build = [](const json& doc, Scenario& s) {
        s.name = GetString(doc, "scenario", "name", s.name);
        s.seed = uint32_t(GetUnsigned(doc, "scenario", "seed", s.seed, 1, UINT32_MAX));
        RngSeedManager::SetSeed(s.seed);
        s.stopTime = GetTime(doc, "scenario", "stop_time", s.stopTime);
    };
    section.schemas = [](Scenario&) { return std::vector<SectionSchema>{}; };
    return section;
}

} // namespace aifabric
