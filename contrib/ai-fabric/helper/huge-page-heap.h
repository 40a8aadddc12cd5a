#ifndef AI_FABRIC_HUGE_PAGE_HEAP_H
#define AI_FABRIC_HUGE_PAGE_HEAP_H

#include <cstddef>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Back the heap's next \p reserveBytes with transparent huge pages (2 MiB), for a large
 * simulation's state: call first in main, before the simulation allocates.
 *
 * At 1,024 GPUs and more, the ports, queue pairs and events a frame touches are spread over
 * tens of MiB, and with 4 KiB pages nearly every one also misses the processor's TLB.  The
 * heap is grown by \p reserveBytes at once (address space, not memory: only what is touched
 * is backed), advised MADV_HUGEPAGE, and kept (allocations up to 32 MiB come from it, and
 * freed memory is not trimmed).  glibc's GLIBC_TUNABLES=glibc.malloc.hugetlb=1 does the same
 * for a whole process.  A heap that outgrows the reserve continues with ordinary pages.
 *
 * Results do not depend on it (nothing in a simulation depends on addresses); it needs the
 * kernel's transparent huge pages in "madvise" or "always" mode and does nothing under "never".
 * Returns whether the advice was taken.
 */
bool UseHugePageHeap(std::size_t reserveBytes = std::size_t(1) << 30);

} // namespace ns3

#endif
