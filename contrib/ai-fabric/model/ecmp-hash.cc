#include "ecmp-hash.h"

#include "roce-frame.h"

namespace ns3
{

namespace
{
uint32_t
Mix(uint32_t h, uint32_t word)
{
    h ^= word;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}
} // namespace

uint32_t
EcmpHash(uint32_t srcIp, uint32_t dstIp, uint16_t srcPort, uint16_t dstPort, uint32_t seed)
{
    uint32_t h = Mix(seed, srcIp);
    h = Mix(h, dstIp);
    h = Mix(h, (uint32_t(srcPort) << 16) | dstPort);
    return Mix(h, 17u); // protocol = UDP
}

uint32_t
FlowHash(const FrameInfo& info, uint32_t seed)
{
    return EcmpHash(roce::HostAddressBits(info.srcHost),
                    roce::HostAddressBits(info.dstHost),
                    info.udpSrcPort,
                    roce::kUdpPort,
                    seed);
}

} // namespace ns3
