// The "collective" section: one operation swept over sizes, nccl-tests style.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** One collective size, \p key of \p c, which must be a whole multiple of \p quantum. */
uint64_t
SingleCollectiveSize(const json& c, const std::string& w, const char* key, uint64_t quantum)
{
    const uint64_t bytes = GetBytes(c, w, key, 0, 1, uint64_t(1) << 40);
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
    const uint64_t limit = uint64_t(1) << 40;
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
    const uint64_t lo = GetBytes(c, w, "min_bytes", 8, 1, limit);
    const uint64_t hi = GetBytes(c, w, "max_bytes", lo, lo, limit);
    if (lo == hi)
    {
        return {SingleCollectiveSize(c, w, "min_bytes", quantum)}; // one size: no rounding
    }
    const uint64_t factor = GetUnsigned(c, w, "factor", 2, 2, 1024);
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

/** The collective section's keys: the sweep's and the algorithm's attributes (\p algorithm). */
SectionSchema
CollectiveSchema(TypeId algorithm, const SectionSchema::Setter& set)
{
    std::string algorithms;
    for (const auto& name : CollectiveAlgorithm::GetNames())
    {
        algorithms += (algorithms.empty() ? "" : ", ") + name;
    }
    SectionSchema schema("collective");
    schema.Key("op", CollectiveOperationNames(), "allreduce", "The collective operation.")
        .Key("algorithm", algorithms, "auto", "How the collective is scheduled.")
        .Key("bytes", kBytesAllowed, "none",
             "One size (per rank's buffer, as nccl-tests counts it).")
        .Key("min_bytes", kBytesAllowed, "8", "The sweep's first size.")
        .Key("max_bytes", kBytesAllowed, "min_bytes", "The sweep's last size.")
        .Key("factor", "an integer in [2, 1024]", "2", "Each size of the sweep over the last.")
        .Key("ranks", "an integer in [2, hosts]", "every host", "Ranks on hosts 0..ranks-1.")
        .Key("root", "an integer in [0, ranks - 1]", "0", "The root of broadcast and reduce.")
        .Key("iterations", "an integer in [1, 1000]", "1", "Timed runs of each size (nccl-tests -n).")
        .Key("warmup_iterations", "an integer in [0, 1000]", "0",
             "Untimed runs of each size before the timed ones (nccl-tests -w, whose default is "
             "1): queue pairs connect and congestion control settles in them.")
        .Key("launch", "barrier, stream", "barrier",
             "barrier: each run starts when every rank finished the last; stream: queued back "
             "to back on every rank.")
        .Key("timeline_max_steps", "an integer", std::to_string(CollectiveSpec().timelineMaxSteps),
             "Larger runs skip timeline.json.")
        .Bind(algorithm, set)
        .Moved("priority", "rdma.priority");
    return MovedRdmaKeys(schema);
}

/** The "collective" and "accelerator" sections. */
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
    // Plain messages (MessageSource) address queue-pair numbers the sweep's queue pairs use,
    // and would land on them; RDMA messages have queue pairs of their own.
    if (doc.contains("traffic") && doc.at("traffic").is_object() &&
        doc.at("traffic").value("transport", json("messages")) != json("rdma"))
    {
        Fail("traffic.transport", doc.at("traffic").value("transport", json("messages")),
             "with a \"collective\" sweep, background traffic must be \"rdma\" (plain "
             "messages would land on the sweep's queue pairs)");
    }
    s.hasCollective = true;
    CollectiveSpec& spec = s.collective;
    const std::string op = GetString(c, w, "op", "allreduce");
    if (!ParseCollectiveOperation(op, spec.op))
    {
        Fail(Path(w, "op"), c.at("op"), "allowed: " + CollectiveOperationNames());
    }
    spec.algorithm = GetString(c, w, "algorithm", "auto");
    Ptr<CollectiveAlgorithm> algorithm;
    try
    {
        algorithm = CollectiveAlgorithm::Create(spec.algorithm);
    }
    catch (const std::invalid_argument& e)
    {
        Fail(Path(w, "algorithm"), c.at("algorithm"), e.what());
    }
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
    const TypeId tid = algorithm->GetInstanceTypeId();
    spec.algorithmFactory.SetTypeId(tid);
    auto& factory = spec.algorithmFactory;
    CollectiveSchema(tid, [&factory](const std::string& n, const AttributeValue& v) {
        factory.Set(n, v);
    }).Apply(c);
    const uint32_t hosts = s.topology.GetNHosts();
    if (hosts < 2)
    {
        Fail("topology", doc.at("topology"), "a collective needs at least 2 hosts");
    }
    spec.ranks = uint32_t(GetUnsigned(c, w, "ranks", hosts, 2, hosts));
    spec.root = uint32_t(GetUnsigned(c, w, "root", 0, 0, spec.ranks - 1));
    spec.iterations = uint32_t(GetUnsigned(c, w, "iterations", 1, 1, 1000));
    spec.warmup = uint32_t(GetUnsigned(c, w, "warmup_iterations", 0, 0, 1000));
    const std::string launch = GetString(c, w, "launch", "barrier");
    if (launch != "barrier" && launch != "stream")
    {
        Fail(Path(w, "launch"), c.at("launch"), "allowed: barrier, stream");
    }
    spec.stream = launch == "stream";
    spec.timelineMaxSteps = GetUnsigned(c, w, "timeline_max_steps", spec.timelineMaxSteps);
    const bool perRank = spec.op == REDUCE_SCATTER || spec.op == ALL_GATHER || spec.op == ALL_TO_ALL;
    spec.sizes = CollectiveSizes(c, w, perRank ? 4 * uint64_t(spec.ranks) : 4, spec.sizeNote);
    const bool powerOfTwo = (spec.ranks & (spec.ranks - 1)) == 0;
    if (!powerOfTwo && (spec.algorithm == "recursive-doubling" || spec.algorithm == "halving-doubling"))
    {
        Fail(Path(w, "ranks"), json(spec.ranks),
             "algorithm \"" + spec.algorithm + "\" needs a power-of-two number of ranks");
    }
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
            CollectiveSchema(AutoCollectiveAlgorithm::GetTypeId(), none)};
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
