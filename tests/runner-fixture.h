// Running the project's programs as a user does: a scratch folder, the exit code, stderr.
#ifndef AI_FABRIC_TESTS_RUNNER_FIXTURE_H
#define AI_FABRIC_TESTS_RUNNER_FIXTURE_H

#include <filesystem>
#include <string>

namespace aifabric_test
{

struct Outcome
{
    int exitCode;
    std::string stdoutText;
    std::string stderrText;
};

/** An empty folder under the temporary directory, unique to this process and \p name. */
std::filesystem::path Scratch(const std::string& name);

/** The whole of file \p p ("" if it cannot be read). */
std::string ReadFile(const std::filesystem::path& p);

/** Run \p binary with \p args (shell words), capturing its output in \p scratch. */
Outcome RunProgram(const std::string& binary, const std::string& args,
                   const std::filesystem::path& scratch);

/** summary.json text without its wall-clock line, the one part that may differ between runs. */
std::string WithoutWallClock(const std::string& summary);

} // namespace aifabric_test

#endif
