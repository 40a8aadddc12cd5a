#include "recycled-event.h"

#include <array>
#include <new>

namespace ns3
{

namespace
{
/** A freed object's memory, its first bytes holding the next free one of its size. */
struct FreeSlot
{
    FreeSlot* next;
};

constexpr std::size_t kGranule = alignof(std::max_align_t);
constexpr std::size_t kLists = 16; //!< objects up to 16 granules (256 bytes) are recycled

std::array<FreeSlot*, kLists> g_free{};
uint64_t g_live = 0;

/** The free list of objects of \p size bytes, or kLists if they are not recycled. */
std::size_t
ListOf(std::size_t size)
{
    const std::size_t granules = (size + kGranule - 1) / kGranule;
    return granules == 0 || granules > kLists ? kLists : granules - 1;
}
} // namespace

void*
RecycledEvent::operator new(std::size_t size)
{
    ++g_live;
    const std::size_t list = ListOf(size);
    if (list == kLists || !g_free[list])
    {
        return ::operator new(list == kLists ? size : (list + 1) * kGranule);
    }
    FreeSlot* slot = g_free[list];
    g_free[list] = slot->next;
    return slot;
}

void
RecycledEvent::operator delete(void* p, std::size_t size)
{
    if (!p)
    {
        return;
    }
    --g_live;
    const std::size_t list = ListOf(size);
    if (list == kLists)
    {
        ::operator delete(p);
        return;
    }
    auto* slot = static_cast<FreeSlot*>(p);
    slot->next = g_free[list];
    g_free[list] = slot;
}

uint64_t
RecycledEvent::GetLive()
{
    return g_live;
}

} // namespace ns3
