#ifndef AI_FABRIC_ECMP_HASH_H
#define AI_FABRIC_ECMP_HASH_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Hash of a RoCEv2 flow's five-tuple for ECMP next-hop choice.
 *
 * Source and destination IPv4, protocol 17, UDP source port and destination port 4791, mixed with
 * a per-switch seed.  A switch picks next hop (hash mod n).  The same function with the same seed
 * at two tiers reproduces hash polarization, as switch ASICs with a common default seed do;
 * different seeds decorrelate the tiers.  The mixer is the 32-bit finalizer of MurmurHash3
 * (public domain, A. Appleby), applied word by word.
 */
uint32_t EcmpHash(uint32_t srcIp, uint32_t dstIp, uint16_t srcPort, uint16_t dstPort,
                  uint32_t seed);

struct FrameInfo;
/** EcmpHash of a classified RoCEv2 frame's five-tuple. */
uint32_t FlowHash(const FrameInfo& info, uint32_t seed);

} // namespace ns3

#endif
