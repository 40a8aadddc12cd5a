#include "huge-page-heap.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"
#include "ns3/log.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HugePageHeap");

namespace
{
GlobalValue g_hugePageHeap("HugePageHeap",
                           "Whether UseHugePageHeap puts the heap on transparent huge pages "
                           "(ai-fabric-run, collbench and the benchmarks call it first)",
                           BooleanValue(true),
                           MakeBooleanChecker());

/** Whether the kernel's transparent huge pages are in "always" or "madvise" mode. */
bool
KernelHasHugePages()
{
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(in, line);
    return line.find("[always]") != std::string::npos ||
           line.find("[madvise]") != std::string::npos;
}
} // namespace

bool
UseHugePageHeap(std::size_t reserveBytes)
{
    static bool advised = false;
    if (advised)
    {
        return true;
    }
    BooleanValue wanted;
    g_hugePageHeap.GetValue(wanted);
    if (!wanted.Get())
    {
        NS_LOG_INFO("HugePageHeap is false: the heap stays on ordinary pages");
        return false;
    }
    if (!KernelHasHugePages())
    {
        NS_LOG_INFO("the kernel's transparent huge pages are off");
        return false;
    }
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::size_t kHugePage = std::size_t(2) << 20;
    constexpr int kMmapThreshold = 32 << 20; // glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX)
    constexpr int kDefault = 128 << 10;      // glibc's M_TOP_PAD, M_TRIM_ and M_MMAP_THRESHOLD
    constexpr std::size_t kMargin = std::size_t(1) << 20; // the probe's excess over the free top
    const auto restoreDefaults = [] {
        mallopt(M_MMAP_THRESHOLD, kDefault);
        mallopt(M_TOP_PAD, kDefault);
        mallopt(M_TRIM_THRESHOLD, kDefault);
    };
    // The free top: the heap grows once a block does not fit in it.
    const std::size_t freeTop = mallinfo2().keepcost;
    if (freeTop + kMargin >= std::size_t(kMmapThreshold))
    {
        NS_LOG_INFO("the heap's free top already holds " << freeTop / (1 << 20)
                                                         << " MiB: call UseHugePageHeap first");
        return false;
    }
    const std::size_t reserve = std::min<std::size_t>(reserveBytes, INT_MAX & ~(kHugePage - 1));
    // The heap grows by the reserve at its next growth, keeps it (no trimming), and serves
    // blocks below 32 MiB itself rather than by mmap.
    if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) != 1 ||
        mallopt(M_TOP_PAD, static_cast<int>(reserve)) != 1 || mallopt(M_TRIM_THRESHOLD, -1) != 1)
    {
        restoreDefaults();
        NS_LOG_INFO("mallopt refused the heap's settings");
        return false;
    }
    auto* before = static_cast<char*>(sbrk(0));
    // A block just larger than the free top makes the heap grow now, by the reserve.
    void* probe = std::malloc(freeTop + kMargin);
    auto* after = static_cast<char*>(sbrk(0));
    std::free(probe);
    const auto top = reinterpret_cast<std::uintptr_t>(before) - freeTop;
    const auto first = (top + kHugePage - 1) & ~(kHugePage - 1);
    const auto last = reinterpret_cast<std::uintptr_t>(after) & ~(kHugePage - 1);
    if (!probe || before == reinterpret_cast<char*>(-1) || after <= before || last <= first ||
        madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0)
    {
        restoreDefaults();
        NS_LOG_INFO("the heap did not grow from its top, or madvise refused it");
        return false;
    }
    NS_LOG_INFO("heap of " << (last - first) / (1 << 20) << " MiB advised for huge pages");
    advised = true;
    return true;
#else
    NS_LOG_INFO("huge pages are used on glibc and Linux only");
    return false;
#endif
}

} // namespace ns3
