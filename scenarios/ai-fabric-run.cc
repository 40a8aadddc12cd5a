// ai-fabric-run: run a fabric scenario (JSON) and write its results folder.
//
//   ai-fabric-run [--scenario=FILE] [--out=DIR] [--fidelity=packet|flow|collective] [--estimate] [--pcap] [--ns3::...=VALUE ...]
//   ai-fabric-run --print-keys[=SECTION]
//   mpirun -np N ai-fabric-run --scenario=FILE --ranks-by=pod|rail|map:FILE   (built with MPI)
//
// Without --scenario it runs the built-in default (scenarios/default.json).  Bad input of any
// kind prints one line naming the key, the value and what is allowed, and exits with code 2
// leaving no results folder.
#include "src/default-scenario.h"
#include "src/run-estimate.h"
#include "src/scenario-main.h"
#include "src/scenario.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <optional>

using namespace aifabric;

namespace
{

struct Options
{
    std::string scenario;
    std::string out{"ai-fabric-results"};
    bool pcap{false};
    std::string ranksBy;
    std::string fidelity; //!< --fidelity: overrides the scenario's
    bool estimate{false};
    /** The arguments a flow-level estimate passes on: all but --out, --fidelity, --pcap. */
    std::vector<std::string> forwarded;
};

void
Usage()
{
    std::cout << "usage: ai-fabric-run [--scenario=FILE] [--out=DIR] [--fidelity=packet|flow|collective] [--estimate] [--pcap] "
                 "[--ns3::Type::Attribute=VALUE ...]\n"
                 "  --scenario  JSON scenario (default: the built-in scenarios/default.json)\n"
                 "  --out       results folder to write (default: ai-fabric-results)\n"
                 "  --fidelity  packet (every frame), flow (max-min fair flows) or collective\n"
                 "              (flows, each pipelined collective in its steady state): the\n"
                 "              scenario's \"fidelity\" key, which this overrides\n"
                 "  --estimate  first run the scenario at flow level (in a child process) and\n"
                 "              log the packet-level run's frames, events and wall time; the\n"
                 "              progress line then shows percent done and the time left\n"
                 "  --pcap      also write a PCAP per host port, pcap-<host>-<peer>.pcap (the \"pcap\"\n"
                 "              section's defaults; Wireshark decodes RoCEv2)\n"
                 "  --ranks-by  under mpirun: split the fabric over the MPI ranks by pod, by rail\n"
                 "              group (rail) or as a JSON map file of node name: rank (map:FILE)\n"
                 "              (needs ai-fabric-run built against ns-3 with its mpi module)\n"
                 "  --ns3::...  set an attribute default, as ns-3's CommandLine does, e.g.\n"
                 "              --ns3::FabricSwitch::ForwardingLatency=300ns\n"
                 "  --print-keys[=SECTION]  print every scenario key (of SECTION): type,\n"
                 "              range, default (with any --ns3:: given before it) and help\n"
                 "  --PrintTypeIds, --PrintAttributes=TYPE, --PrintGroups, --PrintGroup=GROUP,\n"
                 "  --PrintGlobals, --version: as every ns-3 program takes them\n";
}

Options
ParseArguments(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const auto eq = arg.find('=');
        const std::string key = arg.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        HandleNs3InfoFlag("ai-fabric-run", arg);
        if (key != "--out" && key != "--fidelity" && key != "--pcap" && key != "--estimate")
        {
            o.forwarded.push_back(arg);
        }
        if (key == "--help" || key == "-h" || key == "--PrintHelp")
        {
            Usage();
            std::exit(0);
        }
        else if (key == "--scenario" && !value.empty())
        {
            o.scenario = value;
        }
        else if (key == "--out" && !value.empty())
        {
            o.out = value;
        }
        else if (key == "--ranks-by" && !value.empty())
        {
            o.ranksBy = value;
        }
        else if (key == "--print-keys")
        {
            PrintScenarioKeys(std::cout, value);
            std::exit(0);
        }
        else if (key == "--fidelity" && !value.empty())
        {
            o.fidelity = value;
        }
        else if (key == "--pcap" && eq == std::string::npos)
        {
            o.pcap = true;
        }
        else if (key == "--estimate" && eq == std::string::npos)
        {
            o.estimate = true;
        }
        else if (key.rfind("--ns3::", 0) == 0 && eq != std::string::npos)
        {
            SetAttributeDefault(key.substr(2), value);
        }
        else
        {
            throw ScenarioError("argument \"" + arg + "\": unknown; allowed: --scenario=FILE, "
                                "--out=DIR, --fidelity=packet|flow|collective, --estimate, --pcap, "
                                "--ranks-by=pod|rail|map:FILE, --ns3::Type::Attribute=VALUE, --print-keys[=SECTION], --help");
        }
    }
    if (o.estimate && ((!o.fidelity.empty() && o.fidelity != "packet") || !o.ranksBy.empty()))
    {
        throw ScenarioError("--estimate: estimates a packet-level run in one process (not with " +
                            (o.ranksBy.empty() ? "--fidelity=" + o.fidelity : "--ranks-by") +
                            ")");
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
        PrintError("ai-fabric-run", e.what());
        return kBadInput;
    }
    Distribution distribution;
    std::string program = "ai-fabric-run";
    // The files the run reads: --out may not replace them.
    std::vector<std::string> inputs;
    if (!options.scenario.empty())
    {
        inputs.push_back(options.scenario);
    }
    if (options.ranksBy.rfind("map:", 0) == 0)
    {
        inputs.push_back(options.ranksBy.substr(4));
    }
    if (!options.ranksBy.empty())
    {
        if (!MpiBuilt())
        {
            std::cerr << "ai-fabric-run: error: --ranks-by=" << options.ranksBy
                      << ": this ai-fabric-run was built against ns-3 without its mpi module; "
                         "build it against ns-3 from source (scripts/ns3-in-tree; "
                         "contrib/ai-fabric/doc/ai-fabric.rst, \"Distributed runs\")\n";
            return kBadInput;
        }
        distribution = EnableMpi(&argc, &argv, options.ranksBy);
        program += " (rank " + std::to_string(distribution.rank) + ")";
    }
    // Once the scenario is known good: the same arguments at flow level, in a child process.
    const Estimator estimator = [&options, argv]() -> std::optional<RunEstimate> {
        std::string why;
        std::optional<RunEstimate> estimate = EstimateAtFlowLevel(argv[0], options.forwarded, why);
        if (estimate)
        {
            spdlog::info("{}", DescribeEstimate(*estimate));
        }
        else
        {
            spdlog::warn("no estimate: {}", why);
        }
        return estimate;
    };
    const int rc = RunScenarioDocument(
        [&options]() {
            nlohmann::json doc = options.scenario.empty()
                                     ? ParseScenarioText(kDefaultScenario, "built-in default")
                                     : ReadScenarioFile(options.scenario);
            if (!options.fidelity.empty() && doc.is_object())
            {
                doc["fidelity"] = options.fidelity; // checked as the scenario's key
            }
            if (options.pcap && doc.is_object() && !doc.contains("pcap"))
            {
                doc["pcap"] = nlohmann::json::object(); // the section with its defaults
            }
            return doc;
        },
        options.out,
        inputs,
        program,
        distribution,
        options.estimate ? estimator : Estimator());
    DisableMpi();
    return rc;
}
