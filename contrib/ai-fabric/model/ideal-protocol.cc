#include "ideal-protocol.h"

#include "range-checkers.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IdealProtocol);

TypeId
IdealProtocol::GetTypeId()
{
    // A buffer larger than any message: each block goes as one slice.
    static TypeId tid = AddAttributes(TypeId("ns3::IdealProtocol")
                                          .SetParent<CollectiveProtocol>()
                                          .SetGroupName("AiFabric")
                                          .AddConstructor<IdealProtocol>(),
                                      kMaxByteCount, "(none: larger than any message)", Time(0),
                                      Time(0), Time(0), DataRate(0), "(none)", 0);
    return tid;
}

} // namespace ns3
