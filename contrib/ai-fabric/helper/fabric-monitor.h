#ifndef AI_FABRIC_FABRIC_MONITOR_H
#define AI_FABRIC_FABRIC_MONITOR_H

#include "ns3/fabric-network-helper.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/rdma-queue-pair.h"

#include <array>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Time series of fabric state, sampled at a fixed interval: per port and traffic
 * class the bytes queued, whether the peer's PFC pauses the class and the bytes that left the
 * queue (sent, or dropped when the link goes down); per queue pair its congestion control's
 * rate and its frames in flight.
 *
 * Sampling costs no events.  The monitor follows the ports' QueueBytes and Paused trace
 * sources, each NIC's QueuePairCreated and the queue pairs' Rate and FramesInFlight, and keeps
 * the state they report.  When the first change after a sample time k x Interval arrives, it
 * records that sample from the state it holds, which is the state after every event at or
 * before the sample time; Finish records the samples up to the first at or after the last
 * change.  So a monitored run has the same events, and ends when the model's events do.  The
 * trace sources hold a raw pointer to the monitor: keep it alive until the run ends.
 *
 * A port and class enters the series when it first queues a frame or is first paused, a queue
 * pair when it first has a frame in flight; from then on it has a row at every sample.  Rates
 * are those the congestion control reported (DCQCN reports when the queue pair next asks for
 * its rate); a congestion control without a Rate trace source runs at the line rate.
 *
 * Rows are ordered by time, then ports by link and end and class, queue pairs by node and QPN.
 * Split over MPI ranks, each process samples its own ports and queue pairs; Serialize and
 * Merge join them into the series one process records, MaxRows counted over them all.
 */
class FabricMonitor : public Object
{
  public:
    /** Which ports are sampled (plain enum: ns-3 3.37's EnumValue). */
    enum PortSelection
    {
        SWITCH_PORTS, //!< the egress ports of switches (where queues build)
        HOST_PORTS,   //!< the hosts' NIC and NVLink ports
        ALL_PORTS,    //!< both
    };

    static TypeId GetTypeId();

    /**
     * Follow \p network's selected ports, and the queue pairs of its RDMA NICs (install the
     * NICs first): those they have and those they create later.  Call once, before
     * Simulator::Run.
     */
    void Install(Ptr<FabricNetwork> network);
    /**
     * Record the samples up to the first at or after \p lastChange: GetLastChange(), or split
     * over MPI ranks the latest of the processes'.  So every change is in the series.
     */
    void Finish(Time lastChange);
    /** When the monitor last saw a port or queue pair change. */
    Time GetLastChange() const { return m_lastChange; }
    /** This process's series (after Finish), for Merge in another process of the same run. */
    std::string Serialize() const;
    /** Join \p others (other processes' Serialize() of the same run) into this series. */
    void Merge(const std::vector<std::string>& others);
    /**
     * time_us, node, peer, class, queue_bytes, paused, dequeued_bytes: the bytes that left the
     * queue since the last sample, sent or, when the port's link went down, dropped.
     */
    void WritePorts(std::ostream& os) const;
    /** time_us, node, qpn, remote, rate_gbps, frames_in_flight. */
    void WriteQueuePairs(std::ostream& os) const;
    /** Rows recorded, ports and queue pairs together. */
    uint64_t GetRows() const { return m_portRows.size() + m_qpRows.size(); }
    /** Whether MaxRows stopped the recording before the end. */
    bool IsTruncated() const { return m_truncated; }
    Time GetInterval() const { return m_interval; }

  protected:
    void DoDispose() override;

  private:
    static constexpr std::size_t kClasses = 8;
    struct Port
    {
        uint32_t node;
        uint32_t peer;
        uint32_t slot; //!< 2 x link + end: the port's place in a sample
        std::array<uint64_t, kClasses> bytes{};
        std::array<uint64_t, kClasses> dequeued{}; //!< left the queue since the last sample
        std::array<bool, kClasses> paused{};
        uint8_t active{0}; //!< classes in the series (bit per class)
    };
    struct QueuePair
    {
        uint32_t node;
        uint32_t qpn;
        uint32_t remoteNode;
        double rate;       //!< bit/s, as last reported
        uint64_t inFlight{0};
        bool active{false};
    };
    struct PortRow
    {
        int64_t timePs;
        uint32_t port;
        uint8_t cls;
        bool paused;
        uint64_t bytes;
        uint64_t dequeued;
    };
    struct QpRow
    {
        int64_t timePs;
        uint32_t qp;
        double rate;
        uint64_t inFlight;
    };

    static void QueueBytesChanged(FabricMonitor* m, uint32_t port, uint8_t cls, uint64_t before,
                                  uint64_t after);
    static void PausedChanged(FabricMonitor* m, uint32_t port, uint8_t cls, bool paused);
    static void QueuePairCreated(FabricMonitor* m, uint32_t node, Ptr<RdmaQueuePair> qp);
    static void RateChanged(FabricMonitor* m, uint32_t qp, double before, double after);
    static void InFlightChanged(FabricMonitor* m, uint32_t qp, uint64_t before, uint64_t after);
    /** Record every sample time before \p now. */
    void Advance(Time now);
    void Record(Time at);
    /** Order the rows; drop the samples from the first that would pass MaxRows. */
    void Settle();

    Time m_interval;
    PortSelection m_selection{SWITCH_PORTS};
    uint64_t m_maxRows{0};
    Ptr<FabricNetwork> m_network;
    Time m_next; //!< the next sample time to record
    bool m_truncated{false};
    Time m_truncatedAt; //!< the sample MaxRows refused, if m_truncated
    Time m_lastChange;
    std::vector<Port> m_ports;
    std::vector<QueuePair> m_qps;
    std::vector<PortRow> m_portRows;
    std::vector<QpRow> m_qpRows;
};

} // namespace ns3

#endif
