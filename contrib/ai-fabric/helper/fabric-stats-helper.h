#ifndef AI_FABRIC_FABRIC_STATS_HELPER_H
#define AI_FABRIC_FABRIC_STATS_HELPER_H

#include "ns3/application-container.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/nstime.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Follows a run through trace sources and writes its tables.
 *
 * Messages: each MessageSource's MessageStarted opens a record; each endpoint's Deliver adds the
 * frame's payload to its flow; a message is complete when every byte arrived.  Messages of RDMA
 * queue pairs are recorded by RecordRdmaMessage (start) and RdmaMessageCompleted (acknowledged).
 * Ports: the counters each FabricNetDevice keeps.  Models never print; this helper writes.
 */
class FabricStatsHelper
{
  public:
    /** One message, of a MessageSource or of an RDMA queue pair. */
    struct FlowRecord
    {
        uint32_t flowId{0};
        uint32_t src{0};
        uint32_t dst{0};
        uint64_t bytes{0};
        Time start;
        uint64_t delivered{0}; //!< payload bytes delivered so far
        Time lastArrival;
        bool started{false};
        bool counted{false}; //!< a MessageSource flow, counted from its deliveries
        bool Complete() const { return started && delivered >= bytes; }
    };

    /** Follow \p network's endpoints and the MessageSources in \p sources. */
    void Install(Ptr<FabricNetwork> network, const ApplicationContainer& sources);
    /** An RDMA message \p flowId (distinct from MessageSource flow ids) is posted now. */
    void RecordRdmaMessage(uint32_t flowId, uint32_t src, uint32_t dst, uint64_t bytes);
    /** RDMA message \p flowId was acknowledged in full now. */
    void RdmaMessageCompleted(uint32_t flowId);

    const std::vector<FlowRecord>& Flows() const { return m_flows; }
    /** Frames delivered to hosts: data, and on RDMA traffic ACKs, NAKs and CNPs too. */
    uint64_t GetFramesDelivered() const { return m_framesDelivered; }
    uint64_t GetPayloadDelivered() const { return m_payloadDelivered; }
    /** When the last data frame was delivered (zero if none was). */
    Time GetLastDelivery() const { return m_lastDelivery; }

    /** A line of a results CSV and where it goes among all ranks' lines (ascending key). */
    struct Row
    {
        uint64_t key;
        std::string text;
    };
    static constexpr const char* kFlowsHeader =
        "flow_id,src,dst,bytes,delivered_bytes,start_us,finish_us,fct_us,complete\n";
    /** The flows this process recorded (in a distributed run: those its hosts sent), by id. */
    std::vector<Row> FlowRows() const;
    /** kFlowsHeader, then FlowRows(). */
    void WriteFlows(std::ostream& os) const;
    static std::string LinksHeader();
    /** This process's ports' rows of links.csv, keyed 2 x link + end. */
    std::vector<Row> LinkRows(Time elapsed) const;
    /**
     * One row per port: counters, drops by reason, PFC, ECN, paused time, utilization =
     * time on the wire / \p elapsed, and the link's outages and their time within \p elapsed.
     */
    void WriteLinks(std::ostream& os, Time elapsed) const;

  private:
    void MessageStarted(uint32_t flowId, uint32_t src, uint32_t dst, uint64_t bytes);
    void Delivered(Ptr<const Packet> p, const FrameInfo& info);

    Ptr<FabricNetwork> m_network;
    std::vector<FlowRecord> m_flows; //!< by flow id
    uint64_t m_framesDelivered{0};
    uint64_t m_payloadDelivered{0};
    Time m_lastDelivery;
};

} // namespace ns3

#endif
