#include "results-folder.h"

#include "scenario.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace aifabric
{

namespace
{

/**
 * The staging folder that exists now, for the signal handler: its parent's and its own
 * descriptors and its name.  Only async-signal-safe calls use them.
 */
int g_parentFd = -1;
int g_stagingFd = -1;
char g_stagingName[NAME_MAX + 1];
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGABRT};
struct sigaction g_previous[sizeof(kCleanupSignals) / sizeof(int)];

/** Unlink every entry of the folder open as \p fd (flat: a staging folder has no subfolders). */
void
EmptyFolder(int fd)
{
    alignas(struct dirent64) char buf[4096];
    for (;;)
    {
        ::lseek(fd, 0, SEEK_SET);
        const ssize_t n = ::getdents64(fd, buf, sizeof buf);
        bool removed = false;
        for (ssize_t off = 0; off < n;)
        {
            const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
            off += d->d_reclen;
            if (std::strcmp(d->d_name, ".") != 0 && std::strcmp(d->d_name, "..") != 0)
            {
                removed |= ::unlinkat(fd, d->d_name, 0) == 0;
            }
        }
        if (n <= 0 || !removed)
        {
            return;
        }
    }
}

void
RemoveStagingOnSignal(int sig)
{
    if (g_stagingFd >= 0)
    {
        EmptyFolder(g_stagingFd);
        ::unlinkat(g_parentFd, g_stagingName, AT_REMOVEDIR);
    }
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

void
WatchStaging(const fs::path& staging)
{
    const fs::path parent = staging.has_parent_path() ? staging.parent_path() : fs::path(".");
    g_parentFd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    std::strncpy(g_stagingName, staging.filename().c_str(), NAME_MAX);
    g_stagingFd = ::open(staging.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct sigaction action = {};
    action.sa_handler = RemoveStagingOnSignal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i)
    {
        ::sigaction(kCleanupSignals[i], &action, &g_previous[i]);
    }
}

void
UnwatchStaging()
{
    for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i)
    {
        ::sigaction(kCleanupSignals[i], &g_previous[i], nullptr);
    }
    for (int* fd : {&g_stagingFd, &g_parentFd})
    {
        if (*fd >= 0)
        {
            ::close(*fd);
            *fd = -1;
        }
    }
}

/** \p inner is \p outer or lies inside it (both absolute and normal). */
bool
Within(const fs::path& inner, const fs::path& outer)
{
    const auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
    return o == outer.end();
}

/** The destination without trailing separators ("res/" is "res"). */
fs::path
Destination(const std::string& out)
{
    fs::path p(out);
    while (!p.has_filename() && p.has_relative_path())
    {
        p = p.parent_path();
    }
    return p;
}

fs::path
Resolved(const fs::path& p)
{
    std::error_code ec;
    const fs::path r = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal() : r;
}

/** Names the marker of folder \p dir lists ("" if it has none). */
std::set<std::string>
MarkedFiles(const fs::path& dir, bool& marked)
{
    std::set<std::string> names;
    std::error_code ec;
    const fs::path marker = dir / ResultsFolder::kMarker;
    marked = fs::is_regular_file(fs::symlink_status(marker, ec));
    std::ifstream in(marker);
    std::string line;
    while (marked && std::getline(in, line))
    {
        if (!line.empty() && line[0] != '#')
        {
            names.insert(line);
        }
    }
    return names;
}

std::string
Why(const std::string& option, const std::string& out, const std::string& reason)
{
    return option + "=" + out + ": " + reason;
}

} // namespace

void
ResultsFolder::CheckDestination(const std::string& out, const std::string& option,
                                const std::vector<std::string>& inputs)
{
    const fs::path p = Destination(out);
    const std::string name = p.filename().string();
    if (name.empty() || name == "." || name == "..")
    {
        throw ScenarioError(Why(option, out, "not a folder name; give the name of a new folder "
                                             "(or of a results folder this program wrote)"));
    }
    const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
    {
        throw ScenarioError(Why(option, out, "its parent " + parent.string() +
                                                 (fs::exists(parent, ec) ? " is not a folder"
                                                                         : " does not exist")));
    }
    if (::access(parent.c_str(), W_OK | X_OK) != 0)
    {
        throw ScenarioError(Why(option, out, "cannot write in " + parent.string() + ": " +
                                                 std::strerror(errno)));
    }
    const fs::path where = Resolved(p);
    for (fs::path up = where.parent_path(); !up.empty(); up = up.parent_path())
    {
        // Inside a results folder: a later run replacing it would delete this one.
        if (fs::exists(up / kMarker, ec))
        {
            throw ScenarioError(Why(option, out, "is inside the results folder " + up.string() +
                                                     "; give a folder outside it"));
        }
        if (up == up.root_path())
        {
            break;
        }
    }
    if (Within(Resolved(fs::current_path(ec)), where))
    {
        throw ScenarioError(Why(option, out, "holds the working folder; give another folder"));
    }
    for (const std::string& input : inputs)
    {
        if (Within(Resolved(input), where))
        {
            throw ScenarioError(Why(option, out, "holds the input " + input +
                                                     "; give another folder"));
        }
    }
    const fs::file_status status = fs::symlink_status(p, ec);
    if (!fs::exists(status))
    {
        return;
    }
    if (!fs::is_directory(status))
    {
        throw ScenarioError(Why(option, out, std::string("exists and is ") +
                                                 (fs::is_symlink(status) ? "a symbolic link"
                                                                         : "not a folder") +
                                                 "; give a new folder's name"));
    }
    bool marked = false;
    const std::set<std::string> ours = MarkedFiles(p, marked);
    if (!marked)
    {
        throw ScenarioError(Why(option, out, std::string("the folder exists and was not written "
                                                         "by ai-fabric (it has no ") +
                                                 kMarker + "); remove it or give a new name"));
    }
    for (const auto& entry : fs::directory_iterator(p, ec))
    {
        const std::string file = entry.path().filename().string();
        if (file != kMarker && (!ours.count(file) || !entry.is_regular_file(ec) ||
                                entry.is_symlink(ec)))
        {
            throw ScenarioError(Why(option, out, "the results folder holds " + file +
                                                     ", which ai-fabric did not write; move it "
                                                     "away or give another folder"));
        }
    }
}

