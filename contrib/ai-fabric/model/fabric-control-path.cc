#include "fabric-control-path.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricControlPath");
NS_OBJECT_ENSURE_REGISTERED(FabricControlPath);

TypeId
FabricControlPath::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricControlPath")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricControlPath>();
    return tid;
}

uint32_t
FabricControlPath::AddHandler(Handler handler)
{
    m_handlers.push_back(handler);
    return static_cast<uint32_t>(m_handlers.size() - 1);
}

void
FabricControlPath::Broadcast(uint32_t id, uint32_t from, std::vector<int64_t> values, Time latency)
{
    CheckNotice(id, latency);
    Deliver(id, from, std::move(values), latency);
}

void
FabricControlPath::SetPartition(const NodeContainer&,
                                const std::vector<uint32_t>&,
                                const std::vector<uint32_t>&,
                                Time)
{
    throw std::logic_error("FabricControlPath: a run split over MPI ranks needs "
                           "FabricRemoteControlPath (ai-fabric built with ns-3's mpi module)");
}

Time
FabricControlPath::GetMinLatency() const
{
    return Time(0);
}

void
FabricControlPath::CheckNotice(uint32_t id, Time latency) const
{
    if (id >= m_handlers.size())
    {
        throw std::invalid_argument("FabricControlPath: no handler " + std::to_string(id));
    }
    CheckLatency("a notice's latency of", latency);
}

void
FabricControlPath::CheckLatency(const std::string& what, Time latency) const
{
    if (latency < GetMinLatency())
    {
        throw std::invalid_argument(
            what + " " + std::to_string(latency.GetPicoSeconds()) +
            " ps: split over MPI ranks, a notice takes more than each rank's lookahead; "
            "allowed: at least " + std::to_string(GetMinLatency().GetPicoSeconds()) + " ps");
    }
}

void
FabricControlPath::Deliver(uint32_t id, uint32_t from, std::vector<int64_t> values, Time delay)
{
    NS_LOG_FUNCTION(this << id << from << delay);
    Simulator::Schedule(delay,
                        Ptr<EventImpl>(new ControlArrival(m_handlers.at(id), id, from,
                                                          std::move(values)),
                                       false));
}

void
FabricControlPath::DoDispose()
{
    m_handlers.clear();
    Object::DoDispose();
}

ControlArrival::ControlArrival(FabricControlPath::Handler handler,
                               uint32_t id,
                               uint32_t from,
                               std::vector<int64_t> values)
    : m_handler(handler),
      m_tieKey(kTieKeyBase | (uint64_t(id) << 32) | from),
      m_from(from),
      m_values(std::move(values))
{
}

void
ControlArrival::Notify()
{
    m_handler(m_from, m_values);
}

} // namespace ns3
