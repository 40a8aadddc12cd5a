#include "fabric-remote-control-path.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simple-net-device.h"
#include "ns3/simulator.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRemoteControlPath");
NS_OBJECT_ENSURE_REGISTERED(FabricRemoteControlPath);

namespace
{
/** As FabricRemoteChannel's: a notice lands this long before it is due. */
Time
HandOver()
{
    return PicoSeconds(1);
}

// ns-3 3.37's MPI messages hold 2000 bytes: the receive time, node and interface (16 B) and
// the serialized packet (its own headers and a notice's 12 B plus 8 B per value).
constexpr std::size_t kMaxValues = 200;
} // namespace

TypeId
FabricRemoteControlPath::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRemoteControlPath")
                            .SetParent<FabricControlPath>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricRemoteControlPath>();
    return tid;
}

void
FabricRemoteControlPath::SetPartition(const NodeContainer& nodes,
                                      const std::vector<uint32_t>& rankOfNode,
                                      const std::vector<uint32_t>& portsOfNode,
                                      Time lookahead)
{
    const uint32_t ranks = MpiInterface::GetSize();
    m_receivers.assign(ranks, UINT32_MAX);
    m_ifIndex.assign(ranks, 0);
    for (uint32_t n = rankOfNode.size(); n-- > 0;)
    {
        NS_ABORT_MSG_IF(rankOfNode[n] >= ranks,
                        "FabricRemoteControlPath: node " << n << " on rank " << rankOfNode[n]
                                                         << " of " << ranks);
        m_receivers[rankOfNode[n]] = nodes.Get(n)->GetId(); // the rank's lowest-numbered node
        m_ifIndex[rankOfNode[n]] = portsOfNode[n];
    }
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        if (m_receivers[rank] == UINT32_MAX)
        {
            throw std::invalid_argument("MPI rank " + std::to_string(rank) +
                                        " simulates no node of the fabric");
        }
    }
    m_lookahead = lookahead;
    const uint32_t me = MpiInterface::GetSystemId();
    Ptr<Node> node = NodeList::GetNode(m_receivers[me]);
    NS_ABORT_MSG_IF(node->GetNDevices() != m_ifIndex[me],
                    "FabricRemoteControlPath: node " << m_receivers[me] << " has "
                                                     << node->GetNDevices() << " devices, not "
                                                     << m_ifIndex[me] << " ports");
    Ptr<SimpleNetDevice> device = CreateObject<SimpleNetDevice>();
    node->AddDevice(device);
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(
        MakeCallback(&FabricRemoteControlPath::Receive, Ptr<FabricRemoteControlPath>(this)));
    device->AggregateObject(receiver);
}

Time
FabricRemoteControlPath::GetMinLatency() const
{
    // Sent to land a picosecond early, a notice must still land after the window it was sent
    // in: a rank runs events up to the earliest pending one (over all ranks) plus its lookahead.
    return m_lookahead + 2 * HandOver();
}

void
FabricRemoteControlPath::Broadcast(uint32_t id,
                                   uint32_t from,
                                   std::vector<int64_t> values,
                                   Time latency)
{
    CheckNotice(id, latency);
    NS_ABORT_MSG_IF(values.size() > kMaxValues,
                    "FabricRemoteControlPath: a notice of " << values.size()
                                                            << " values exceeds MPI's message");
    const uint32_t me = MpiInterface::GetSystemId();
    std::vector<uint8_t> bytes(12 + 8 * values.size());
    const uint32_t head[] = {id, from, static_cast<uint32_t>(values.size())};
    std::memcpy(bytes.data(), head, sizeof(head));
    std::memcpy(bytes.data() + 12, values.data(), 8 * values.size());
    for (uint32_t rank = 0; rank < m_receivers.size(); ++rank)
    {
        if (rank != me)
        {
            MpiInterface::SendPacket(Create<Packet>(bytes.data(), bytes.size()),
                                     Simulator::Now() + latency - HandOver(),
                                     m_receivers[rank],
                                     m_ifIndex[rank]);
        }
    }
    Deliver(id, from, std::move(values), latency);
}

void
FabricRemoteControlPath::Receive(Ptr<Packet> p)
{
    std::vector<uint8_t> bytes(p->GetSize());
    p->CopyData(bytes.data(), bytes.size());
    uint32_t head[3];
    NS_ABORT_MSG_IF(bytes.size() < sizeof(head), "FabricRemoteControlPath: a short notice");
    std::memcpy(head, bytes.data(), sizeof(head));
    NS_ABORT_MSG_IF(bytes.size() != 12 + 8 * std::size_t(head[2]),
                    "FabricRemoteControlPath: a notice of the wrong size");
    std::vector<int64_t> values(head[2]);
    std::memcpy(values.data(), bytes.data() + 12, 8 * values.size());
    Deliver(head[0], head[1], std::move(values), HandOver());
}

} // namespace ns3
