#include "ll128-protocol.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(Ll128Protocol);

TypeId
Ll128Protocol::GetTypeId()
{
    // NCCL 2.30: NCCL_LL128_BUFFSIZE = 120 elements x 640 threads x 8 steps x 8 B (src/init.cc);
    // hwLat NVLink ring 1.9 us, network ring 4.0 us; baseLat ring 14 us (src/graph/tuning.cc).
    static TypeId tid = AddAttributes(TypeId("ns3::Ll128Protocol")
                                          .SetParent<CollectiveProtocol>()
                                          .SetGroupName("AiFabric")
                                          .AddConstructor<Ll128Protocol>(),
                                      120 * 640 * kSteps * 8, "NCCL_LL128_BUFFSIZE",
                                      NanoSeconds(1900), NanoSeconds(4000), NanoSeconds(14000),
                                      DataRate("18.35GBps"),
                                      "NCCL 2.30's perChMaxRingLL128Bw for Hopper, 36.7 GB/s per "
                                      "search channel, which its two CTAs share "
                                      "(src/graph/tuning.cc; doc/nccl-facts.md section 1).",
                                      32 * 1024);
    return tid;
}

} // namespace ns3
