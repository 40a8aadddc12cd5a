#ifndef AI_FABRIC_FRAME_REF_H
#define AI_FABRIC_FRAME_REF_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A frame's packet held by one owner at a time: a counted reference that moves from a
 * port's queue to the link's arrival event to the next port's queue without touching the
 * packet.
 *
 * ns-3's Ptr has no move constructor, so each hand-over of a Ptr increments and decrements the
 * reference count inside the packet, which the hop before touched about a microsecond of
 * simulated time (thousands of events) earlier: on a large fabric a cache miss at every hop.
 * The per-hop path (FabricNetDevice, FabricChannel, FrameArrival, the port owners) carries the
 * packet as a FrameRef, whose moves copy a pointer; hops read the frame's size from its
 * FrameInfo (roce::FrameBytes).  Share() makes a Ptr for whoever keeps or reads the packet: a
 * trace sink, PCAP, an ECN mark, another MPI rank.
 */
class FrameRef
{
  public:
    /** A new reference to \p p (implicit: a Ptr<Packet> converts where a FrameRef is taken). */
    FrameRef(const Ptr<Packet>& p)
        : m_packet(GetPointer(p))
    {
    }

    FrameRef(FrameRef&& o) noexcept
        : m_packet(std::exchange(o.m_packet, nullptr))
    {
    }

    FrameRef(const FrameRef&) = delete;
    FrameRef& operator=(const FrameRef&) = delete;
    FrameRef& operator=(FrameRef&&) = delete; // owners hand it on; none takes another

    ~FrameRef()
    {
        if (m_packet) // moved from at every hop but the last
        {
            Release();
        }
    }

    /** The packet as a new Ptr, for whoever keeps or reads it. */
    Ptr<Packet> Share() const;

  private:
    /** Drop the reference (the packet is freed if it was the last). */
    void Release();

    Packet* m_packet{nullptr}; //!< holds one reference (none when moved from)
};

} // namespace ns3

#endif
