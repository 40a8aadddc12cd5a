#include "parallel-layout.h"

namespace ns3
{

uint32_t
ParallelLayout::Degree(ParallelAxis axis) const
{
    switch (axis)
    {
    case ParallelAxis::TENSOR:
        return tp;
    case ParallelAxis::EXPERT:
        return ep;
    case ParallelAxis::DATA:
        return dp;
    case ParallelAxis::PIPELINE:
        return pp;
    }
    return 1;
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
    std::vector<std::vector<uint32_t>> groups;
    for (uint32_t rank = 0; rank < GetNRanks(); ++rank)
    {
        Coordinates c = Of(rank);
        uint32_t* along = axis == ParallelAxis::TENSOR   ? &c.tp
                          : axis == ParallelAxis::EXPERT ? &c.ep
                          : axis == ParallelAxis::DATA   ? &c.dp
                                                         : &c.pp;
        if (*along != 0)
        {
            continue; // each group is listed once, from its first member
        }
        std::vector<uint32_t> group;
        for (uint32_t i = 0; i < Degree(axis); ++i)
        {
            *along = i;
            group.push_back(RankOf(c));
        }
        groups.push_back(std::move(group));
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
