// Collectives on small fabrics and the alpha-beta model they are checked against, shared by the
// module's ns-3 TestSuites (test.py) and the GoogleTest suite (tests/).
#ifndef AI_FABRIC_COLLECTIVE_CHECKS_H
#define AI_FABRIC_COLLECTIVE_CHECKS_H

#include "ns3/collective-application.h"
#include "ns3/collective-helper.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-topology.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace checks
{

/** What one collective run gave. */
struct CollectiveRun
{
    CollectiveResult result;
    uint64_t framesDropped{0};
    uint64_t pfcPauses{0};
    uint64_t ecnMarked{0};
};

using Attributes = std::vector<std::pair<std::string, std::string>>;
/** Called with the network before the collective starts (to fail or degrade links). */
using NetworkHook = std::function<void(Ptr<FabricNetwork>)>;

/** Attribute defaults of \p type (name=value pairs) for a scope, put back at its end. */
class ScopedDefaults
{
  public:
    ScopedDefaults(const std::string& type, const Attributes& values);
    ~ScopedDefaults();
    ScopedDefaults(const ScopedDefaults&) = delete;
    ScopedDefaults& operator=(const ScopedDefaults&) = delete;

  private:
    std::string m_type;
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_saved;
};

/**
 * Run \p op of \p bytes with \p algorithm (its attributes as name=value pairs) on the first
 * \p ranks hosts of \p topology, the NICs with \p congestionControl (a TypeId name; empty:
 * RdmaNic's default).  The closed forms describe the transfer alone, so the algorithm runs
 * the ideal protocol (IdealProtocol) unless \p attributes name a Protocol.
 */
CollectiveRun RunCollective(const FabricTopology& topology, const std::string& algorithm,
                            CollectiveOperation op, uint64_t bytes, uint32_t ranks,
                            const Attributes& attributes = {}, const NetworkHook& hook = {},
                            const std::string& congestionControl = "");
/** The same on a k=4 fat-tree of 400G hosts, one GPU per server. */
CollectiveRun RunOnFatTree(const std::string& algorithm, CollectiveOperation op,
                           uint64_t bytes, uint32_t ranks, const Attributes& attributes = {});
/** The same on one 400G switch with 16 hosts on 3 m cables (every pair two links apart). */
CollectiveRun RunOnStar(const std::string& algorithm, CollectiveOperation op,
                        uint64_t bytes, uint32_t ranks, const Attributes& attributes = {});

/**
 * The fabric of RunOnFatTree seen by the alpha-beta model, from its configuration and the
 * protocol's frame sizes (not from the simulator's code).
 */
struct FatTreeModel
{
    double rate = 400e9;          //!< bit/s, every link
    double mtu = 4096;            //!< payload bytes per frame
    double dataWire = 4096 + 86;  //!< bytes on the wire: + Eth/VLAN 18, IPv4 20, UDP 8, BTH 12,
                                  //!< ICRC 4, FCS 4, preamble 8, gap 12
    double ackWire = 90;          //!< ACK: 70 B frame (BTH + AETH 4) + preamble and gap
    double forwarding = 500e-9;   //!< switch forwarding latency
    double gamma = 1 / 1.1166e12; //!< seconds per reduced byte (ReductionRate 8933 Gb/s)

    /** Links between hosts a and b: 2 (same leaf), 4 (same pod), 6 (across the core). */
    static uint32_t Hops(uint32_t a, uint32_t b);
    /** Propagation delay from a to b: 3 m to the leaf, 30 m leaf-spine, 100 m to the core. */
    static double PropagationDelay(uint32_t a, uint32_t b);
    /** Seconds per payload byte on a saturated link that also carries one ACK per frame. */
    double Beta() const { return (dataWire + ackWire) * 8 / rate / mtu; }
    /** Seconds per payload byte on a link that carries data one way only. */
    double WireBeta() const { return dataWire * 8 / rate / mtu; }
    /** Start-up cost of a message from a to b: wire delay and store-and-forward per hop. */
    double Alpha(uint32_t a, uint32_t b) const { return Alpha(Hops(a, b), PropagationDelay(a, b)); }
    /** Latency of the ACK of a message's last frame, b back to a. */
    double AckLatency(uint32_t a, uint32_t b) const
    {
        return AckLatency(Hops(a, b), PropagationDelay(a, b));
    }
    /** The same over \p hops links with \p propagation seconds of cable in all. */
    double Alpha(uint32_t hops, double propagation) const;
    double AckLatency(uint32_t hops, double propagation) const;
    /** On RunOnStar's switch: two links of 3 m. */
    double StarAlpha() const { return Alpha(2, 2 * 15e-9); }
    double StarAckLatency() const { return AckLatency(2, 2 * 15e-9); }
};

/**
 * Ring all-reduce of \p n bytes over the first \p p hosts of RunOnFatTree: 2(p-1) steps of n/p
 * bytes, each waiting for the one before it on the left neighbour; with unequal links the
 * critical path is the slowest window of 2(p-1) consecutive ring edges.  Plus the reduction
 * term and the last message's acknowledgement.
 */
double RingAllReduceModel(const FatTreeModel& m, uint32_t p, uint64_t n);

/** The same collective run twice from the same seed: both results, to compare. */
struct DeterminismCheck
{
    CollectiveRun first;
    CollectiveRun second;
};
/** A 16-rank pairwise all-to-all of \p bytes with DCQCN on RunOnFatTree's fabric (ECN thresholds lowered so frames are marked at random), twice. */
DeterminismCheck RunTwice(uint64_t bytes);

} // namespace checks
} // namespace ns3

#endif
