#include "scenario-main.h"

#include "scenario-availability.h"
#include "results-folder.h"
#include "scenario-run.h"

#include "ns3/command-line.h"
#include "ns3/fabric-partition.h"
#include "ns3/global-value.h"
#include "ns3/huge-page-heap.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

namespace aifabric
{

void
PrintError(const std::string& program, const std::string& what)
{
    // One line, whatever the message quotes (a name from the scenario may hold control
    // characters), written at once so the lines of MPI ranks sharing a terminal do not
    // interleave.
    std::string line = program + ": error: ";
    for (const char c : what)
    {
        if (c == '\n')
        {
            line += "\\n";
        }
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned char>(c));
            line += hex;
        }
        else
        {
            line += c;
        }
    }
    line += "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

void
HandleNs3InfoFlag(const std::string& program, const std::string& arg)
{
    const std::string key = arg.substr(0, arg.find('='));
    if (key == "--version")
    {
        std::cout << program << " " << AI_FABRIC_VERSION << " (ai-fabric), ns-3 "
                  << AI_FABRIC_NS3_VERSION << "\n";
        std::exit(0);
    }
    if (key == "--PrintTypeIds" || key == "--PrintAttributes" || key == "--PrintGroups" ||
        key == "--PrintGroup" || key == "--PrintGlobals")
    {
        if ((key == "--PrintAttributes" || key == "--PrintGroup") &&
            arg.size() <= key.size() + 1)
        {
            throw ScenarioError("argument \"" + arg + "\": needs a value, e.g. " + key +
                                (key == "--PrintGroup" ? "=AiFabric" : "=ns3::FabricSwitch"));
        }
        ns3::TypeId tid;
        if (key == "--PrintAttributes" &&
            !ns3::TypeId::LookupByNameFailSafe(arg.substr(key.size() + 1), &tid))
        {
            throw ScenarioError("argument \"" + arg + "\": no such type (--PrintTypeIds lists them)");
        }
        ns3::CommandLine cmd(program);
        std::vector<std::string> words{program, arg};
        std::vector<char*> argv;
        for (auto& w : words)
        {
            argv.push_back(w.data());
        }
        cmd.Parse(static_cast<int>(argv.size()), argv.data()); // prints and exits
        std::exit(0);
    }
}

void
CheckArgumentText(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const bool control = std::any_of(arg.begin(), arg.end(), [](char c) {
            return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        });
        bool utf8 = true;
        try
        {
            (void)nlohmann::json(arg).dump(); // the JSON writer checks the encoding
        }
        catch (const nlohmann::json::type_error&)
        {
            utf8 = false;
        }
        if (control || !utf8)
        {
            throw ScenarioError("argument " + std::to_string(i) + ": " +
                                (utf8 ? "holds a control character" : "not valid UTF-8"));
        }
    }
}

void
InitSimulator()
{
    ns3::UseHugePageHeap();
    ns3::Time::SetResolution(ns3::Time::PS);
    UseOneProcessSimulator();
    // Progress and logs on stderr: stdout carries only results (the collective table).
    spdlog::set_default_logger(spdlog::stderr_color_mt("ai-fabric"));
}

void
UseOneProcessSimulator()
{
    // Same-time events in an order that does not depend on the MPI split (and a radix heap,
    // faster than ns-3's default std::map scheduler), under the core that runs only on it.
    ns3::GlobalValue::Bind("SchedulerType", ns3::StringValue("ns3::FabricScheduler"));
    ns3::GlobalValue::Bind("SimulatorImplementationType",
                           ns3::StringValue("ns3::FabricSimulatorImpl"));
}

