// The results folder of a run: checked before the run, built in a staging folder beside it,
// then put in place whole; it never replaces or removes anything this program did not write.
#ifndef AI_FABRIC_RESULTS_FOLDER_H
#define AI_FABRIC_RESULTS_FOLDER_H

#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace aifabric
{

/** A results folder cannot be written (disk full, permissions changed mid-run). */
class ResultsWriteError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * The results folder \p out of one run.
 *
 * The destination is checked before anything is simulated (CheckDestination): it may not
 * exist, or be a folder this program wrote whose every entry this program wrote (the marker
 * file kMarker lists them); ".", "..", the working folder or a folder above it, a folder holding
 * an input file, a regular file and a parent that is not a writable folder are refused with a
 * ScenarioError naming --out.  Files are written into a staging folder "OUT.partial.XXXXXX"
 * beside the destination, each write checked (Write); Commit puts the folder in place.  A
 * ResultsFolder destroyed without Commit removes its staging folder, and so does SIGINT,
 * SIGTERM, SIGHUP or an abort while one exists.
 */
class ResultsFolder
{
  public:
    /** The marker file of a results folder: the names of the files this program wrote. */
    static constexpr const char* kMarker = ".ai-fabric-results";

    /**
     * Throw ScenarioError (naming \p option, e.g. "--out") unless \p out may receive a results
     * folder; \p inputs are files the run reads (the scenario), which it must not replace.
     * No side effect: every MPI rank can call it.
     */
    static void CheckDestination(const std::string& out, const std::string& option,
                                 const std::vector<std::string>& inputs);

    /** Check the destination (as CheckDestination) and create the staging folder. */
    ResultsFolder(const std::string& out, const std::string& option,
                  const std::vector<std::string>& inputs);
    ~ResultsFolder();
    ResultsFolder(const ResultsFolder&) = delete;
    ResultsFolder& operator=(const ResultsFolder&) = delete;

    /** The destination, as the user will find it. */
    const std::filesystem::path& GetDestination() const { return m_out; }
    /** The folder files are written in until Commit (PCAP writers write there directly). */
    const std::filesystem::path& GetStaging() const { return m_staging; }
    /** Write \p file with \p fill; throws ResultsWriteError if any byte could not be written. */
    void Write(const std::string& file, const std::function<void(std::ostream&)>& fill);
    /**
     * Write the marker (every file of the staging folder: all of them were written here) and
     * put the staging folder in place of the destination, which is checked again since it may
     * have changed during the run; throws ResultsWriteError.
     */
    void Commit();

  private:
    /** Move a replaced folder aside, the staging folder in, and remove the replaced one. */
    void PutInPlace();

    std::filesystem::path m_out;
    std::string m_option;
    std::vector<std::string> m_inputs;
    std::filesystem::path m_staging;
    bool m_committed{false};
};

} // namespace aifabric

#endif
