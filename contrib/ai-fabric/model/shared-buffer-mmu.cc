#include "shared-buffer-mmu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBufferMmu");
NS_OBJECT_ENSURE_REGISTERED(SharedBufferMmu);

TypeId
SharedBufferMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBufferMmu")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<SharedBufferMmu>()
            .AddAttribute("BufferSize",
                          "Packet buffer of the switch.  Default 32 MiB: the class of a "
                          "64 x 400G switch ASIC (the fabric issue's figure; Tomahawk-class "
                          "parts carry 32-113 MiB).",
                          QueueSizeValue(QueueSize("32MiB")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_bufferSize),
                          MakeQueueSizeChecker())
            .AddAttribute("ReservePerQueue",
                          "Guaranteed bytes per ingress port and priority, used before the "
                          "shared pool.  Default: one 4096-byte-payload frame on the wire.",
                          QueueSizeValue(QueueSize("4182B")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_reserve),
                          MakeQueueSizeChecker())
            .AddAttribute("Alpha",
                          "Dynamic-threshold factor: a queue may hold alpha x free shared "
                          "buffer (Choudhury & Hahne 1998).  Default 1/8, a common ASIC setting.",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SharedBufferMmu::m_alpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 1.0))
            .AddAttribute("XonOffset",
                          "How far below the threshold an ingress queue must drain before XON. "
                          " Default: two 4096-byte-payload frames, so a resumed sender is not "
                          "paused again at once.",
                          QueueSizeValue(QueueSize("8364B")),
                          MakeQueueSizeAccessor(&SharedBufferMmu::m_xonOffset),
                          MakeQueueSizeChecker())
            .AddAttribute("PfcEnabled",
                          "Lossless (PFC, ingress accounting) for every class; false makes "
                          "every class lossy (egress thresholds, drops).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SharedBufferMmu::m_pfcEnabled),
                          MakeBooleanChecker());
    return tid;
}

SharedBufferMmu::SharedBufferMmu()
    : m_bufferSize("32MiB"),
      m_reserve("4182B"),
      m_xonOffset("8364B")
{
}

bool
SharedBufferMmu::Configure(const std::vector<uint64_t>& headroomBytes)
{
    const std::size_t ports = headroomBytes.size();
    m_ingress.assign(ports * FabricNetDevice::kClasses, IngressQueue());
    m_egressShared.assign(ports * FabricNetDevice::kClasses, 0);
    m_headroomCap = headroomBytes;
    m_headroomUsed.assign(ports, 0);
    m_headroomPeak.assign(ports, 0);
    m_reserveBytes = m_reserve.GetValue();
    m_xonOffsetBytes = m_xonOffset.GetValue();
    m_carved = ports * FabricNetDevice::kClasses * m_reserveBytes;
    if (m_pfcEnabled)
    {
        for (uint64_t h : headroomBytes)
        {
            m_carved += h;
        }
    }
    if (m_carved >= m_bufferSize.GetValue())
    {
        m_sharedCapacity = 0;
        return false;
    }
    m_sharedCapacity = m_bufferSize.GetValue() - m_carved;
    return true;
}

uint64_t
SharedBufferMmu::Threshold() const
{
    return static_cast<uint64_t>(m_alpha * double(m_sharedCapacity - m_sharedUsed));
}

uint64_t
SharedBufferMmu::GetTotalUsed() const
{
    return m_sharedUsed + m_reservedUsed + m_headroomUsedTotal;
}

void
SharedBufferMmu::UpdatePeak()
{
    m_peakUsed = std::max(m_peakUsed, GetTotalUsed());
}

bool
SharedBufferMmu::Admit(uint16_t ingress, uint16_t egress, uint8_t priority, uint32_t bytes,
                       DropReason& reason)
{
    const bool ok = m_pfcEnabled ? AdmitLossless(ingress, priority, bytes, reason)
                                 : AdmitLossy(egress, priority, bytes, reason);
    UpdatePeak();
    return ok;
}

bool
SharedBufferMmu::AdmitLossless(uint16_t ingress, uint8_t priority, uint32_t bytes,
                               DropReason& reason)
{
    IngressQueue& q = Ingress(ingress, priority);
    if (q.reserved + bytes <= m_reserveBytes)
    {
        q.reserved += bytes;
        m_reservedUsed += bytes;
        return true;
    }
    if (!q.xoff && q.shared + bytes <= Threshold() && m_sharedUsed + bytes <= m_sharedCapacity)
    {
        q.shared += bytes;
        m_sharedUsed += bytes;
        return true;
    }
    if (!q.xoff)
    {
        q.xoff = true;
        NS_LOG_LOGIC("XOFF port " << ingress << " prio " << unsigned(priority));
        m_pauseHandler(ingress, priority, true);
    }
    if (m_headroomUsed[ingress] + bytes <= m_headroomCap[ingress])
    {
        q.headroom += bytes;
        m_headroomUsed[ingress] += bytes;
        m_headroomPeak[ingress] = std::max(m_headroomPeak[ingress], m_headroomUsed[ingress]);
        m_headroomUsedTotal += bytes;
        return true;
    }
    reason = DropReason::HeadroomOverflow;
    return false;
}

bool
SharedBufferMmu::AdmitLossy(uint16_t egress, uint8_t priority, uint32_t bytes, DropReason& reason)
{
    uint64_t& used = m_egressShared[egress * FabricNetDevice::kClasses + priority];
    if (used + bytes <= Threshold() && m_sharedUsed + bytes <= m_sharedCapacity)
    {
        used += bytes;
        m_sharedUsed += bytes;
        return true;
    }
    reason = DropReason::BufferFull;
    return false;
}

void
SharedBufferMmu::Release(uint16_t ingress, uint16_t egress, uint8_t priority, uint32_t bytes)
{
    if (!m_pfcEnabled)
    {
        m_egressShared[egress * FabricNetDevice::kClasses + priority] -= bytes;
        m_sharedUsed -= bytes;
        return;
    }
    IngressQueue& q = Ingress(ingress, priority);
    // Free headroom first, then shared, then the reserve (the reverse of the charge order).
    uint64_t left = bytes;
    const uint64_t fromHeadroom = std::min(left, q.headroom);
    q.headroom -= fromHeadroom;
    m_headroomUsed[ingress] -= fromHeadroom;
    m_headroomUsedTotal -= fromHeadroom;
    left -= fromHeadroom;
    const uint64_t fromShared = std::min(left, q.shared);
    q.shared -= fromShared;
    m_sharedUsed -= fromShared;
    left -= fromShared;
    NS_ASSERT_MSG(left <= q.reserved, "MMU released more than it admitted");
    q.reserved -= left;
    m_reservedUsed -= left;
    if (q.xoff && q.headroom == 0 &&
        (q.shared == 0 || q.shared + m_xonOffsetBytes <= Threshold()))
    {
        q.xoff = false;
        NS_LOG_LOGIC("XON port " << ingress << " prio " << unsigned(priority));
        m_pauseHandler(ingress, priority, false);
    }
}

} // namespace ns3
