// The results folder never costs a user data: --out replaces only a folder this program wrote
// and nothing else; a bad destination is refused before the run; a failed write, a signal or an
// abort leaves no folder and no staging folder behind.
#include "runner-fixture.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

using namespace aifabric_test;

namespace
{

/** Run the runner with \p args from the working folder \p cwd. */
Outcome
RunIn(const fs::path& cwd, const std::string& args, const fs::path& scratch)
{
    return RunProgram("cd " + cwd.string() + " && " + AI_FABRIC_RUN_BINARY, args, scratch);
}

/** A user's folder: a notes file and a subfolder with a file. */
void
MakeUserFolder(const fs::path& dir)
{
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "notes.txt") << "mine";
    std::ofstream(dir / "sub" / "data.bin") << "also mine";
}

/** How many entries folder \p dir holds. */
std::size_t
EntriesIn(const fs::path& dir)
{
    return std::distance(fs::directory_iterator(dir), fs::directory_iterator());
}

void
ExpectUserFolderIntact(const fs::path& dir)
{
    EXPECT_EQ(ReadFile(dir / "notes.txt"), "mine");
    EXPECT_EQ(ReadFile(dir / "sub" / "data.bin"), "also mine");
}

struct Destination
{
    const char* name;
    std::string out; //!< relative to the working folder, which holds a user folder "user"
    std::string mention;
};

class UnsafeDestination : public testing::TestWithParam<Destination>
{
};

} // namespace

TEST_P(UnsafeDestination, IsRefusedBeforeTheRunAndNothingIsTouched)
{
    const Destination& d = GetParam();
    const fs::path dir = Scratch(std::string("dest-") + d.name);
    const fs::path cwd = dir / "work";
    MakeUserFolder(cwd);
    MakeUserFolder(cwd / "user");
    std::ofstream(cwd / "report.txt") << "mine";
    std::ofstream(cwd / "s.json") << ReadFile(fs::path(AI_FABRIC_SCENARIO_DIR) / "default.json");
    const Outcome o = RunIn(cwd, "--scenario=s.json --out=" + d.out, dir);
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    EXPECT_NE(o.stderrText.find("--out=" + d.out + ":"), std::string::npos) << o.stderrText;
    EXPECT_NE(o.stderrText.find(d.mention), std::string::npos) << o.stderrText;
    // Refused before simulating: the run logs its scenario line only once it starts.
    EXPECT_EQ(o.stderrText.find("scenario '"), std::string::npos) << o.stderrText;
    ExpectUserFolderIntact(cwd);
    ExpectUserFolderIntact(cwd / "user");
    EXPECT_EQ(ReadFile(cwd / "report.txt"), "mine");
    EXPECT_FALSE(ReadFile(cwd / "s.json").empty());
    EXPECT_EQ(EntriesIn(cwd), 5u) << "something was created in the working folder";
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    ResultsFolder,
    UnsafeDestination,
    testing::Values(Destination{"dot", ".", "not a folder name"},
                    Destination{"dotdot", "..", "not a folder name"},
                    Destination{"dotslash", "./", "not a folder name"},
                    Destination{"parent_of_cwd", "../work", "holds the working folder"},
                    Destination{"user_folder", "user", "was not written by ai-fabric"},
                    Destination{"regular_file", "report.txt", "not a folder"},
                    Destination{"scenario_file", "s.json", "holds the input s.json"},
                    Destination{"under_a_file", "report.txt/r", "is not a folder"},
                    Destination{"missing_parent", "no/such/r", "does not exist"}),
    [](const testing::TestParamInfo<Destination>& i) { return i.param.name; });

