// The "training" section: a list of jobs, each a TrainingJob with its placement.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include "ns3/boolean.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/transformer-model.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** The placement policies: JobPlacement's family by name (PackedPlacement is "packed"). */
std::map<std::string, TypeId>
Placements()
{
    return FamilyMembers(JobPlacement::GetTypeId(), "Placement");
}

WordKey
PlacementKey()
{
    std::vector<std::string> words;
    for (const auto& [name, tid] : Placements())
    {
        words.push_back(name);
    }
    return {"placement", words, "packed",
            "The JobPlacement policy: packed: free GPUs in order, so a tensor-parallel group "
            "shares a server; scattered: a seeded random choice; map: placement_map's file "
            "(with placement_map, placement may be left out)."};
}
const IntegerKey kTimelineMaxSpans{"timeline_max_spans", 1000000, 0, 1000000000000,
                                   "Larger runs skip timeline.json."};
constexpr bool kChakraTraces = false;

/** The training section's own keys. */
SectionSchema
TrainingSchema()
{
    SectionSchema schema("training");
    schema.Key("jobs", "a list of job objects (training.jobs)", "required", "The jobs to run.")
        .Key(kTimelineMaxSpans)
        .Key("chakra_traces", "true or false", kChakraTraces ? "true" : "false",
             "Also write each job's iteration as MLCommons Chakra execution traces: "
             "trace-<job>.<rank>.et and trace-<job>.groups.json in the results folder (a "
             "job's trace and process_groups keys run them).");
    return MovedRdmaKeys(schema);
}

/** The keys of a job's model: TransformerModel's attributes. */
SectionSchema
ModelSchema(const SectionSchema::Setter& set)
{
    SectionSchema schema("training.jobs.model");
    schema.Bind(TransformerModel::GetTypeId(), set)
        .Key("description", "text", "\"\"",
             "What the model is and where its figures come from (not read).");
    return schema;
}

/**
 * Job \p j's model, if it has one: its "model" key, an object of model keys or the name of a
 * file holding one (shipped presets: scenarios/models/).
 */
Ptr<TransformerModel>
ReadModel(const json& j, const std::string& wj)
{
    if (!j.contains("model"))
    {
        return nullptr;
    }
    const std::string wm = Path(wj, "model");
    json m = j.at("model");
    std::string origin = wm;
    if (m.is_string())
    {
        const std::string path = m.get<std::string>();
        std::ifstream in(path);
        if (path.empty() || !in)
        {
            Fail(wm, m, "cannot read the file (a model file, e.g. scenarios/models/llama3-8b.json, "
                        "or an object of model keys)");
        }
        std::stringstream text;
        text << in.rdbuf();
        m = ParseScenarioText(text.str(), path);
        origin = path;
    }
    if (!m.is_object())
    {
        Fail(wm, m, "an object of model keys or the name of a file holding one");
    }
    ObjectFactory factory(TransformerModel::GetTypeId().GetName());
    ModelSchema([&](const std::string& n, const AttributeValue& v) { factory.Set(n, v); })
        .Apply(m, origin);
    Ptr<TransformerModel> model = factory.Create<TransformerModel>();
    try
    {
        model->Check();
    }
    catch (const std::invalid_argument& e)
    {
        Fail(origin == wm ? wm : wm + " (" + origin + ")", m, e.what());
    }
    return model;
}

/** The keys of a training job object: TrainingJob's attributes and how it is placed. */
SectionSchema
JobSchema(const SectionSchema::Setter& set)
{
    SectionSchema schema("training.jobs");
    schema
        .Key("name", "1 to 64 letters, digits, '_', '-' or '.'", "job<index> (job0, job1, ...)",
             "The job's name in results (TrainingJob::Name); names must differ.")
        .Bind(TrainingJob::GetTypeId(), set, {"Name", "Model"}) // named by its index unless given
        .Key("model", "a file of model keys (training.jobs.model) or an object of them", "none",
             "The transformer the job trains (TrainingJob::Model): its layers, parameters, "
             "activations and compute follow from it.  Presets: scenarios/models/.")
        .Key(PlacementKey())
        .Key("placement_map", "a file of \"rank gpu\" lines (GPUs by name, e.g. s3g5, or host id)",
             "none", "The map placement's file (MapPlacement::File), rank by rank.")
        .Key("server_slowdown", "an object of server index -> factor >= 1", "{}",
             "Compute slowdown of every GPU of the given servers, e.g. {\"3\": 1.5}.")
        .Key("algorithms", "an object of tensor, expert, data, pipeline -> algorithm name",
             "auto", "The collective algorithm of each parallel axis (data: the dense "
             "gradients' EP x DP groups and the experts' DP groups alike).")
        .Moved("overlap", "overlap_gradient_reduction");
    return schema;
}

