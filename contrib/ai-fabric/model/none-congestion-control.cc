#include "none-congestion-control.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NoneCongestionControl);

TypeId
NoneCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NoneCongestionControl")
                            .SetParent<RdmaCongestionControl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NoneCongestionControl>();
    return tid;
}

} // namespace ns3
