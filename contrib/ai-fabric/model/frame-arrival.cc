#include "frame-arrival.h"

#include "fabric-net-device.h"

namespace ns3
{

FrameArrival::FrameArrival(FabricNetDevice* port,
                           uint64_t tieKey,
                           const Ptr<Packet>& control,
                           const FrameInfo* info,
                           uint32_t epoch,
                           bool corrupted)
    : m_port(port),
      m_control(control),
      m_tieKey(tieKey),
      m_info(info ? *info : FrameInfo()),
      m_epoch(epoch),
      m_data(info != nullptr),
      m_corrupted(corrupted)
{
}

void
FrameArrival::Notify()
{
    m_port->Receive(m_control, m_data ? &m_info : nullptr, m_epoch, m_corrupted);
}

} // namespace ns3