namespace
{
int
RunChecked(const std::function<nlohmann::json()>& document, const std::string& out,
           const std::vector<std::string>& inputs, const std::string& program,
           const Distribution& distribution, const Estimator& estimator)
{
    Scenario scenario;
    std::vector<uint32_t> partition;
    // Only rank 0 writes results; every rank checks the destination, so all refuse alike.
    const bool root = distribution.rank == 0;
    std::unique_ptr<ResultsFolder> folder;
    try
    {
        scenario = BuildScenario(document());
        if (estimator && scenario.flowLevel)
        {
            throw ScenarioError("fidelity = \"" + scenario.fidelity +
                                "\" with --estimate: it estimates a packet-level run (leave "
                                "--estimate out, or run at \"packet\")");
        }
        if (distribution.IsDistributed())
        {
            if (scenario.flowLevel)
            {
                throw ScenarioError("fidelity \"" + scenario.fidelity +
                                    "\": runs in one process (without --ranks-by)");
            }
            partition = PartitionScenario(scenario, distribution);
        }
        ResultsFolder::CheckDestination(out, "--out", inputs);
        if (root)
        {
            folder = std::make_unique<ResultsFolder>(out, "--out", inputs);
        }
    }
    catch (const ScenarioError& e)
    {
        PrintError(program, e.what());
        return kBadInput;
    }
    if (distribution.IsDistributed())
    {
        spdlog::info("rank {} of {}: {} of {} nodes, {} links cut (--ranks-by={})",
                     distribution.rank, distribution.ranks,
                     std::count(partition.begin(), partition.end(), distribution.rank),
                     partition.size(), ns3::FabricPartition::CountCutLinks(scenario.topology, partition),
                     distribution.ranksBy);
    }
    if (scenario.hasAvailability)
    {
        if (estimator)
        {
            spdlog::warn("no estimate: an availability run measures its fabric states in runs "
                         "of its own");
        }
        return RunAvailability(scenario, folder.get(), program, distribution, partition);
    }
    const std::optional<RunEstimate> estimate = estimator ? estimator() : std::nullopt;
    ScenarioRun run(scenario);
    if (distribution.IsDistributed())
    {
        run.SetDistribution(distribution, std::move(partition));
    }
    if (scenario.hasPcap)
    {
        // Split over MPI ranks, the others capture on their own and rank 0 gathers the files.
        run.EnablePcap(root ? folder->GetStaging() : std::filesystem::path());
    }
    try
    {
        run.Install();
    }
    catch (const std::invalid_argument& e)
    {
        PrintError(program, e.what());
        return kBadInput;
    }
    spdlog::info("scenario '{}': {} hosts, {} links, {} messages{}",
                 scenario.name,
                 scenario.topology.GetNHosts(),
                 scenario.topology.Links().size(),
                 scenario.flows.size(),
                 scenario.hasCollective ? ", a collective sweep"
                 : scenario.hasTraining
                     ? ", " + std::to_string(scenario.training.jobs.size()) + " training job(s)"
                     : std::string());
    const RunFigures r = run.Run(root, estimate ? &*estimate : nullptr);
    if (!run.GetFailure().empty())
    {
        PrintError(program, run.GetFailure());
        ns3::Simulator::Destroy();
        return kBadInput;
    }
    if (!root)
    {
        ns3::Simulator::Destroy();
        return 0;
    }
    run.WriteResults(*folder, AI_FABRIC_VERSION);
    if (scenario.hasCollective)
    {
        run.WriteCollectiveTable(std::cout);
    }
    if (scenario.hasTraining)
    {
        run.WriteJobTable(std::cout);
    }
    // Messages only where the scenario sends them (a sweep or a job has its own table above).
    const std::string messages =
        r.flows ? fmt::format("{} of {} messages complete, ", r.flowsComplete, r.flows) : "";
    spdlog::info("{}{} frames delivered, {} dropped, {} trimmed; simulated {:.3f} ms in {:.2f} s "
                 "wall ({:.0f} frames/s); results in {}",
                 messages,
                 r.framesDelivered,
                 r.framesDropped,
                 r.framesTrimmed,
                 r.simulatedSeconds * 1e3,
                 r.wallSeconds,
                 double(r.framesDelivered) / r.wallSeconds,
                 folder->GetDestination().string());
    ns3::Simulator::Destroy();
    return 0;
}

} // namespace

int
RunScenarioDocument(const std::function<nlohmann::json()>& document, const std::string& out,
                    const std::vector<std::string>& inputs, const std::string& program,
                    const Distribution& distribution, const Estimator& estimator)
{
    try
    {
        return RunChecked(document, out, inputs, program, distribution, estimator);
    }
    catch (const ResultsWriteError& e)
    {
        PrintError(program, e.what());
        ns3::Simulator::Destroy();
        return kWriteFailed;
    }
}

} // namespace aifabric
