// The "collective" section: one operation swept over sizes, nccl-tests style.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include <sstream>

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** The operation, by nccl-tests' name. */
WordKey
OpKey()
{
    std::vector<std::string> words;
    std::istringstream names(CollectiveOperationNames());
    for (std::string name; std::getline(names >> std::ws, name, ',');)
    {
        words.push_back(name);
    }
    return {"op", words, "allreduce", "The collective operation."};
}

/** The algorithm: a registered CollectiveAlgorithm's name. */
WordKey
AlgorithmKey()
{
    return {"algorithm", CollectiveAlgorithm::GetNames(), "auto",
            "How the collective is scheduled."};
}

const IntegerKey kFactor{"factor", 2, 2, 1024, "Each size of the sweep over the last."};
const IntegerKey kIterations{"iterations", 1, 1, 1000, "Timed runs of each size (nccl-tests -n)."};
const IntegerKey kWarmup{"warmup_iterations", 0, 0, 1000,
                         "Untimed runs of each size before the timed ones (nccl-tests -w, whose "
                         "default is 1): queue pairs connect and congestion control settles in "
                         "them."};
const WordKey kLaunch{"launch", {"barrier", "stream"}, "barrier",
                      "barrier: each run starts when every rank finished the last; stream: "
                      "queued back to back on every rank."};
const IntegerKey kTimelineMaxSteps{"timeline_max_steps", 1000000, 0, 1000000000000,
                                   "Larger runs skip timeline.json."};
/** The sweep's first size unless given. */
constexpr uint64_t kMinBytes = 8;

/** One collective size, \p key of \p c, which must be a whole multiple of \p quantum. */
uint64_t
SingleCollectiveSize(const json& c, const std::string& w, const char* key, uint64_t quantum)
{
    const uint64_t bytes = GetBytes(c, w, key, 0, 1, kMaxBytes);
    if (bytes % quantum != 0)
    {
        Fail(Path(w, key), c.at(key),
             "must be a multiple of " + std::to_string(quantum) +
                 " B (4 B float elements, and one piece per rank where the operation needs it)");
    }
    return bytes;
}

/** The sizes of collective section \p c: "bytes", or "min_bytes" .. "max_bytes" by "factor". */
std::vector<uint64_t>
CollectiveSizes(const json& c, const std::string& w, uint64_t quantum, std::string& note)
{
    const uint64_t limit = kMaxBytes;
    if (c.contains("bytes"))
    {
        for (const char* key : {"min_bytes", "max_bytes", "factor"})
        {
            if (c.contains(key))
            {
                Fail(Path(w, key), c.at(key), "not with \"bytes\" (one size or a sweep)");
            }
        }
        return {SingleCollectiveSize(c, w, "bytes", quantum)};
    }
    const uint64_t lo = GetBytes(c, w, "min_bytes", kMinBytes, 1, limit);
    const uint64_t hi = GetBytes(c, w, "max_bytes", lo, lo, limit);
    if (lo == hi)
    {
        return {SingleCollectiveSize(c, w, "min_bytes", quantum)}; // one size: no rounding
    }
    const uint64_t factor = Get(c, w, kFactor);
    std::vector<uint64_t> sizes;
    for (uint64_t n = lo; n <= hi; n *= factor)
    {
        // nccl-tests rounds each size down to whole elements (per rank where needed).
        const uint64_t rounded = n / quantum * quantum;
        if (rounded != n)
        {
            note = "sizes rounded down to a multiple of " + std::to_string(quantum) + " B";
        }
        if (rounded > 0 && (sizes.empty() || sizes.back() != rounded))
        {
            sizes.push_back(rounded);
        }
    }
    if (sizes.empty())
    {
        Fail(Path(w, "max_bytes"), c.at("max_bytes"),
             "the sweep has no size of at least " + std::to_string(quantum) + " B");
    }
    return sizes;
}

/**
 * The collective section's keys: the sweep's, the algorithm's attributes (\p algorithm, applied
 * by \p set) and the group's (CollectiveGroup, applied by \p groupSet).
 */
SectionSchema
CollectiveSchema(TypeId algorithm, const SectionSchema::Setter& set,
                 const SectionSchema::Setter& groupSet)
{
    SectionSchema schema("collective");
    schema.Key(OpKey())
        .Key(AlgorithmKey())
        .Key("bytes", kBytesAllowed, "none",
             "One size (per rank's buffer, as nccl-tests counts it).")
        .Key("min_bytes", kBytesAllowed, std::to_string(kMinBytes), "The sweep's first size.")
        .Key("max_bytes", kBytesAllowed, "min_bytes", "The sweep's last size.")
        .Key(kFactor)
        .Key("ranks", "an integer in [2, hosts]", "every host", "Ranks on hosts 0..ranks-1.")
        .Key("root", "an integer in [0, ranks - 1]", "0", "The root of broadcast and reduce.")
        .Key(kIterations)
        .Key(kWarmup)
        .Key(kLaunch)
        .Key(kTimelineMaxSteps)
        .BindFamily("protocol", CollectiveAlgorithm::GetTypeId(), "Protocol",
                    CollectiveProtocol::GetTypeId(), "Protocol", set,
                    // auto picks protocols per size: each one's keys apply without the key
                    algorithm == AutoCollectiveAlgorithm::GetTypeId())
        .Bind(algorithm, set)
        .Bind(CollectiveGroup::GetTypeId(), groupSet)
        .Moved("priority", "rdma.priority");
    return MovedRdmaKeys(schema);
}

