// The sections of a scenario file: each reads its keys into the Scenario and lists them for
// --print-keys.  BuildScenario reads them in the order of Sections(); each lives in its own file
// in sections/.
#ifndef AI_FABRIC_SCENARIO_SECTIONS_H
#define AI_FABRIC_SCENARIO_SECTIONS_H

#include "scenario.h"
#include "section-schema.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace aifabric
{

/** One part of a scenario file: the top-level keys it reads and how. */
struct ScenarioSection
{
    /** Its top-level keys. */
    std::vector<std::string> keys;
    /**
     * Read its keys of \p doc into \p s (called whether or not they are present: a section may
     * be required, or have rules about others, which earlier sections have read already).
     */
    void (*build)(const nlohmann::json& doc, Scenario& s);
    /** Its keys for --print-keys (bound to \p s, which is then discarded); may be empty. */
    std::vector<SectionSchema> (*schemas)(Scenario& s);
};

/** name, description, seed, stop_time (sections/scenario.cc). */
ScenarioSection ScenarioKeysSection();
/** topology (sections/topology.cc). */
ScenarioSection TopologySection();
/** switch, port, routing, accelerator, rdma: model attributes only (sections/attributes.cc). */
ScenarioSection NetworkSection();
/** traffic (sections/traffic.cc). */
ScenarioSection TrafficSection();
/** collective (sections/collective.cc). */
ScenarioSection CollectiveSection();
/** training (sections/training.cc). */
ScenarioSection TrainingSection();
/** link_events (sections/link-events.cc). */
ScenarioSection LinkEventsSection();
/** failures (sections/failures.cc). */
ScenarioSection FailuresSection();
/** availability (sections/availability.cc). */
ScenarioSection AvailabilitySection();
/** prices, monitor: model attributes only (sections/attributes.cc). */
ScenarioSection OutputSection();
/** pcap (sections/pcap.cc). */
ScenarioSection PcapSection();
/** No keys: the rules between sections, once all are read (sections/rules.cc). */
ScenarioSection RulesSection();

/** Every section, in the order BuildScenario reads them. */
const std::vector<ScenarioSection>& Sections();

} // namespace aifabric

#endif
