#include "no-congestion-control.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NoCongestionControl);

TypeId
NoCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoCongestionControl")
                            .SetParent<RdmaCongestionControl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NoCongestionControl>();
    return tid;
}

} // namespace ns3