/** The "training" section: each job of "jobs". */
void
BuildTraining(const json& doc, Scenario& s)
{
    const std::string w = "training";
    if (!doc.contains(w))
    {
        return;
    }
    const json& t = doc.at(w);
    TrainingSchema().Apply(t);
    if (doc.contains("collective"))
    {
        Fail(w, t, "not with a \"collective\" sweep in the same scenario (use \"traffic\" for "
                   "background load)");
    }
    s.training.timelineMaxSpans = Get(t, w, kTimelineMaxSpans);
    s.training.chakraTraces = GetBool(t, w, "chakra_traces", kChakraTraces);
    if (!t.contains("jobs") || !t.at("jobs").is_array() || t.at("jobs").empty())
    {
        Fail(Path(w, "jobs"), t.contains("jobs") ? t.at("jobs") : json(nullptr),
             "required: an array of at least one job object");
    }
    s.hasTraining = true;
    std::set<std::string> names;
    const json& jobs = t.at("jobs");
    for (std::size_t i = 0; i < jobs.size(); ++i)
    {
        const json& j = jobs[i];
        const std::string wj = w + ".jobs[" + std::to_string(i) + "]";
        TrainingJobHelper helper;
        ObjectFactory job(TrainingJob::GetTypeId().GetName());
        JobSchema([&](const std::string& n, const AttributeValue& v) {
            helper.SetJobAttribute(n, v);
            job.Set(n, v);
        }).Apply(j, wj);
        const std::string name = GetString(j, wj, "name", "job" + std::to_string(i));
        // Names go into CSV rows and the timeline as they are: plain words only.
        if (!std::regex_match(name, std::regex("[A-Za-z0-9_.-]{1,64}")))
        {
            Fail(Path(wj, "name"), j.at("name"),
                 "1 to 64 letters, digits, '_', '-' or '.' (no spaces, quotes or commas)");
        }
        if (!names.insert(name).second)
        {
            Fail(Path(wj, "name"), json(name), "another job has this name; names must differ");
        }
        helper.SetJobAttribute("Name", StringValue(name));
        job.Set("Name", StringValue(name));
        // The model gives these; without one, those keys have nothing to apply to.
        const char* given[] = {"compute_time", "flops", "layers", "moe_layers", "expert_top_k",
                               "parameters", "expert_parameters", "activation_bytes",
                               "samples_per_iteration", "tokens_per_sample"};
        const char* modelOnly[] = {"micro_batch_size", "activation_element_bytes", "precision",
                                   "first_stage_layers", "last_stage_layers"};
        for (const char* key : given)
        {
            if (j.contains("model") && j.contains(key))
            {
                Fail(Path(wj, key), j.at(key), "given by the job's model; leave it out");
            }
        }
        // A trace gives the whole iteration.
        const char* iteration[] = {"model", "compute_time", "flops", "backward_ratio",
                                   "optimizer_time", "parameters", "expert_parameters",
                                   "layers", "micro_batches",
                                   "activation_bytes", "moe_layers", "expert_top_k",
                                   "bucket_bytes", "overlap_gradient_reduction",
                                   "sequence_parallel", "distributed_optimizer",
                                   "fully_sharded", "first_stage_layers", "last_stage_layers",
                                   "virtual_stages", "recompute", "precision"};
        for (const char* key : iteration)
        {
            if (j.contains("trace") && j.contains(key))
            {
                Fail(Path(wj, key), j.at(key), "given by the job's trace; leave it out");
            }
        }
        if (j.contains("virtual_stages") && j.at("virtual_stages") != 1 &&
            s.training.chakraTraces)
        {
            Fail(Path(w, "chakra_traces"), t.at("chakra_traces"),
                 "writes send and receive nodes between adjacent stages only; job " +
                     std::to_string(i) + " interleaves its stages (virtual_stages), passing "
                     "from the last to the first");
        }
        if (j.contains("trace") && s.training.chakraTraces)
        {
            Fail(Path(w, "chakra_traces"), t.at("chakra_traces"),
                 "writes the programs of jobs described by their numbers or model; job " +
                     std::to_string(i) + " runs a trace already");
        }
        if (j.contains("process_groups") && !j.contains("trace"))
        {
            Fail(Path(wj, "process_groups"), j.at("process_groups"), "applies only with a \"trace\"");
        }
        for (const char* key : modelOnly)
        {
            if (!j.contains("model") && j.contains(key))
            {
                Fail(Path(wj, key), j.at(key), "applies only with a \"model\"");
            }
        }
        BooleanValue zero;
        BooleanValue fsdp;
        job.Create<TrainingJob>()->GetAttribute("DistributedOptimizer", zero);
        job.Create<TrainingJob>()->GetAttribute("FullySharded", fsdp);
        if (j.contains("parameter_element_bytes") && !zero.Get() && !fsdp.Get() &&
            !j.contains("trace"))
        {
            Fail(Path(wj, "parameter_element_bytes"), j.at("parameter_element_bytes"),
                 "applies only with \"distributed_optimizer\" or \"fully_sharded\": true");
        }
        if (Ptr<TransformerModel> model = ReadModel(j, wj))
        {
            helper.SetJobAttribute("Model", PointerValue(model));
            job.Set("Model", PointerValue(model));
        }
        if (!j.contains("ranks"))
        {
            Fail(Path(wj, "ranks"), json(nullptr), "required: the job's number of GPUs");
        }
        try
        {
            job.Create<TrainingJob>()->Check();
        }
        catch (const std::invalid_argument& e)
        {
            Fail(wj, j, e.what());
        }
        const bool mapGiven = j.contains("placement_map");
        const std::string placement =
            mapGiven && !j.contains("placement") ? "map" : Get(j, wj, PlacementKey());
        if ((placement == "map") != mapGiven)
        {
            mapGiven ? Fail(Path(wj, "placement_map"), j.at("placement_map"),
                            "the map placement's file; not with placement \"" + placement + "\"")
                     : Fail(Path(wj, "placement_map"), json(nullptr),
                            "required with placement \"map\": a file of \"rank gpu\" lines");
        }
        ObjectFactory factory;
        factory.SetTypeId(Placements().at(placement));
        const std::string path = mapGiven ? GetString(j, wj, "placement_map", "") : "";
        if (mapGiven && path.empty())
        {
            Fail(Path(wj, "placement_map"), j.at("placement_map"), "a file name, not empty");
        }
        try
        {
            if (mapGiven)
            {
                factory.Set("File", StringValue(path)); // read here
            }
            helper.SetPlacement(factory.Create<JobPlacement>());
        }
        catch (const std::invalid_argument& e)
        {
            Fail(Path(wj, "placement_map"), j.at("placement_map"), e.what());
        }
        s.training.placements.push_back(mapGiven ? "map " + path : placement);
        if (j.contains("server_slowdown"))
        {
            const std::string ws = Path(wj, "server_slowdown");
            const json& o = j.at("server_slowdown");
            if (!o.is_object())
            {
                Fail(ws, o, "must be an object of server index -> slowdown factor");
            }
            uint32_t servers = 0;
            for (uint32_t h = 0; h < s.topology.GetNHosts(); ++h)
            {
                servers = std::max(servers, s.topology.GetNode(s.topology.HostNode(h)).server + 1);
            }
            for (const auto& [server, factor] : o.items())
            {
                const bool digits = !server.empty() && server.size() < 10 &&
                                    server.find_first_not_of("0123456789") == std::string::npos;
                if (!digits || std::stoul(server) >= servers)
                {
                    Fail(Path(ws, server), factor,
                         "keys must be server indices 0-" + std::to_string(servers - 1));
                }
                const double f = GetNumber(o, ws, server, 1, false);
                helper.SetServerSlowdown(static_cast<uint32_t>(std::stoul(server)), f);
            }
        }
        if (j.contains("algorithms"))
        {
            const std::string wa = Path(wj, "algorithms");
            const json& a = j.at("algorithms");
            CheckKeys(a, wa, {"tensor", "expert", "data", "pipeline"});
            const std::pair<const char*, ParallelAxis> axes[] = {
                {"tensor", ParallelAxis::TENSOR},
                {"expert", ParallelAxis::EXPERT},
                {"data", ParallelAxis::DATA},
                {"pipeline", ParallelAxis::PIPELINE}};
            for (const auto& [key, axis] : axes)
            {
                if (!a.contains(key))
                {
                    continue;
                }
                try
                {
                    helper.SetAlgorithm(axis, CollectiveAlgorithm::Create(GetString(a, wa, key, "")));
                }
                catch (const std::invalid_argument& e)
                {
                    Fail(Path(wa, key), a.at(key), e.what());
                }
            }
        }
        s.training.jobs.push_back(helper);
    }
}

} // namespace

ScenarioSection
TrainingSection()
{
    ScenarioSection section;
    section.keys = {"training"};
    section.build = &BuildTraining;
    section.schemas = [](Scenario&) {
        return std::vector<SectionSchema>{
            TrainingSchema(),
            JobSchema([](const std::string&, const AttributeValue&) {}),
            ModelSchema([](const std::string&, const AttributeValue&) {})};
    };
    return section;
}

} // namespace aifabric
