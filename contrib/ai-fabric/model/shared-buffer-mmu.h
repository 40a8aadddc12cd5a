#ifndef AI_FABRIC_SHARED_BUFFER_MMU_H
#define AI_FABRIC_SHARED_BUFFER_MMU_H

#include "fabric-net-device.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Shared-buffer memory management unit of one switch.
 *
 * The buffer is split into a reserve per ingress port and priority, a PFC headroom per port,
 * and a shared pool.  Lossless traffic (PFC enabled) is accounted at ingress: a frame uses the
 * reserve, then the shared pool while the ingress queue's shared use stays below
 * alpha x (free shared buffer) (Choudhury & Hahne dynamic thresholds, IEEE/ACM ToN 1998); beyond
 * that the ingress asserts PFC XOFF and the frames still in flight land in headroom.  XON is
 * sent when the headroom is empty and the shared use is XonOffset below the threshold.  Lossy
 * traffic (PFC disabled) is admitted at egress by the same dynamic threshold and dropped above it.
 */
class SharedBufferMmu : public Object
{
  public:
    /** Called to assert (true) or release (false) PFC on an ingress port for a priority. */
    using PauseHandler = Callback<void, uint16_t, uint8_t, bool>;

    static TypeId GetTypeId();
    SharedBufferMmu();

    /**
     * Size the per-port state for \p headroomBytes.size() ports, each with the PFC headroom
     * given (bytes).  False if BufferSize cannot hold the reserves and headroom (GetCarvedBytes)
     * with room left for a shared pool.
     */
    bool Configure(const std::vector<uint64_t>& headroomBytes);
    /** Bytes set aside for reserves and PFC headroom by Configure(). */
    uint64_t GetCarvedBytes() const { return m_carved; }
    uint64_t GetBufferSize() const { return m_bufferSize.GetValue(); }
    void SetPauseHandler(PauseHandler h) { m_pauseHandler = h; }

    /**
     * Admit \p bytes arriving on \p ingress for \p egress in class \p priority; on refusal
     * \p reason says why.
     */
    bool Admit(uint16_t ingress, uint16_t egress, uint8_t priority, uint32_t bytes,
               DropReason& reason);
    /** Release what Admit() charged when the frame leaves \p egress. */
    void Release(uint16_t ingress, uint16_t egress, uint8_t priority, uint32_t bytes);

    /** Bytes held now in every pool together. */
    uint64_t GetTotalUsed() const;
    /** Largest total occupancy seen (bytes). */
    uint64_t GetPeakUsed() const { return m_peakUsed; }
    /** PFC headroom of ingress port \p port (bytes, as Configure() was given it). */
    uint64_t GetHeadroomCap(uint16_t port) const { return m_headroomCap[port]; }
    /** Most headroom port \p port has held at once (bytes). */
    uint64_t GetHeadroomPeak(uint16_t port) const { return m_headroomPeak[port]; }
    /** The dynamic threshold now: alpha x free shared bytes. */
    uint64_t Threshold() const;

  private:
    struct IngressQueue
    {
        uint64_t reserved{0};
        uint64_t shared{0};
        uint64_t headroom{0};
        bool xoff{false};
    };
    IngressQueue& Ingress(uint16_t port, uint8_t priority)
    {
        return m_ingress[port * FabricNetDevice::kClasses + priority];
    }
    bool AdmitLossless(uint16_t ingress, uint8_t priority, uint32_t bytes, DropReason& reason);
    bool AdmitLossy(uint16_t egress, uint8_t priority, uint32_t bytes, DropReason& reason);
    void UpdatePeak();

    QueueSize m_bufferSize;
    QueueSize m_reserve;
    QueueSize m_xonOffset;
    uint64_t m_reserveBytes{0};   //!< m_reserve in bytes, read by Configure
    uint64_t m_xonOffsetBytes{0}; //!< m_xonOffset in bytes, read by Configure
    double m_alpha{};
    bool m_pfcEnabled{};

    uint64_t m_carved{0};
    uint64_t m_sharedCapacity{0};
    uint64_t m_sharedUsed{0};
    uint64_t m_reservedUsed{0};
    uint64_t m_headroomUsedTotal{0};
    uint64_t m_peakUsed{0};
    std::vector<IngressQueue> m_ingress;     //!< [port * 8 + priority]
    std::vector<uint64_t> m_headroomCap;     //!< per port
    std::vector<uint64_t> m_headroomUsed;    //!< per port
    std::vector<uint64_t> m_headroomPeak;    //!< per port
    std::vector<uint64_t> m_egressShared;    //!< lossy: [port * 8 + priority]
    PauseHandler m_pauseHandler;
};

} // namespace ns3

#endif
