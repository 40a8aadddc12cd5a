// ai-fabric-collbench: sweep a collective over message sizes and print the nccl-tests table.
//
//   ai-fabric-collbench [--topology=KIND:key=value,...] [--scenario=FILE] [--op=allreduce]
//                       [--algo=auto] [--minbytes=8] [--maxbytes=1M] [--factor=2] ...
//
// The sweep is a scenario's "collective" section: flags fill it (over a scenario file's, when
// one is given), the run writes the usual results folder plus collectives.csv and
// timeline.json, and the table goes to stdout.  Bad input exits with code 2.
#include "src/scenario-main.h"
#include "src/scenario.h"

#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>

using namespace aifabric;
using nlohmann::json;

namespace
{
const char* const kDefaultTopology = "fat_tree:k=4,nic_rate=400Gbps";

/** Every registered algorithm's name, wrapped to the usage text's second column. */
std::string
AlgorithmNames()
{
    std::string text;
    std::size_t column = 0;
    for (const std::string& name : ns3::CollectiveAlgorithm::GetNames())
    {
        if (!text.empty())
        {
            const bool wrap = column + 2 + name.size() > 52;
            text += wrap ? ",\n                           " : ", ";
            column = wrap ? 0 : column + 2;
        }
        text += name;
        column += name.size();
    }
    return text + " (default auto)";
}

void
Usage()
{
    std::cout
        << "usage: ai-fabric-collbench [options] [--ns3::Type::Attribute=VALUE ...]\n"
           "  --topology=KIND:k=v,...  fabric, as a scenario's topology keys (default "
        << kDefaultTopology
        << ")\n"
           "                           e.g. rail_optimized:servers=16,gpus_per_server=8\n"
           "  --scenario=FILE          start from a scenario file (its collective section too)\n"
           "  --server=NAME            server preset (GPUs, NVLink, NICs, accelerator):\n"
           "                           "
        << ns3::ServerPreset::Names()
        << "\n"
           "  --op=NAME                allreduce, reducescatter, allgather, broadcast, reduce,\n"
           "                           alltoall (default allreduce)\n"
           "  --algo=NAME              "
        << AlgorithmNames()
        << "\n"
           "  --protocol=NAME          simple, ll, ll128: NCCL's protocols (default simple)\n"
           "  --minbytes=N --maxbytes=N --factor=F   sizes N, N*F, ... (K/M/G suffixes = 2^10..)\n"
           "  --ranks=N                ranks on hosts 0..N-1 (default every host)\n"
           "  --root=R --iters=N --warmup=W --channels=C --cc=none|dcqcn\n"
           "                           (--warmup: untimed runs per size before the timed ones)\n"
           "  --fidelity=packet|flow|collective   every frame, max-min fair flows, or\n"
           "                           flows with each pipelined collective in its steady\n"
           "                           state (the scenario's key)\n"
           "  --out=DIR                results folder (default collbench-results)\n"
           "  -b N -e N -f F -n N -w W nccl-tests' spelling of --minbytes, --maxbytes, --factor,\n"
           "                           --iters, --warmup (nccl-tests' -w defaults to 1, ours to 0)\n"
           "  --PrintTypeIds, --PrintAttributes=TYPE, --PrintGroups, --PrintGroup=GROUP,\n"
           "  --PrintGlobals, --version: as every ns-3 program takes them\n";
}

/** "64K" -> 65536: nccl-tests' size suffixes. */
json
SizeValue(const std::string& flag, const std::string& text)
{
    std::smatch m;
    if (!std::regex_match(text, m, std::regex("([0-9]{1,15})([KMGkmg]?)")))
    {
        throw ScenarioError(flag + " = \"" + text + "\": not a size (e.g. 8, 64K, 16M, 1G)");
    }
    static const std::map<char, int> shift = {{'K', 10}, {'M', 20}, {'G', 30}};
    const char unit = m[2].str().empty() ? ' ' : char(std::toupper(m[2].str()[0]));
    const int bits = unit == ' ' ? 0 : shift.at(unit);
    const uint64_t count = std::stoull(m[1].str());
    // Beyond the collective's largest size (1 TiB), refused there; here only kept from wrapping.
    if (count > (uint64_t(1) << (60 - bits)))
    {
        throw ScenarioError(flag + " = \"" + text + "\": too large (at most 1024G)");
    }
    return count << bits;
}

json
CountValue(const std::string& flag, const std::string& text)
{
    if (!std::regex_match(text, std::regex("[0-9]{1,9}")))
    {
        throw ScenarioError(flag + " = \"" + text + "\": must be a non-negative integer");
    }
    return std::stoull(text);
}

struct Options
{
    json document;
    std::string out{"collbench-results"};
    std::vector<std::string> inputs; //!< files read: --out may not replace them
};

Options
ParseArguments(int argc, char** argv)
{
    std::string scenario;
    std::string topology;
    std::string congestionControl;
    std::string server;
    std::string fidelity;
    json collective = json::object();
    static const std::map<std::string, std::string> sizeFlags = {
        {"--minbytes", "min_bytes"}, {"--maxbytes", "max_bytes"}};
    static const std::map<std::string, std::string> countFlags = {
        {"--factor", "factor"}, {"--ranks", "ranks"},       {"--root", "root"},
        {"--iters", "iterations"}, {"--warmup", "warmup_iterations"},
        {"--channels", "channels"}};
    static const std::map<std::string, std::string> textFlags = {
        {"--op", "op"}, {"--algo", "algorithm"}, {"--protocol", "protocol"}};
    // nccl-tests' short options, each with its value as the next argument: "-b 8 -e 128M".
    static const std::map<std::string, std::string> ncclTests = {
        {"-b", "--minbytes"}, {"-e", "--maxbytes"}, {"-f", "--factor"}, {"-n", "--iters"},
        {"-w", "--warmup"}};
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg == "-c" || arg == "--check")
        {
            // nccl-tests' -c compares the result buffers with the expected values.
            throw ScenarioError("argument \"" + arg + "\": not available: the simulated frames "
                                "carry headers, not data, so there are no buffers to compare; "
                                "every schedule is checked when it is built (each send matched "
                                "by a receive of the same bytes, no rank waiting forever)");
        }
        if (ncclTests.count(arg))
        {
            if (i + 1 == argc)
            {
                throw ScenarioError("argument \"" + arg + "\": needs a value, e.g. " + arg + " 8");
            }
            arg = ncclTests.at(arg) + "=" + argv[++i];
        }
        const auto eq = arg.find('=');
        const std::string key = arg.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        HandleNs3InfoFlag("ai-fabric-collbench", arg);
        if (key == "--help" || key == "-h" || key == "--PrintHelp")
        {
            Usage();
            std::exit(0);
        }
        if (value.empty() && key.rfind("--ns3::", 0) != 0)
        {
            throw ScenarioError("argument \"" + arg + "\": unknown or without a value; see --help");
        }
        if (key == "--scenario")
        {
            scenario = value;
        }
        else if (key == "--topology")
        {
            topology = value;
        }
        else if (key == "--out")
        {
            o.out = value;
        }
        else if (sizeFlags.count(key))
        {
            collective[sizeFlags.at(key)] = SizeValue(key, value);
        }
        else if (countFlags.count(key))
        {
            collective[countFlags.at(key)] = CountValue(key, value);
        }
        else if (key == "--cc")
        {
            congestionControl = value;
        }
        else if (key == "--server")
        {
            server = value;
        }
        else if (key == "--fidelity")
        {
            fidelity = value;
        }
        else if (textFlags.count(key))
        {
            collective[textFlags.at(key)] = value;
        }
        else if (key.rfind("--ns3::", 0) == 0 && eq != std::string::npos)
        {
            SetAttributeDefault(key.substr(2), value);
        }
        else
        {
            throw ScenarioError("argument \"" + arg + "\": unknown; see --help");
        }
    }
    o.document = scenario.empty() ? json{{"name", "collbench"}} : ReadScenarioFile(scenario);
    if (!scenario.empty())
    {
        o.inputs.push_back(scenario);
    }
    if (!topology.empty() || !o.document.contains("topology"))
    {
        o.document["topology"] =
            ParseTopologyText(topology.empty() ? kDefaultTopology : topology, "--topology");
    }
    if (!server.empty())
    {
        o.document["server"] = server;
    }
    if (!fidelity.empty())
    {
        o.document["fidelity"] = fidelity;
    }
    if (!congestionControl.empty())
    {
        json& rdma = o.document["rdma"];
        if (!rdma.is_object())
        {
            rdma = json::object();
        }
        rdma["congestion_control"] = congestionControl;
    }
    json& c = o.document["collective"];
    if (!c.is_object())
    {
        c = json::object();
    }
    if (collective.contains("min_bytes") && !collective.contains("max_bytes"))
    {
        collective["max_bytes"] = collective["min_bytes"];
    }
    if (collective.contains("min_bytes") || collective.contains("max_bytes"))
    {
        c.erase("bytes");
    }
    for (const auto& [key, value] : collective.items())
    {
        c[key] = value;
    }
    if (!c.contains("bytes") && !c.contains("min_bytes") && !c.contains("max_bytes"))
    {
        c["max_bytes"] = 1 << 20; // from collective.min_bytes's default (8 B) to 1 MiB
    }
    return o;
}
} // namespace

int
main(int argc, char** argv)
{
    InitSimulator();
    Options options;
    try
    {
        CheckArgumentText(argc, argv);
        options = ParseArguments(argc, argv);
    }
    catch (const ScenarioError& e)
    {
        PrintError("ai-fabric-collbench", e.what());
        return kBadInput;
    }
    return RunScenarioDocument([&options]() { return options.document; }, options.out,
                               options.inputs, "ai-fabric-collbench");
}
