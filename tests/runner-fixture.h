// Running the project's programs as a user does: a scratch folder, the exit code, stderr.
#ifndef AI_FABRIC_TESTS_RUNNER_FIXTURE_H
#define AI_FABRIC_TESTS_RUNNER_FIXTURE_H

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aifabric_test
{

struct Outcome
{
    int exitCode;
    std::string stdoutText;
    std::string stderrText;
};

/**
 * An empty folder under the temporary directory, unique to this process and \p name; removed
 * at the end of the test program when every test passed (RemoveScratch).
 */
std::filesystem::path Scratch(const std::string& name);
/** Remove the folders Scratch made. */
void RemoveScratch();

/** The whole of file \p p ("" if it cannot be read). */
std::string ReadFile(const std::filesystem::path& p);

/** Rows of a CSV file as maps from header name to text. */
std::vector<std::map<std::string, std::string>> ReadCsv(const std::filesystem::path& p);

/** Run \p binary with \p args (shell words), capturing its output in \p scratch. */
Outcome RunProgram(const std::string& binary, const std::string& args,
                   const std::filesystem::path& scratch);

/**
 * Expect \p o to be a bad-input refusal: exit code 2, one line on stderr naming \p mention,
 * and no results folder \p out (nor a staging folder beside it).
 */
void ExpectRefusedAsBadInput(const Outcome& o, const std::filesystem::path& out,
                             const std::string& mention);

/**
 * Expect results folders \p a and \p b to hold the same non-empty \p files and the same
 * summary.json but for its wall-clock line (the one part that may differ between runs).
 */
void ExpectIdenticalResults(const std::filesystem::path& a, const std::filesystem::path& b,
                            const std::vector<std::string>& files);

} // namespace aifabric_test

#endif
