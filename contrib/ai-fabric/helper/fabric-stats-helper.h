#ifndef AI_FABRIC_FABRIC_STATS_HELPER_H
#define AI_FABRIC_FABRIC_STATS_HELPER_H

#include "ns3/fabric-network-helper.h"
#include "ns3/message-source-helper.h"
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
 * Messages: each message of the MessageSourceHelper has a record; its MessageSource's
 * MessageStarted starts it; each endpoint's Deliver adds the frame's payload to its flow; a
 * message is complete when every byte arrived.  Split over MPI ranks, the sender's process
 * starts a record and the receiver's counts its bytes: MergeFlows joins them.  Messages of RDMA
 * queue pairs are recorded by MessagePosted (start) and MessageAcknowledged (done).
 * Deliveries: the counts each FabricEndpoint keeps.  Ports: the counters each FabricNetDevice
 * keeps.  Models never print; this helper writes.
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

    /** Follow the messages of \p sources (their starts, and their bytes as \p network's
     * endpoints deliver them); the delivery counts are the endpoints' own. */
    void Install(Ptr<FabricNetwork> network, const MessageSourceHelper& sources);
    /**
     * Message \p flowId starts now: a MessageSource's MessageStarted, or an RDMA message
     * posted (its flow ids distinct from MessageSource ones).
     */
    void MessagePosted(uint32_t flowId, uint32_t src, uint32_t dst, uint64_t bytes);
    /** RDMA message \p flowId was acknowledged in full now. */
    void MessageAcknowledged(uint32_t flowId);

    const std::vector<FlowRecord>& Flows() const { return m_flows; }
    /**
     * Join another process's records of the same run into these (flow by flow: its start if
     * it started the flow, its delivered bytes added, the later last arrival).
     */
    void MergeFlows(const std::vector<FlowRecord>& other);
    /** Frames delivered to this process's hosts: data, and on RDMA traffic ACKs, NAKs and CNPs
     * too (their endpoints' counts, FabricEndpoint::GetFramesDelivered). */
    uint64_t GetFramesDelivered() const;
    /** Their payload bytes. */
    uint64_t GetPayloadDelivered() const;
    /** When the last of them was delivered (zero if none was). */
    Time GetLastDelivery() const;

    /** A line of a results CSV and where it goes among all ranks' lines (ascending key). */
    struct Row
    {
        uint64_t key;
        std::string text;
    };
    /** flows.csv: a row per started message, by flow id. */
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
    /** Flow \p flowId's record (made if new), its ends and size set. */
    FlowRecord& Record(uint32_t flowId, uint32_t src, uint32_t dst, uint64_t bytes);
    void Delivered(const FrameInfo& info);

    Ptr<FabricNetwork> m_network;
    std::vector<FlowRecord> m_flows; //!< by flow id
};

} // namespace ns3

#endif
