#include "fabric-remote-channel.h"

#include "fabric-net-device.h"
#include "roce-frame.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRemoteChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricRemoteChannel);

namespace
{
// ns-3 3.37's GrantedTimeWindowMpiInterface receives into buffers of MAX_MPI_MSG_SIZE = 2000
// bytes, holding the receive time, node and interface (16 B) and the serialized packet.
constexpr uint32_t kMpiMessageBytes = 2000;
constexpr uint32_t kMpiHeaderBytes = 16;
// The MPI message lands this long before its frame, so that the frame's arrival is scheduled as
// a FrameArrival like on a local link (FabricScheduler orders those canonically).  Less than
// any frame's serialization time, so a message still lands a lookahead after it was sent.
Time
HandOver()
{
    return PicoSeconds(1);
}
} // namespace

TypeId
FabricRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRemoteChannel")
                            .SetParent<FabricChannel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricRemoteChannel>();
    return tid;
}

void
FabricRemoteChannel::Attach(Ptr<FabricNetDevice> device)
{
    FabricChannel::Attach(device);
    if (device->GetNode()->GetSystemId() != MpiInterface::GetSystemId())
    {
        return; // the far end's stand-in
    }
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(
        MakeCallback(&FabricRemoteChannel::Deliver, this).Bind(device));
    device->AggregateObject(receiver);
}

void
FabricRemoteChannel::Transmit(const Ptr<Packet>& p,
                              const FrameInfo*,
                              const FabricNetDevice* sender,
                              Time txTime,
                              Time extraDelay)
{
    NS_ABORT_MSG_IF(GetBitErrorRate() > 0,
                    "FabricRemoteChannel: bit errors are not modelled on links between MPI ranks");
    NS_ABORT_MSG_IF(p->GetSerializedSize() + kMpiHeaderBytes > kMpiMessageBytes,
                    "FabricRemoteChannel: a frame of " << p->GetSerializedSize()
                        << " serialized bytes exceeds ns-3's MPI message buffer");
    const Ptr<FabricNetDevice>& peer = PeerOf(sender);
    MpiInterface::SendPacket(p,
                             Simulator::Now() + txTime + GetDelay() + extraDelay - HandOver(),
                             peer->GetNode()->GetId(),
                             peer->GetIfIndex());
}

void
FabricRemoteChannel::Deliver(Ptr<FabricNetDevice> port, Ptr<Packet> p)
{
    // The sender added the forwarding latency to data frames, not to MAC control frames.  The
    // frame's info is read here, once, as it crosses from the other rank.
    FrameInfo info;
    const bool data = roce::ParseDataFrame(*p, info);
    const bool pipelined = data && port->GetForwardingLatency().IsStrictlyPositive();
    ScheduleArrival(port, p, data ? &info : nullptr, HandOver(), false, pipelined);
}

} // namespace ns3
