// The scenario's own keys: name, description, seed and stop_time.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include "ns3/rng-seed-manager.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

const WordKey kFidelity{
    "fidelity", {"packet", "flow", "collective"}, "packet",
    "packet: every frame through the fabric's queues, PFC, ECN and congestion control; flow: "
    "every transfer a flow at its max-min fair share of the links on its path, on the same "
    "topology, routes, ECMP hashes, collectives and jobs, without queues, PFC, ECN, "
    "congestion control or loss; collective: flow, with each pipelined collective (ring, "
    "tree, NVLS, NVLS-tree, PXN, DeepEP) in its steady state, a flow per connection for its whole "
    "length, ending no sooner than its critical path (the step-by-step chain of transfers "
    "at static shares and latencies), for jobs of thousands of GPUs (the module "
    "chapter, Flow fidelity).  --fidelity on the command line wins."};

const IntegerKey kSeed{"seed", 1, 1, UINT32_MAX,
                       "The run's seed: every random stream (RngSeedManager) and the ECMP hash "
                       "seeds."};

/** The scenario's own keys, for --print-keys (the dispatcher checks the top level's keys). */
SectionSchema
ScenarioSchema()
{
    const Scenario defaults;
    SectionSchema schema("scenario");
    schema.Key("name", "a string", defaults.name, "Named in the log and summary.json.")
        .Key("description", "a string", "none", "For the reader; echoed in summary.json.")
        .Key("server", ServerPreset::Names(), "none: the attributes' defaults",
             "A DGX/HGX-class server preset: 8 GPUs per server, NVLink and NIC rates "
             "(topology) and the accelerator's HBM and FLOP rates, each from its cited source "
             "(the module chapter, Server presets); keys the scenario gives win.  Without it "
             "the rates are an HGX H100's and GPUs per server the topology's default.")
        .Key(kSeed)
        .Key(kFidelity)
        .Key("stop_time", "a time with a unit", "until every event is done",
             "When the simulation stops (required with random failures, which never end).");
    return schema;
}

} // namespace

ScenarioSection
ScenarioKeysSection()
{
    ScenarioSection section;
    section.keys = {"name", "description", "server", "seed", "fidelity", "stop_time"};
    section.build = [](const json& doc, Scenario& s) {
        s.name = GetString(doc, "scenario", "name", s.name);
        if (doc.contains("server"))
        {
            const std::string server = GetString(doc, "scenario", "server", "");
            try
            {
                s.server = &ServerPreset::Get(server);
            }
            catch (const std::invalid_argument&)
            {
                Fail("scenario.server", doc.at("server"), "allowed: " + ServerPreset::Names());
            }
        }
        s.seed = uint32_t(Get(doc, "scenario", kSeed));
        RngSeedManager::SetSeed(s.seed);
        s.stopTime = GetTime(doc, "scenario", "stop_time", s.stopTime);
        s.fidelity = Get(doc, "scenario", kFidelity);
        s.flowLevel = s.fidelity != "packet";
        s.rdmaHelper.SetFlowLevel(s.flowLevel);
        s.rdmaHelper.SetSteadyStateCollectives(s.fidelity == "collective");
    };
    section.schemas = [](Scenario&) { return std::vector<SectionSchema>{ScenarioSchema()}; };
    return section;
}

} // namespace aifabric
