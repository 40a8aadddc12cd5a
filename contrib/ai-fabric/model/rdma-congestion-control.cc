#include "rdma-congestion-control.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>

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

Time
RdmaCongestionControl::RoundTripOr(Time configured, const char* who) const
{
    const Time rtt = configured.IsZero() ? m_fabricRtt : configured;
    NS_ABORT_MSG_IF(rtt.IsZero(),
                    who << " needs a round trip: set its BaseRtt, or install the NICs with "
                           "RdmaHelper, which passes the fabric's on");
    return rtt;
}

uint64_t
RdmaCongestionControl::WindowBytes(double bitRate, Time t)
{
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(bitRate * t.GetSeconds() / 8)));
}

} // namespace ns3
