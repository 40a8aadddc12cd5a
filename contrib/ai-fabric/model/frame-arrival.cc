#include "frame-arrival.h"

#include "fabric-net-device.h"

namespace ns3
{

FrameArrival::FrameArrival(Ptr<FabricNetDevice> port,
                           Ptr<Packet> p,
                           uint32_t epoch,
                           bool corrupted,
                           bool pipelined)
    : m_port(port),
      m_packet(p),
      m_tieKey(2 * port->GetPortKey() + (pipelined ? 1 : 0)),
      m_epoch(epoch),
      m_corrupted(corrupted)
{
}

void
FrameArrival::Notify()
{
    m_port->Receive(m_packet, m_epoch, m_corrupted);
}

} // namespace ns3