/** The "collective" section. */
void
BuildCollective(const json& doc, Scenario& s)
{
    const std::string w = "collective";
    if (!doc.contains(w))
    {
        return;
    }
    const json& c = doc.at(w);
    if (!c.is_object())
    {
        Fail(w, c, "must be an object");
    }
    s.hasCollective = true;
    CollectiveSpec& spec = s.collective;
    const std::string op = Get(c, w, OpKey());
    ParseCollectiveOperation(op, spec.op); // one of OpKey's words
    spec.algorithm = Get(c, w, AlgorithmKey());
    const Ptr<CollectiveAlgorithm> algorithm = CollectiveAlgorithm::Create(spec.algorithm);
    if (!algorithm->Supports(spec.op))
    {
        std::string able;
        for (const auto& name : CollectiveAlgorithm::GetNames())
        {
            able += CollectiveAlgorithm::Create(name)->Supports(spec.op)
                        ? (able.empty() ? "" : ", ") + name
                        : "";
        }
        Fail(Path(w, "algorithm"), c.at("algorithm"),
             "does not implement " + op + "; algorithms that do: " + able);
    }
    if (spec.algorithm == "auto" && c.contains("protocol"))
    {
        Fail(Path(w, "protocol"), c.at("protocol"),
             "auto picks the protocol per size as NCCL's tuner does; name an algorithm to set "
             "one");
    }
    const TypeId tid = algorithm->GetInstanceTypeId();
    spec.algorithmFactory.SetTypeId(tid);
    auto& factory = spec.algorithmFactory;
    CollectiveSchema(
        tid, [&factory](const std::string& n, const AttributeValue& v) { factory.Set(n, v); },
        [&spec](const std::string& n, const AttributeValue& v) {
            spec.groupAttributes.emplace_back(n, v.Copy());
        })
        .Apply(c);
    const uint32_t hosts = s.topology.GetNHosts();
    if (hosts < 2)
    {
        Fail("topology", doc.at("topology"), "a collective needs at least 2 hosts");
    }
    spec.ranks = uint32_t(GetUnsigned(c, w, "ranks", hosts, 2, hosts));
    spec.root = uint32_t(GetUnsigned(c, w, "root", 0, 0, spec.ranks - 1));
    spec.iterations = uint32_t(Get(c, w, kIterations));
    spec.warmup = uint32_t(Get(c, w, kWarmup));
    spec.stream = Get(c, w, kLaunch) == "stream";
    if (spec.stream && c.contains("barrier_latency"))
    {
        Fail(Path(w, "barrier_latency"), c.at("barrier_latency"),
             "applies to launch \"barrier\" only (stream launches wait for no barrier)");
    }
    spec.timelineMaxSteps = Get(c, w, kTimelineMaxSteps);
    const bool perRank = spec.op == REDUCE_SCATTER || spec.op == ALL_GATHER || spec.op == ALL_TO_ALL;
    spec.sizes = CollectiveSizes(c, w, perRank ? 4 * uint64_t(spec.ranks) : 4, spec.sizeNote);
    // What an algorithm cannot run (ranks not a power of two, unequal servers) it refuses
    // itself when the run builds its schedule (CollectiveAlgorithm::Build): bad input too.
}

} // namespace

ScenarioSection
CollectiveSection()
{
    ScenarioSection section;
    section.keys = {"collective"};
    section.build = &BuildCollective;
    section.schemas = [](Scenario&) {
        const SectionSchema::Setter none = [](const std::string&, const AttributeValue&) {};
        std::vector<SectionSchema> schemas{
            CollectiveSchema(AutoCollectiveAlgorithm::GetTypeId(), none, none)};
        for (const auto& name : CollectiveAlgorithm::GetNames())
        {
            const TypeId tid = CollectiveAlgorithm::Create(name)->GetInstanceTypeId();
            if (tid != AutoCollectiveAlgorithm::GetTypeId())
            {
                schemas.push_back(SectionSchema("collective").Bind(tid, none)); // per algorithm
            }
        }
        return schemas;
    };
    return section;
}

} // namespace aifabric