TEST(ResultsFolder, ReplacesOnlyItsOwnFolderAndOnlyWhileItHoldsNothingElse)
{
    const fs::path dir = Scratch("own-folder");
    // A trailing slash names the same folder.
    Outcome o = RunIn(dir, "--out=res/", dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    ASSERT_TRUE(fs::exists(dir / "res" / "summary.json"));
    const std::string marker = ReadFile(dir / "res" / ".ai-fabric-results");
    EXPECT_NE(marker.find("\nsummary.json\n"), std::string::npos) << marker;
    // Its own folder is replaced.
    fs::remove(dir / "res" / "bom.csv");
    o = RunIn(dir, "--out=res", dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    EXPECT_TRUE(fs::exists(dir / "res" / "bom.csv"));
    // A file the user put there makes it the user's.
    std::ofstream(dir / "res" / "notes.txt") << "mine";
    o = RunIn(dir, "--out=res", dir);
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    EXPECT_NE(o.stderrText.find("holds notes.txt"), std::string::npos) << o.stderrText;
    EXPECT_EQ(ReadFile(dir / "res" / "notes.txt"), "mine");
    // So does a folder, even one named like a file the program writes.
    fs::remove(dir / "res" / "notes.txt");
    fs::remove(dir / "res" / "flows.csv");
    fs::create_directory(dir / "res" / "flows.csv");
    o = RunIn(dir, "--out=res", dir);
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    EXPECT_TRUE(fs::is_directory(dir / "res" / "flows.csv"));
    EXPECT_EQ(EntriesIn(dir), 3u) << "only res, stdout.txt and stderr.txt: no staging folder";
    fs::remove_all(dir);
}

TEST(ResultsFolder, AFailedWriteExitsOneAndLeavesNoFolder)
{
    const fs::path dir = Scratch("full-disk");
    // A file-size limit makes the writes fail as a full disk does (EFBIG instead of ENOSPC).
    const Outcome o = RunProgram(std::string("trap '' XFSZ; ulimit -f 4; ") + AI_FABRIC_RUN_BINARY,
                                 "--out=" + (dir / "res").string(), dir);
    EXPECT_EQ(o.exitCode, 1) << o.stderrText;
    EXPECT_NE(o.stderrText.find("failed: File too large; no results folder written"),
              std::string::npos)
        << o.stderrText;
    EXPECT_EQ(EntriesIn(dir), 2u) << "only stdout.txt and stderr.txt";
    fs::remove_all(dir);
}

namespace
{
class Interrupted : public testing::TestWithParam<int>
{
};
} // namespace

TEST_P(Interrupted, RunLeavesNoFolderAndNoStagingFolder)
{
    const int sig = GetParam();
    const fs::path dir = Scratch("signal-" + std::to_string(sig));
    const std::string scenario =
        (fs::path(AI_FABRIC_SCENARIO_DIR) / "training-dp-fat-tree.json").string();
    const std::string out = (dir / "res").string();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0)
    {
        ::freopen("/dev/null", "w", stderr);
        ::freopen("/dev/null", "w", stdout);
        ::execl(AI_FABRIC_RUN_BINARY, AI_FABRIC_RUN_BINARY, ("--scenario=" + scenario).c_str(),
                ("--out=" + out).c_str(), "--pcap", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The staging folder exists from before the simulation; the PCAPs appear in it once the
    // fabric is built.
    bool staging = false;
    for (int i = 0; i < 2000 && !staging; ++i)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        for (const auto& e : fs::directory_iterator(dir))
        {
            staging |= e.path().filename().string().rfind("res.partial.", 0) == 0 &&
                       !fs::is_empty(e.path());
        }
    }
    ASSERT_TRUE(staging);
    ::kill(pid, sig);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_TRUE(fs::is_empty(dir)) << "a folder or staging folder was left";
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(ResultsFolder,
                         Interrupted,
                         testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const testing::TestParamInfo<int>& i) {
                             return std::string(sigabbrev_np(i.param));
                         });

// A results folder inside another would be deleted with it when a later run replaces the outer
// one (and would make the outer one look foreign): refused.
TEST(ResultsFolder, AFolderInsideAResultsFolderIsRefused)
{
    const fs::path dir = Scratch("nested");
    const fs::path cwd = dir / "work";
    fs::create_directories(cwd);
    ASSERT_EQ(RunIn(cwd, "--out=r1", dir).exitCode, 0);
    const std::size_t files = EntriesIn(cwd / "r1");
    const Outcome o = RunIn(cwd, "--out=r1/inner", dir);
    EXPECT_EQ(o.exitCode, 2) << o.stderrText;
    EXPECT_NE(o.stderrText.find("is inside the results folder"), std::string::npos) << o.stderrText;
    EXPECT_EQ(EntriesIn(cwd / "r1"), files) << "the outer results folder was touched";
    EXPECT_EQ(RunIn(cwd, "--out=r1", dir).exitCode, 0) << "the outer one is still replaceable";
    fs::remove_all(dir);
}
