#ifndef AI_FABRIC_PARALLEL_LAYOUT_H
#define AI_FABRIC_PARALLEL_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** The axes a training job is parallel along. */
enum class ParallelAxis
{
    TENSOR,   //!< TP: a layer's matrices split across ranks
    EXPERT,   //!< EP: a MoE layer's experts split across ranks
    DATA,     //!< DP: replicas over different samples
    PIPELINE, //!< PP: consecutive layers on consecutive stages
};

/**
 * \ingroup ai-fabric
 * \brief The parallel degrees of a job and each rank's coordinates along them.
 *
 * Ranks are numbered with the tensor axis fastest, then expert, data and pipeline
 * (Megatron-LM's default order, tp-ep-dp-pp): a tensor-parallel group is consecutive ranks, so
 * packed placement puts it inside a server, and pipeline stages are the outermost blocks.
 */
struct ParallelLayout
{
    uint32_t tp{1};
    uint32_t ep{1};
    uint32_t dp{1};
    uint32_t pp{1};

    /** A rank's position along each axis. */
    struct Coordinates
    {
        uint32_t tp;
        uint32_t ep;
        uint32_t dp;
        uint32_t pp;
    };

    uint32_t GetNRanks() const { return tp * ep * dp * pp; }
    uint32_t Degree(ParallelAxis axis) const;
    Coordinates Of(uint32_t rank) const;
    uint32_t RankOf(const Coordinates& c) const;
    /**
     * The groups along \p axis: each lists the ranks that differ only in that coordinate, in
     * its order (a pipeline group is one rank per stage, stage 0 first).  Groups come in
     * order of their lowest rank.
     */
    std::vector<std::vector<uint32_t>> Groups(ParallelAxis axis) const;
    /**
     * The groups spanning the axes \p span together: each lists the ranks that differ only in
     * those coordinates, the first axis of \p span fastest (so {EXPERT, DATA} lists a group in
     * rank order).  Groups come in order of their lowest rank.
     */
    std::vector<std::vector<uint32_t>> Groups(const std::vector<ParallelAxis>& span) const;
    /** The group spanning \p span that holds \p rank, as Groups(\p span) lists it. */
    std::vector<uint32_t> GroupOf(uint32_t rank, const std::vector<ParallelAxis>& span) const;
    /** The ranks of a group spanning \p span (distinct axes): the product of their degrees. */
    uint32_t Size(const std::vector<ParallelAxis>& span) const;
    /** The position of \p rank's group in Groups(\p span). */
    uint32_t GroupIndex(uint32_t rank, const std::vector<ParallelAxis>& span) const;
    static const char* AxisName(ParallelAxis axis);
};

} // namespace ns3

#endif
