// UseHugePageHeap: the heap it grows is advised for huge pages, and memory allocated after it
// is backed by them (read back from the kernel's /proc/self/smaps), where the kernel's
// transparent huge pages are enabled.  That results do not depend on it is the shipped-results
// test's: ai-fabric-run calls it.
#include "ns3/ai-fabric-module.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

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

TEST(HugePageHeap, TheHeapAfterItIsAdvisedAndBackedByHugePages)
{
    if (ThpMode() == "never")
    {
        GTEST_SKIP() << "transparent huge pages are off on this machine";
    }
    ASSERT_TRUE(UseHugePageHeap(std::size_t(64) << 20));
    // 8 MiB from the heap (below the 32 MiB mmap threshold it sets), every page written.
    const std::size_t bytes = std::size_t(8) << 20;
    auto* block = static_cast<char*>(std::malloc(bytes));
    ASSERT_NE(block, nullptr);
    std::memset(block, 1, bytes);
    bool advised = false;
    uint64_t hugeKb = 0;
    MappingOf(block + bytes / 2, advised, hugeKb);
    EXPECT_TRUE(advised) << "the heap mapping lacks VmFlags hg (MADV_HUGEPAGE)";
    // Three of its four 2 MiB-aligned ranges at least lie wholly inside the block.
    EXPECT_GE(hugeKb, 3u * 2048) << "AnonHugePages of the heap mapping";
    std::free(block);
}
