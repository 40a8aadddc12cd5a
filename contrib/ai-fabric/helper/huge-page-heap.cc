#include "huge-page-heap.h"

#include "ns3/log.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HugePageHeap");

bool
UseHugePageHeap(std::size_t reserveBytes)
{
    constexpr std::size_t kHugePage = std::size_t(2) << 20;
    constexpr int kMmapThreshold = 32 << 20; // glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX)
    // The heap grows by the reserve at its next growth, keeps it (no trimming), and serves
    // blocks up to 32 MiB itself rather than by mmap.
    const std::size_t reserve = std::min<std::size_t>(reserveBytes, INT_MAX & ~(kHugePage - 1));
    if (mallopt(M_TOP_PAD, static_cast<int>(reserve)) != 1 || mallopt(M_TRIM_THRESHOLD, -1) != 1 ||
        mallopt(M_MMAP_THRESHOLD, kMmapThreshold) != 1)
    {
        NS_LOG_INFO("mallopt refused the heap's settings");
        return false;
    }
    auto* before = static_cast<char*>(sbrk(0));
    // A block larger than the heap's free top makes it grow now, by the reserve.
    void* probe = std::malloc(kMmapThreshold - 4096);
    auto* after = static_cast<char*>(sbrk(0));
    std::free(probe);
    if (!probe || before == reinterpret_cast<char*>(-1) || after <= before)
    {
        NS_LOG_INFO("the heap did not grow (sbrk unavailable)");
        return false;
    }
    const auto first =
        (reinterpret_cast<std::uintptr_t>(before) + kHugePage - 1) & ~(kHugePage - 1);
    const auto last = reinterpret_cast<std::uintptr_t>(after) & ~(kHugePage - 1);
    if (last <= first || madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0)
    {
        NS_LOG_INFO("madvise(MADV_HUGEPAGE) was refused");
        return false;
    }
    NS_LOG_INFO("heap of " << (last - first) / (1 << 20) << " MiB advised for huge pages");
    return true;
}

} // namespace ns3
