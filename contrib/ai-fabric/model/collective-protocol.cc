#include "collective-protocol.h"

#include "range-checkers.h"

#include "ns3/data-rate.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveProtocol);

TypeId
CollectiveProtocol::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveProtocol").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

CollectiveProtocol::CollectiveProtocol(uint64_t lineBytes, uint64_t lineData)
    : m_lineBytes(lineBytes),
      m_lineData(lineData)
{
}

TypeId
CollectiveProtocol::AddAttributes(TypeId tid, uint64_t bufferSize,
                                  const std::string& bufferVariable, Time nvLinkHop,
                                  Time netHop, Time launch, DataRate channelRate,
                                  const std::string& channelRateSource, uint64_t forwardUnit)
{
    return tid
        .AddAttribute("BufferSize",
                      "Bytes of each connection's buffer, flags included, cut into 8 pipeline "
                      "steps (NCCL_STEPS); NCCL's " + bufferVariable + ".",
                      UintegerValue(bufferSize),
                      MakeUintegerAccessor(&CollectiveProtocol::m_bufferSize),
                      MakeUintegerChecker<uint64_t>(kSteps * 128, kMaxByteCount))
        .AddAttribute("NvLinkHopLatency",
                      "Latency a hop inside a server adds before the receiver has the data "
                      "(NCCL's hwLat for NVLink rings).",
                      TimeValue(nvLinkHop),
                      MakeTimeAccessor(&CollectiveProtocol::m_nvLinkHop),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("NetHopLatency",
                      "Latency a hop across the network adds beside the packets' own (NCCL's "
                      "hwLat for network rings: proxy thread and flush).",
                      TimeValue(netHop),
                      MakeTimeAccessor(&CollectiveProtocol::m_netHop),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("LaunchLatency",
                      "Time from a collective's launch to its first step on each rank (NCCL's "
                      "baseLat for rings).",
                      TimeValue(launch),
                      MakeTimeAccessor(&CollectiveProtocol::m_launch),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("ChannelRate",
                      "Data rate one channel (one CTA of the kernel) moves at most: each of its "
                      "queue pairs sends no faster, flags included at the protocol's line "
                      "efficiency; 0 bps: no bound below the links'.  " + channelRateSource,
                      DataRateValue(channelRate),
                      MakeDataRateAccessor(&CollectiveProtocol::m_channelRate),
                      MakeDataRateChecker())
        .AddAttribute("ForwardUnit",
                      "Data bytes of the largest message a ring or tree forwards: a receiver that "
                      "reads line by line (LL, LL128) passes data on while the rest of its step "
                      "still arrives, which messages of this size approximate (at the channel "
                      "rate each adds under NCCL's hop latency); 0: whole slices, as Simple's "
                      "per-step flags allow.",
                      UintegerValue(forwardUnit),
                      MakeUintegerAccessor(&CollectiveProtocol::m_forwardUnit),
                      MakeUintegerChecker<uint64_t>());
}

uint64_t
CollectiveProtocol::Messages(uint64_t bytes, uint64_t pieces) const
{
    pieces = std::max<uint64_t>(1, pieces);
    if (m_forwardUnit > 0)
    {
        pieces = std::max(pieces, (bytes + m_forwardUnit - 1) / m_forwardUnit);
    }
    return pieces;
}

DataRate
CollectiveProtocol::GetChannelWireRate() const
{
    return DataRate(static_cast<uint64_t>(static_cast<double>(m_channelRate.GetBitRate()) *
                                          static_cast<double>(m_lineBytes) /
                                          static_cast<double>(m_lineData)));
}

TypeId
CollectiveProtocol::LookupByShortName(const std::string& name)
{
    for (uint32_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if (tid != GetTypeId() && tid.IsChildOf(GetTypeId()) && tid.HasConstructor() &&
            ObjectFactory(tid.GetName()).Create<CollectiveProtocol>()->GetShortName() == name)
        {
            return tid;
        }
    }
    throw std::invalid_argument("protocol '" + name + "' is unknown");
}

uint64_t
CollectiveProtocol::GetStepPayload() const
{
    return m_bufferSize / kSteps / m_lineBytes * m_lineData;
}

uint32_t
CollectiveProtocol::GetChunkSteps(bool) const
{
    return 1;
}

uint32_t
CollectiveProtocol::GetSliceSteps(bool) const
{
    return 1;
}

} // namespace ns3
