#ifndef AI_FABRIC_RDMA_CONGESTION_CONTROL_H
#define AI_FABRIC_RDMA_CONGESTION_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/object.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Rate-based congestion control of one RDMA queue pair.
 *
 * The queue pair tells it what happens (frames sent, bytes acknowledged, congestion notified)
 * through the non-virtual entry points and asks it the rate to pace at; a congestion control
 * (none, DCQCN, ...) is a subclass in its own file pair that fills the private Do* hooks, so
 * adding one never touches the NIC.
 */
class RdmaCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();

    /** Start at \p lineRate, the rate of the queue pair's port. */
    void Attach(DataRate lineRate);
    /** The rate to pace at now (never above the line rate). */
    DataRate GetRate();
    /** \p bytes of frames were put on the wire. */
    void NotifySent(uint32_t bytes) { DoNotifySent(bytes); }
    /** \p bytes of payload were newly acknowledged. */
    void NotifyAcked(uint64_t bytes) { DoNotifyAcked(bytes); }
    /** The receiver reported congestion (a CNP). */
    void NotifyCongestion() { DoNotifyCongestion(); }
    DataRate GetLineRate() const { return m_lineRate; }

  private:
    virtual void DoAttach() {}
    virtual DataRate DoGetRate() = 0;
    virtual void DoNotifySent(uint32_t) {}
    virtual void DoNotifyAcked(uint64_t) {}
    virtual void DoNotifyCongestion() {}

    DataRate m_lineRate;
};

} // namespace ns3

#endif
