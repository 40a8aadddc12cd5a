// UseHugePageHeap, in a fresh process each: the heap it grows is advised for huge pages and
// memory allocated after it is backed by them (read back from the kernel's /proc/self/smaps),
// where the kernel's transparent huge pages are enabled; with the global value HugePageHeap
// false it does nothing.  That results do not depend on it is the shipped-results test's:
// ai-fabric-run calls it.
#include "ns3/ai-fabric-module.h"
#include "ns3/boolean.h"
#include "ns3/global-value.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;

namespace
{
/** The kernel's transparent huge page mode: "always", "madvise" or "never". */
std::string
ThpMode()
{
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(in, line);
    const auto open = line.find('[');
    const auto close = line.find(']');
    return open == std::string::npos ? "never" : line.substr(open + 1, close - open - 1);
}

/** The smaps fields of the mapping holding \p address: whether it is advised, its huge KiB. */
void
MappingOf(const void* address, bool& advised, uint64_t& hugeKb)
{
    const auto a = reinterpret_cast<uintptr_t>(address);
    std::ifstream in("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(in, line))
    {
        uintptr_t from = 0;
        uintptr_t to = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> from >> dash >> to && dash == '-' &&
            line.find(' ') != std::string::npos && line.find(':') > line.find(' '))
        {
            inside = from <= a && a < to;
            continue;
        }
        if (!inside)
        {
            continue;
        }
        if (line.rfind("AnonHugePages:", 0) == 0)
        {
            hugeKb = std::stoull(line.substr(std::strlen("AnonHugePages:")));
        }
        if (line.rfind("VmFlags:", 0) == 0)
        {
            advised = line.find(" hg") != std::string::npos;
        }
    }
}
} // namespace

/** What a fresh process saw: UseHugePageHeap's answers, the 8 MiB block's mapping after it. */
struct Seen
{
    int first{-1};  //!< the first call's answer
    int second{-1}; //!< a second call's
    int advised{-1};
    uint64_t hugeKb{0};
};

/**
 * Run UseHugePageHeap twice in a child process (the heap of this one has run other tests),
 * with the global value HugePageHeap \p wanted, then allocate and write 8 MiB there.
 */
Seen
InChild(bool wanted)
{
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    if (child == 0)
    {
        close(fds[0]);
        GlobalValue::Bind("HugePageHeap", BooleanValue(wanted));
        Seen seen;
        seen.first = UseHugePageHeap(std::size_t(64) << 20);
        seen.second = UseHugePageHeap(std::size_t(64) << 20);
        // 8 MiB from the heap (below the 32 MiB mmap threshold it sets), every page written.
        const std::size_t bytes = std::size_t(8) << 20;
        auto* block = static_cast<char*>(std::malloc(bytes));
        std::memset(block, 1, bytes);
        bool advised = false;
        MappingOf(block + bytes / 2, advised, seen.hugeKb);
        seen.advised = advised;
        const bool written = write(fds[1], &seen, sizeof(seen)) == sizeof(seen);
        std::free(block);
        _exit(written ? 0 : 1);
    }
    close(fds[1]);
    Seen seen;
    EXPECT_EQ(read(fds[0], &seen, sizeof(seen)), static_cast<ssize_t>(sizeof(seen)));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return seen;
}

TEST(HugePageHeap, TheHeapAfterItIsAdvisedAndBackedByHugePages)
{
    if (ThpMode() == "never")
    {
        GTEST_SKIP() << "transparent huge pages are off on this machine";
    }
    const Seen seen = InChild(true);
    EXPECT_EQ(seen.first, 1);
    EXPECT_EQ(seen.second, 1) << "a second call answers as the first";
    EXPECT_EQ(seen.advised, 1) << "the heap mapping lacks VmFlags hg (MADV_HUGEPAGE)";
    // The block lies in the advised range (its free top included), so its four 2 MiB-aligned
    // ranges but the partial ones at its ends can be huge pages; the kernel gives at least one.
    EXPECT_GE(seen.hugeKb, 2048u) << "AnonHugePages of the heap mapping";
}

TEST(HugePageHeap, TheGlobalValueFalseLeavesTheHeapOnOrdinaryPages)
{
    const Seen seen = InChild(false);
    EXPECT_EQ(seen.first, 0);
    EXPECT_EQ(seen.second, 0);
    EXPECT_EQ(seen.advised, 0) << "the heap mapping is advised MADV_HUGEPAGE";
    if (ThpMode() != "always")
    {
        EXPECT_EQ(seen.hugeKb, 0u);
    }
}
