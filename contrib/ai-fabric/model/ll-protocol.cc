#include "ll-protocol.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LlProtocol);

TypeId
LlProtocol::GetTypeId()
{
    // NCCL 2.30: NCCL_LL_BUFFSIZE = 8 lines x 512 threads x 8 steps x 16 B (src/init.cc);
    // hwLat NVLink ring 0.6 us, network ring 2.7 us; baseLat ring 6.6 us (src/graph/tuning.cc).
    static TypeId tid = AddAttributes(TypeId("ns3::LlProtocol")
                                          .SetParent<CollectiveProtocol>()
                                          .SetGroupName("AiFabric")
                                          .AddConstructor<LlProtocol>(),
                                      8 * 512 * kSteps * kLineBytes, "NCCL_LL_BUFFSIZE",
                                      NanoSeconds(600), NanoSeconds(2700), NanoSeconds(6600),
                                      DataRate(0),
                                      "NCCL bounds LL's total (llMaxBw), not a channel's "
                                      "(src/graph/tuning.cc).",
                                      32 * 1024);
    return tid;
}

} // namespace ns3
