#include "frame-ref.h"

namespace ns3
{

Ptr<Packet>
FrameRef::Share() const
{
    return Ptr<Packet>(m_packet);
}

void
FrameRef::Release()
{
    m_packet->Unref();
    m_packet = nullptr;
}

} // namespace ns3
