#ifndef AI_FABRIC_MESSAGE_SOURCE_HELPER_H
#define AI_FABRIC_MESSAGE_SOURCE_HELPER_H

#include "ns3/application-container.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/message-queue-pair.h"
#include "ns3/message-source.h"
#include "ns3/object-factory.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Installs MessageSource applications on fabric hosts, numbering flows 0, 1, 2, ...
 */
class MessageSourceHelper
{
  public:
    MessageSourceHelper();
    /** An attribute for every source installed from now on (e.g. "DataRate", "Priority"). */
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /** A message Install was asked for, whichever process sends it. */
    struct Message
    {
        uint32_t flowId;
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
    };

    /**
     * One message of \p bytes from host \p src to host \p dst, starting at \p start.  Split
     * over MPI ranks, a message from another rank's host takes its flow id and is listed in
     * GetMessages(), but that rank installs its source: null here.
     */
    Ptr<MessageSource> Install(Ptr<FabricNetwork> network, uint32_t src, uint32_t dst,
                               uint64_t bytes, Time start);
    /**
     * At fidelity "flow": the message source Install would give the next flow, as a sending
     * end of \p network's FlowNetwork (RdmaHelper::SetFlowLevel and Install make it).  It
     * takes the flow id, the UDP source port and so the path a MessageSource would, frames of
     * its PayloadSize, is paced at its DataRate (0: not paced) and has no ACKs: a message
     * completes when its last frame arrives.  Priority is not modelled (every flow shares
     * fairly).  Throws std::invalid_argument on hosts Install would refuse, or without a
     * FlowNetwork.
     */
    Ptr<MessageQueuePair> ConnectFlowLevel(Ptr<FabricNetwork> network, uint32_t src, uint32_t dst);
    /** Every source installed so far (in this process). */
    const ApplicationContainer& GetSources() const { return m_sources; }
    /** Every message Install numbered so far, in flow id order (in every process). */
    const std::vector<Message>& GetMessages() const { return m_messages; }

  private:
    ObjectFactory m_factory;
    ApplicationContainer m_sources;
    std::vector<Message> m_messages;
    uint32_t m_nextFlowId{0};
};

} // namespace ns3

#endif