ResultsFolder::ResultsFolder(const std::string& out, const std::string& option,
                             const std::vector<std::string>& inputs)
    : m_out(Destination(out)),
      m_option(option),
      m_inputs(inputs)
{
    CheckDestination(out, option, inputs);
    NS_ABORT_MSG_IF(g_stagingFd >= 0, "one results folder at a time");
    std::string pattern = m_out.string() + ".partial.XXXXXX";
    if (!::mkdtemp(pattern.data()))
    {
        throw ScenarioError(Why(option, out, std::string("cannot create a folder beside it: ") +
                                                 std::strerror(errno)));
    }
    m_staging = pattern;
    // mkdtemp makes it private (0700); a results folder gets the mode mkdir would give it.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::chmod(m_staging.c_str(), 0777 & ~mask);
    WatchStaging(m_staging);
}

ResultsFolder::~ResultsFolder()
{
    if (!m_committed)
    {
        UnwatchStaging();
        std::error_code ec;
        fs::remove_all(m_staging, ec);
    }
}

void
ResultsFolder::Write(const std::string& file, const std::function<void(std::ostream&)>& fill)
{
    std::ofstream f(m_staging / file, std::ios::binary);
    if (f)
    {
        fill(f);
        f.close();
    }
    if (!f)
    {
        const int error = errno;
        throw ResultsWriteError("writing " + (m_out / file).string() + " failed: " +
                                (error ? std::strerror(error) : "an I/O error") +
                                "; no results folder written");
    }
}

void
ResultsFolder::Commit()
{
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(m_staging))
    {
        files.insert(entry.path().filename().string());
    }
    Write(kMarker, [&files](std::ostream& os) {
        os << "# Written by ai-fabric. A later run may replace this folder (--out) only while it "
              "holds nothing but these files.\n";
        for (const auto& f : files)
        {
            os << f << '\n';
        }
    });
    try
    {
        CheckDestination(m_out.string(), m_option, m_inputs);
    }
    catch (const ScenarioError& e)
    {
        throw ResultsWriteError(std::string(e.what()) + " (it changed during the run); no "
                                                        "results folder written");
    }
    // From here the staging folder is the results folder: a signal must not remove it.  Held
    // signals take their usual effect after the folder is in place (or the error thrown).
    sigset_t held;
    sigemptyset(&held);
    for (int sig : kCleanupSignals)
    {
        sigaddset(&held, sig);
    }
    sigset_t before;
    ::sigprocmask(SIG_BLOCK, &held, &before);
    try
    {
        PutInPlace();
    }
    catch (const ResultsWriteError&)
    {
        ::sigprocmask(SIG_SETMASK, &before, nullptr);
        throw;
    }
    m_committed = true;
    UnwatchStaging();
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
}

void
ResultsFolder::PutInPlace()
{
    std::error_code ec;
    fs::path old;
    if (fs::exists(fs::symlink_status(m_out, ec)))
    {
        // Checked: a folder of our files only.  Move it aside, then remove it once the new one
        // is in place.
        std::string pattern = m_out.string() + ".old.XXXXXX";
        if (!::mkdtemp(pattern.data()) || ::rename(m_out.c_str(), pattern.c_str()) != 0)
        {
            throw ResultsWriteError("replacing " + m_out.string() + " failed: " +
                                    std::strerror(errno) + "; no results folder written");
        }
        old = pattern;
    }
    if (::rename(m_staging.c_str(), m_out.c_str()) != 0)
    {
        const int error = errno;
        if (!old.empty())
        {
            ::rename(old.c_str(), m_out.c_str());
        }
        throw ResultsWriteError("putting " + m_out.string() + " in place failed: " +
                                std::strerror(error) + "; no results folder written");
    }
    if (!old.empty())
    {
        fs::remove_all(old, ec);
    }
}

} // namespace aifabric
