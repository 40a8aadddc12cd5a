#ifndef AI_FABRIC_HUGE_PAGE_HEAP_H
#define AI_FABRIC_HUGE_PAGE_HEAP_H

#include <cstddef>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Put the heap's next \p reserveBytes on transparent huge pages (2 MiB), for a large
 * simulation's state: call first in main, before the simulation allocates.
 *
 * At 1,024 GPUs and more, the ports, queue pairs and events a frame touches are spread over
 * tens of MiB, and with 4 KiB pages nearly every one also misses the processor's TLB.  The
 * heap is grown by \p reserveBytes at once (address space: only what is touched is backed,
 * unless the kernel does not overcommit, vm.overcommit_memory=2, or a process limit counts
 * it) and advised MADV_HUGEPAGE, with its free top, and it is kept: allocations below 32 MiB
 * come from it rather than from mmap, and freed memory is not returned to the system.  A heap
 * that outgrows the reserve continues on ordinary pages.  glibc's
 * GLIBC_TUNABLES=glibc.malloc.hugetlb=1 advises the heap in the same way for a whole process.
 *
 * Nothing in a simulation depends on addresses: results are the same either way.  Does nothing
 * and returns false where it cannot help: off glibc on Linux, with the kernel's transparent
 * huge pages "never", with the global value HugePageHeap false (NS_GLOBAL_VALUE=
 * "HugePageHeap=0", or --HugePageHeap=0 on a CommandLine parsed before), or when the heap's
 * free top already holds 31 MiB (called late).  Returns true when the heap is advised (again
 * true on a later call, which does nothing more).
 */
bool UseHugePageHeap(std::size_t reserveBytes = std::size_t(1) << 30);

} // namespace ns3

#endif
