#ifndef AI_FABRIC_DEEPEP_COLLECTIVE_H
#define AI_FABRIC_DEEPEP_COLLECTIVE_H

#include "collective-algorithm.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief DeepEP's high-throughput MoE dispatch (its "normal" kernels): an all-to-all that
 * sends each token across the network once per destination server and fans it out there
 * over NVLink.
 *
 * The request is an all-to-all whose send buffer holds each of a rank's T tokens once per
 * chosen expert (TopK copies, as a plain all-to-all dispatch sends them), so a token is
 * bytes / (T x TopK) bytes.  The ranks hold Experts routed experts, an equal share each; a
 * server's experts form one group.  A request that names its routing (a training job's
 * model: CollectiveRequest::experts and topK) is routed by it instead of Experts and TopK.
 * A token scores every expert (independent, identically distributed scores), keeps the
 * ServersPerToken groups whose best expert scores highest, and is sent to its TopK best
 * experts among them: the gate of DeepEP's benchmark (tests/test_internode.py), which
 * DeepSeek-V3's node-limited routing resembles (V3 ranks a group by the sum of its best two
 * scores).  The schedule moves the expected traffic of that routing (HitProbability), the
 * same between every pair:
 * - to each GPU of its own server (itself: a local copy) over NVLink, the tokens that use one
 *   of that GPU's experts;
 * - to each other server, once, the tokens that use any of its experts, over the network to
 *   the GPU there on the sender's rail (the same local index; where a server lacks it, one of
 *   its GPUs without a rail-mate, off-rail), in pieces of ChunkBytes; that GPU forwards each
 *   piece's tokens over NVLink to each GPU of its server they use (its own: a local copy),
 *   on a connection of their own (channel 1), once the piece has arrived.
 * Pieces go out piece k of every stream before piece k + 1 of any.  What is not modelled:
 * per-token imbalance (every pair carries the expectation), DeepEP's use of a fixed number
 * of SMs (24 in its benchmark) for the copies, and its combine (the reverse traffic, reduced
 * at the forwarder; DeepEP publishes it within 2% of the dispatch): a training job runs all
 * four of a MoE layer's all-to-alls (dispatch and combine, forward and backward) as this
 * dispatch.
 */
class DeepEpCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetShortName() const override { return "deepep"; }
    bool Supports(CollectiveOperation op) const override;

    /**
     * The probability that a token uses at least one of \p targetExperts experts, all in one
     * group, under the routing above: \p experts experts in \p groups equal groups, the token
     * keeping its best \p topKGroups groups (by their best expert) and its best \p topK
     * experts among them (topKGroups cut to groups, topK to the experts they hold); without a
     * group limit the hypergeometric closed form.  Exact
     * (a recursion over the experts in falling score order).  Throws std::invalid_argument
     * unless the groups are equal and targetExperts divides one, every count at least 1.
     */
    static double HitProbability(uint32_t experts,
                                 uint32_t groups,
                                 uint32_t topKGroups,
                                 uint32_t topK,
                                 uint32_t targetExperts);

  private:
    /** A request's routing, and the bytes it sends each rank and server. */
    struct Routing
    {
        uint32_t experts;
        uint32_t topK;
        double rankHit;    //!< the chance that a token uses a given rank's experts
        double serverHit;  //!< the chance that it uses a given server's
        uint64_t toRank;   //!< bytes from each rank to each rank of its server
        uint64_t toServer; //!< bytes from each rank to each other server (0: one server)
    };

    /** The routing of \p request over \p servers servers; throws if it cannot be routed. */
    Routing RoutingOf(const CollectiveRequest& request, uint32_t servers) const;
    void CheckRequest(const CollectiveRequest& request) const override;
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
    /** Each rank's streams to the other servers, fanned out there over NVLink. */
    void AddServerStreams(CollectiveSchedule& s,
                          const CollectiveRequest& r,
                          const std::vector<std::vector<uint32_t>>& servers,
                          const Routing& routing) const;

    uint32_t m_experts{};
    uint32_t m_topK{};
    uint32_t m_serversPerToken{};
    uint64_t m_chunkBytes{};
};

} // namespace ns3

#endif
