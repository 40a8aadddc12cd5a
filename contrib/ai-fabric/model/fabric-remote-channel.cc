#include "fabric-remote-channel.h"

#include "fabric-net-device.h"
#include "roce-frame.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/tag.h"

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

/**
 * The link epoch a frame was sent in, and whether bit errors hit it, carried across ranks (ns-3
 * serializes packet tags into the MPI message): both halves of a cut link change state at the
 * same instants, and a frame sent before the link went down is lost however late its message
 * is received.
 */
class LinkEpochTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FabricRemoteChannel::LinkEpochTag")
                                .SetParent<Tag>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<LinkEpochTag>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 5; }
    void Serialize(TagBuffer i) const override
    {
        i.WriteU32(epoch);
        i.WriteU8(corrupted);
    }
    void Deserialize(TagBuffer i) override
    {
        epoch = i.ReadU32();
        corrupted = i.ReadU8() != 0;
    }
    void Print(std::ostream& os) const override
    {
        os << "epoch=" << epoch << " corrupted=" << corrupted;
    }

    uint32_t epoch{0};
    bool corrupted{false};
};

NS_OBJECT_ENSURE_REGISTERED(LinkEpochTag);
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
FabricRemoteChannel::Transmit(const Ptr<Packet>& control,
                              const FrameInfo* info,
                              const FabricNetDevice* sender,
                              Time txTime,
                              Time extraDelay)
{
    // It crosses to the other rank as bytes: a data frame's are made here, a control frame's
    // are shared with its trace sinks (the tag is a copy's).
    const Ptr<Packet> tagged =
        info ? sender->MakePacket(*info, FabricNetDevice::Side::Out) : control->Copy();
    LinkEpochTag tag;
    tag.epoch = GetEpoch();
    tag.corrupted = Corrupts(sender, tagged->GetSize());
    tagged->AddPacketTag(tag);
    NS_ABORT_MSG_IF(tagged->GetSerializedSize() + kMpiHeaderBytes > kMpiMessageBytes,
                    "FabricRemoteChannel: a frame of " << tagged->GetSerializedSize()
                        << " serialized bytes exceeds ns-3's MPI message buffer");
    const Ptr<FabricNetDevice>& peer = PeerOf(sender);
    MpiInterface::SendPacket(tagged,
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
    LinkEpochTag tag;
    NS_ABORT_MSG_UNLESS(p->RemovePacketTag(tag), "FabricRemoteChannel: a frame without its epoch");
    const bool data = roce::ParseDataFrame(*p, info);
    const bool pipelined = data && port->GetForwardingLatency().IsStrictlyPositive();
    ScheduleArrival(port,
                    data ? nullptr : p, // a data frame travels as its info
                    data ? &info : nullptr,
                    HandOver(),
                    tag.epoch,
                    tag.corrupted,
                    pipelined);
}

} // namespace ns3
