#include "simple-protocol.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SimpleProtocol);

TypeId
SimpleProtocol::GetTypeId()
{
    // NCCL 2.30: NCCL_BUFFSIZE 4 MiB (src/init.cc); hwLat NVLink ring 3.4 us, network ring 14 us;
    // baseLat ring 8.4 us (src/graph/tuning.cc).
    static TypeId tid = AddAttributes(TypeId("ns3::SimpleProtocol")
                                          .SetParent<CollectiveProtocol>()
                                          .SetGroupName("AiFabric")
                                          .AddConstructor<SimpleProtocol>(),
                                      4 << 20, "NCCL_BUFFSIZE", NanoSeconds(3400),
                                      NanoSeconds(14000), NanoSeconds(8400), DataRate(0),
                                      "NCCL bounds no Simple ring channel below its links "
                                      "(src/graph/tuning.cc).",
                                      0);
    return tid;
}

uint32_t
SimpleProtocol::GetChunkSteps(bool ringPass) const
{
    return ringPass ? kSteps / 2 : 1;
}

uint32_t
SimpleProtocol::GetSliceSteps(bool ringPass) const
{
    return ringPass ? kSteps / 4 : 1;
}

} // namespace ns3
