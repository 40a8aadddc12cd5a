#include "runner-fixture.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace aifabric_test
{

namespace
{
std::vector<fs::path> g_scratch; //!< the folders Scratch made in this process
} // namespace

void
RemoveScratch()
{
    for (const fs::path& dir : g_scratch)
    {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
    }
    g_scratch.clear();
}

fs::path
Scratch(const std::string& name)
{
    const fs::path dir = fs::temp_directory_path() /
                         ("ai-fabric-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    g_scratch.push_back(dir);
    return dir;
}

std::string
ReadFile(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Outcome
RunProgram(const std::string& binary, const std::string& args, const fs::path& scratch)
{
    const fs::path out = scratch / "stdout.txt";
    const fs::path err = scratch / "stderr.txt";
    const std::string cmd = binary + " " + args + " > " + out.string() + " 2> " + err.string();
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

void
ExpectRefusedAsBadInput(const Outcome& o, const fs::path& out, const std::string& mention)
{
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    EXPECT_EQ(std::count(o.stderrText.begin(), o.stderrText.end(), '\n'), 1) << o.stderrText;
    EXPECT_NE(o.stderrText.find(mention), std::string::npos) << o.stderrText;
    EXPECT_FALSE(fs::exists(out));
    for (const auto& e : fs::directory_iterator(out.parent_path()))
    {
        EXPECT_NE(e.path().filename().string().rfind(out.filename().string() + ".partial", 0), 0u)
            << "staging folder left: " << e.path();
    }
}

void
ExpectIdenticalResults(const fs::path& a, const fs::path& b, const std::vector<std::string>& files)
{
    for (const std::string& file : files)
    {
        const std::string first = ReadFile(a / file);
        EXPECT_FALSE(first.empty()) << file;
        EXPECT_EQ(first, ReadFile(b / file)) << file;
    }
    // What the machine measured, not the model: wall time and memory.
    auto withoutMachine = [](const fs::path& summary) {
        nlohmann::json j = nlohmann::json::parse(ReadFile(summary));
        j.erase("wall_seconds");
        j.erase("peak_rss_kb_per_rank");
        return j;
    };
    EXPECT_EQ(withoutMachine(a / "summary.json"), withoutMachine(b / "summary.json"));
}

std::vector<std::map<std::string, std::string>>
ReadCsv(const std::filesystem::path& p)
{
    std::istringstream in(ReadFile(p));
    std::string line;
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
    // Every cell, the empty ones included (a trailing empty cell too).
    auto split = [](const std::string& l) {
        std::vector<std::string> out{""};
        for (char c : l)
        {
            if (c == ',')
            {
                out.emplace_back();
            }
            else
            {
                out.back().push_back(c);
            }
        }
        return out;
    };
    if (std::getline(in, line))
    {
        header = split(line);
    }
    while (std::getline(in, line))
    {
        const auto cells = split(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        rows.push_back(row);
    }
    return rows;
}

} // namespace aifabric_test
