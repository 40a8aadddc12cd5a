#include "rdma-congestion-control.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionControl").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

void
RdmaCongestionControl::Attach(DataRate lineRate)
{
    m_lineRate = lineRate;
    DoAttach();
}

DataRate
RdmaCongestionControl::GetRate()
{
    return std::min(DoGetRate(), m_lineRate);
}

} // namespace ns3
