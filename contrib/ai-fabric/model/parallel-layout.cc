#include "parallel-layout.h"

namespace ns3
{

namespace
{
/** The field along \p axis of \p c: Coordinates' coordinate, or ParallelLayout's degree. */
template <class T>
auto&
Along(T& c, ParallelAxis axis)
{
    switch (axis)
    {
    case ParallelAxis::TENSOR:
        return c.tp;
    case ParallelAxis::EXPERT:
        return c.ep;
    case ParallelAxis::DATA:
        return c.dp;
    case ParallelAxis::PIPELINE:
        break;
    }
    return c.pp;
}
} // namespace

uint32_t
ParallelLayout::Degree(ParallelAxis axis) const
{
    return Along(*this, axis);
}

ParallelLayout::Coordinates
ParallelLayout::Of(uint32_t rank) const
{
    Coordinates c;
    c.tp = rank % tp;
    rank /= tp;
    c.ep = rank % ep;
    rank /= ep;
    c.dp = rank % dp;
    c.pp = rank / dp;
    return c;
}

uint32_t
ParallelLayout::RankOf(const Coordinates& c) const
{
    return ((c.pp * dp + c.dp) * ep + c.ep) * tp + c.tp;
}

std::vector<std::vector<uint32_t>>
ParallelLayout::Groups(ParallelAxis axis) const
{
    return Groups(std::vector<ParallelAxis>{axis});
}

uint32_t
ParallelLayout::Size(const std::vector<ParallelAxis>& span) const
{
    uint32_t size = 1;
    for (ParallelAxis axis : span)
    {
        size *= Degree(axis);
    }
    return size;
}

uint32_t
ParallelLayout::GroupIndex(uint32_t rank, const std::vector<ParallelAxis>& span) const
{
    // Groups come in order of their first member, the rank with its span coordinates 0: their
    // position is that rank's number over the other axes alone.
    ParallelLayout rest = *this;
    Coordinates c = Of(rank);
    for (ParallelAxis axis : span)
    {
        Along(c, axis) = 0;
        Along(rest, axis) = 1;
    }
    return rest.RankOf(c);
}

std::vector<uint32_t>
ParallelLayout::GroupOf(uint32_t rank, const std::vector<ParallelAxis>& span) const
{
    Coordinates c = Of(rank);
    std::vector<uint32_t> group;
    const uint32_t size = Size(span);
    for (uint32_t i = 0; i < size; ++i)
    {
        uint32_t rest = i;
        for (ParallelAxis axis : span)
        {
            Along(c, axis) = rest % Degree(axis);
            rest /= Degree(axis);
        }
        group.push_back(RankOf(c));
    }
    return group;
}

std::vector<std::vector<uint32_t>>
ParallelLayout::Groups(const std::vector<ParallelAxis>& span) const
{
    std::vector<std::vector<uint32_t>> groups;
    for (uint32_t rank = 0; rank < GetNRanks(); ++rank)
    {
        Coordinates c = Of(rank);
        bool first = true; // each group is listed once, from its first member
        for (ParallelAxis axis : span)
        {
            first = first && Along(c, axis) == 0;
        }
        if (first)
        {
            groups.push_back(GroupOf(rank, span));
        }
    }
    return groups;
}

const char*
ParallelLayout::AxisName(ParallelAxis axis)
{
    switch (axis)
    {
    case ParallelAxis::TENSOR:
        return "tensor";
    case ParallelAxis::EXPERT:
        return "expert";
    case ParallelAxis::DATA:
        return "data";
    case ParallelAxis::PIPELINE:
        return "pipeline";
    }
    return "?";
}

} // namespace ns3
