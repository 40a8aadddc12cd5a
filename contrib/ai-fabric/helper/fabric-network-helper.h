#ifndef AI_FABRIC_FABRIC_NETWORK_HELPER_H
#define AI_FABRIC_FABRIC_NETWORK_HELPER_H

#include "ns3/fabric-channel.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A fabric instantiated in ns-3: one Node per topology node, one FabricChannel and two
 * FabricNetDevices per link, a FabricSwitch or FabricEndpoint per node, and its routing.
 */
class FabricNetwork : public Object
{
  public:
    static TypeId GetTypeId();

    const FabricTopology& GetTopology() const { return m_topology; }
    uint32_t GetNHosts() const { return m_topology.GetNHosts(); }
    Ptr<Node> GetNode(uint32_t nodeId) const { return m_nodes.Get(nodeId); }
    Ptr<Node> GetHostNode(uint32_t hostId) const;
    Ptr<FabricEndpoint> GetEndpoint(uint32_t hostId) const;
    /** The switch of topology node \p nodeId (null for hosts). */
    Ptr<FabricSwitch> GetSwitch(uint32_t nodeId) const { return m_switches[nodeId]; }
    Ptr<FabricChannel> GetChannel(uint32_t linkId) const { return m_channels[linkId]; }
    /** The port of \p nodeId on link \p linkId. */
    Ptr<FabricNetDevice> GetPort(uint32_t nodeId, uint32_t linkId) const;
    Ptr<FabricRouting> GetRouting() const { return m_routing; }
    NodeContainer GetNodes() const { return m_nodes; }
    /** Assign random streams to every port's ECN marker; returns the number used. */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    friend class FabricNetworkHelper;
    FabricTopology m_topology;
    NodeContainer m_nodes;
    std::vector<Ptr<FabricSwitch>> m_switches;   //!< by node id
    std::vector<Ptr<FabricEndpoint>> m_endpoints; //!< by node id
    std::vector<Ptr<FabricChannel>> m_channels;   //!< by link id
    Ptr<FabricRouting> m_routing;
};

/**
 * \ingroup ai-fabric
 * \brief Instantiates a FabricTopology: the ns-3 objects, their attributes, and routing.
 *
 * Attributes set here apply to every object of the kind; NVLink ports and NVSwitches have their
 * own factories so intra-server segments and latency can differ from the scale-out fabric.
 * Each switch gets EcmpSeed = EcmpSeedBase + its node id unless SetCommonEcmpSeed(true), which
 * gives all the same seed (to study hash polarization).
 */
class FabricNetworkHelper
{
  public:
    FabricNetworkHelper();
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    void SetNvSwitchAttribute(const std::string& name, const AttributeValue& value);
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    void SetNvLinkDeviceAttribute(const std::string& name, const AttributeValue& value);
    void SetRoutingAttribute(const std::string& name, const AttributeValue& value);
    void SetEcmpSeedBase(uint32_t base) { m_seedBase = base; }
    void SetCommonEcmpSeed(bool common) { m_commonSeed = common; }

    /**
     * Build the ns-3 objects of \p topology.  Needs picosecond time resolution or finer.
     * Throws std::invalid_argument if a switch's buffer cannot hold its reserves and headroom.
     */
    Ptr<FabricNetwork> Install(const FabricTopology& topology) const;

  private:
    Ptr<FabricSwitch> MakeSwitch(const FabricTopology::Node& node, uint32_t id) const;

    ObjectFactory m_switchFactory;
    ObjectFactory m_nvSwitchFactory;
    ObjectFactory m_mmuFactory;
    ObjectFactory m_deviceFactory;
    ObjectFactory m_nvLinkDeviceFactory;
    ObjectFactory m_channelFactory;
    ObjectFactory m_routingFactory;
    uint32_t m_seedBase{0x9e3779b9u};
    bool m_commonSeed{false};
};

} // namespace ns3

#endif
