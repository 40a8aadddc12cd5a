#include "run-estimate.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace fs = std::filesystem;

namespace aifabric
{

namespace
{
/** The last non-empty line of \p file ("" if none). */
std::string
LastLine(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::string last;
    while (std::getline(in, line))
    {
        if (!line.empty())
        {
            last = line;
        }
    }
    return last;
}

/** Wall time of \p seconds as "12 s", "3.4 min" or "2.1 h". */
std::string
WallTime(double seconds)
{
    if (seconds < 120)
    {
        return fmt::format("{:.0f} s", seconds);
    }
    if (seconds < 7200)
    {
        return fmt::format("{:.1f} min", seconds / 60);
    }
    return fmt::format("{:.1f} h", seconds / 3600);
}

/** Run the flow-level child into \p scratch and read its summary (see EstimateAtFlowLevel). */
std::optional<RunEstimate>
RunChild(const std::string& program, const std::vector<std::string>& arguments,
         const fs::path& scratch, std::string& why)
{
    std::vector<std::string> args{program};
    args.insert(args.end(), arguments.begin(), arguments.end());
    args.push_back("--fidelity=flow");
    args.push_back("--out=" + (scratch / "out").string());
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    const std::string log = (scratch / "log").string();
    posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&files, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t child = 0;
    const bool started =
        posix_spawn(&child, "/proc/self/exe", &files, nullptr, argv.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&files);
    if (!started)
    {
        why = "cannot start " + program;
        return std::nullopt;
    }
    int status = 0;
    pid_t waited = 0;
    while ((waited = waitpid(child, &status, 0)) < 0 && errno == EINTR)
    {
    }
    if (waited != child)
    {
        why = "lost the flow-level run (waitpid failed)";
        return std::nullopt;
    }
    if (WIFSIGNALED(status))
    {
        why = "the flow-level run ended on signal " + std::to_string(WTERMSIG(status));
        return std::nullopt;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    {
        why = LastLine(scratch / "log");
        return std::nullopt;
    }
    const nlohmann::json s = nlohmann::json::parse(std::ifstream(scratch / "out" / "summary.json"));
    RunEstimate e;
    e.simulatedSeconds = s.at("simulated_seconds").get<double>();
    e.dataFrames = s.at("flow_level").at("data_frames").get<uint64_t>();
    e.frameHops = s.at("flow_level").at("frame_hops").get<double>();
    e.flowWallSeconds = s.at("wall_seconds").get<double>();
    return e;
}
} // namespace

std::optional<RunEstimate>
EstimateAtFlowLevel(const std::string& program, const std::vector<std::string>& arguments,
                    std::string& why)
{
    std::error_code error;
    const fs::path tmp = fs::temp_directory_path(error);
    std::string pattern = (tmp / "ai-fabric-estimate-XXXXXX").string();
    if (error || !mkdtemp(pattern.data()))
    {
        why = "cannot make a scratch folder in " + tmp.string();
        return std::nullopt;
    }
    const fs::path scratch = pattern;
    std::optional<RunEstimate> estimate;
    try
    {
        estimate = RunChild(program, arguments, scratch, why);
    }
    catch (const std::exception& e)
    {
        why = std::string("its summary.json: ") + e.what();
    }
    fs::remove_all(scratch, error);
    return estimate;
}


std::string
DescribeEstimate(const RunEstimate& e)
{
    // The shipped scenarios ran at 0.6 (256 GPUs) to 1.9 M events/s on a 2-core machine.
    return fmt::format("estimate (flow level, {:.1f} s): {:.3f} ms simulated, {} data frames, "
                       "about {:.3g} events: {} to {} at 1.9 to 0.6 M events/s",
                       e.flowWallSeconds, e.simulatedSeconds * 1e3, e.dataFrames, e.Events(),
                       WallTime(e.Events() / 1.9e6), WallTime(e.Events() / 0.6e6));
}

} // namespace aifabric
