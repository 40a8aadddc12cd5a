#ifndef AI_FABRIC_FABRIC_NETWORK_HELPER_H
#define AI_FABRIC_FABRIC_NETWORK_HELPER_H

#include "ns3/fabric-channel.h"
#include "ns3/fabric-control-path.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/fabric-routing.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <optional>
#include <stdexcept>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A fabric instantiated in ns-3: one Node per topology node, one FabricChannel and two
 * FabricNetDevices per link, a FabricSwitch or FabricEndpoint per node, and its routing.
 *
 * In a distributed run (FabricNetworkHelper::SetPartition) every rank has every Node (ns-3's
 * MPI engine finds a frame's receiver by node id), but only its own nodes carry ports, a
 * switch or an endpoint; a link between ranks is a FabricRemoteChannel, and a link between
 * two other ranks' nodes is not instantiated (GetChannel returns null).
 */
class FabricNetwork : public Object
{
  public:
    static TypeId GetTypeId();

    const FabricTopology& GetTopology() const { return m_topology; }
    uint32_t GetNHosts() const { return m_topology.GetNHosts(); }
    /** Hosts and NVLS engines: the endpoint ids GetHostNode and GetEndpoint take. */
    uint32_t GetNEndpoints() const { return m_topology.GetNEndpoints(); }
    Ptr<Node> GetNode(uint32_t nodeId) const { return m_nodes.Get(nodeId); }
    Ptr<Node> GetHostNode(uint32_t hostId) const;
    Ptr<FabricEndpoint> GetEndpoint(uint32_t hostId) const;
    /** The switch of topology node \p nodeId (null for hosts). */
    Ptr<FabricSwitch> GetSwitch(uint32_t nodeId) const { return m_switches[nodeId]; }
    Ptr<FabricChannel> GetChannel(uint32_t linkId) const { return m_channels[linkId]; }
    /** The port of \p nodeId on link \p linkId (null if the node is another rank's). */
    Ptr<FabricNetDevice> GetPort(uint32_t nodeId, uint32_t linkId) const;
    /** The MPI rank that simulates topology node \p nodeId (0 in a single-process run). */
    uint32_t GetRank(uint32_t nodeId) const { return m_rankOfNode.empty() ? 0 : m_rankOfNode[nodeId]; }
    /** Whether this process simulates node \p nodeId (always, in a single-process run). */
    bool IsLocal(uint32_t nodeId) const { return GetRank(nodeId) == m_localRank; }
    bool IsHostLocal(uint32_t hostId) const { return IsLocal(m_topology.HostNode(hostId)); }
    /**
     * Delay between a data frame's last bit arriving at \p nodeId and it reaching an egress
     * queue there (its switch's ForwardingLatency; 0 at hosts), for local and remote nodes.
     */
    Time GetForwardingLatency(uint32_t nodeId) const;
    /** Payload MTU of \p nodeId's port on \p linkId, for local and remote nodes. */
    uint32_t GetPayloadMtu(uint32_t nodeId, uint32_t linkId) const;
    /**
     * The largest base round trip between two hosts over the Ethernet fabric: a data frame
     * of the largest host payload MTU up through every switch tier the fabric has and down
     * again, then an ACK back the same way, each link at its tier's slowest (propagation plus
     * serialization, preamble and gap included) and each switch its forwarding latency; no
     * queueing, and frames without a telemetry header (as the HPCC artifact's base round trip
     * counts basic headers).  NVLink hops are left out.  It bounds every host pair's and is the longest
     * route's on a layered fabric (fat-tree, leaf-spine, rail-optimized): HPCC's T, as the
     * HPCC artifact takes its topology's largest.
     */
    Time GetLargestBaseRtt() const;
    /**
     * The next queue-pair number of another rank's host \p hostId: that rank connects the
     * same queue pairs in the same order, so its NIC numbers them the same way.
     */
    uint32_t TakeRemoteQpn(uint32_t hostId) { return m_remoteQps[hostId]++; }
    Ptr<FabricRouting> GetRouting() const { return m_routing; }
    /**
     * Take link \p linkId down (false) or release one cause (true), as FabricChannel::SetUp,
     * in a distributed run on every rank alike: its channel (this rank's half of a cut link),
     * or, for a link between two other ranks' nodes, routing's view of it.
     */
    void SetLinkUp(uint32_t linkId, bool up);
    /** The control path: notices every process of the run receives (FabricControlPath). */
    Ptr<FabricControlPath> GetControlPath() const { return m_controlPath; }
    NodeContainer GetNodes() const { return m_nodes; }
    /**
     * Assign random streams to every port's ECN marker and every link's bit errors, by port
     * and link id (so a distributed run draws what a single process does); returns the number
     * of streams the whole fabric uses.
     */
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
    Ptr<FabricControlPath> m_controlPath;
    std::vector<uint32_t> m_rankOfNode; //!< empty: one process
    uint32_t m_localRank{0};
    Time m_switchLatency;   //!< of the switch factory's switches
    Time m_nvSwitchLatency; //!< of the NVSwitch factory's
    uint32_t m_payloadMtu{0};       //!< of the device factory's ports
    uint32_t m_nvLinkPayloadMtu{0}; //!< of the NVLink device factory's
    std::vector<uint32_t> m_remoteQps; //!< by host: queue pairs taken by TakeRemoteQpn
};

/**
 * \ingroup ai-fabric
 * A switch's BufferSize cannot hold the reserves and PFC headroom its ports need: the message
 * says how much it needs.
 */
class BufferSizeError : public std::invalid_argument
{
  public:
    using std::invalid_argument::invalid_argument;
};

/**
 * \ingroup ai-fabric
 * \brief Instantiates a FabricTopology: the ns-3 objects, their attributes, and routing.
 *
 * Attributes set here apply to every object of the kind; NVLink ports and NVSwitches have their
 * own factories so intra-server segments and latency can differ from the scale-out fabric.
 * Each switch gets EcmpSeed = base + its node id unless SetCommonEcmpSeed(true), which gives
 * all the same seed (to study hash polarization).  The base is SetEcmpSeedBase's if called;
 * otherwise it follows ns-3's run seed, 0x9e3779b9 x seed + 0x85ebca6b x (run - 1) (mod 2^32,
 * RngSeedManager at Install), so each seed or run hashes flows anew, as another cabling or
 * another switch firmware's hash would, and seed 1, run 1 gives 0x9e3779b9.
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
    /** Pin the switches' ECMP seeds to \p base + node id, whatever the run seed. */
    void SetEcmpSeedBase(uint32_t base) { m_seedBase = base; }
    void SetCommonEcmpSeed(bool common) { m_commonSeed = common; }
    /**
     * Build only the part of the fabric that MPI rank \p localRank simulates: node n belongs
     * to rank \p rankOfNode[n].  Links between ranks need ai-fabric built with ns-3's mpi
     * module (FabricRemoteChannel); Install throws std::invalid_argument without it.
     */
    void SetPartition(std::vector<uint32_t> rankOfNode, uint32_t localRank);

    /**
     * Build the ns-3 objects of \p topology.  Needs picosecond time resolution or finer.
     * Throws BufferSizeError if a switch's buffer cannot hold its reserves and headroom, and
     * std::invalid_argument for a partition this build cannot simulate.
     */
    Ptr<FabricNetwork> Install(const FabricTopology& topology) const;

  private:
    /** The network's control path: a FabricRemoteControlPath when split over MPI ranks. */
    Ptr<FabricControlPath> MakeControlPath(const FabricNetwork& net) const;
    Ptr<FabricSwitch> MakeSwitch(const FabricTopology::Node& node, uint32_t id,
                                 uint32_t seedBase) const;
    /** The switches' ECMP seed base: pinned, or from ns-3's run seed (class comment). */
    uint32_t EcmpSeedBase() const;
    Ptr<FabricNetDevice> MakePort(const FabricTopology::Link& link, Mac48Address address) const;
    /** The MAC of link \p linkId's port at its end a (or b, if \p endB). */
    static Mac48Address PortAddress(uint32_t linkId, bool endB);
    static Time ForwardingLatencyOf(const ObjectFactory& switchFactory);
    static uint32_t PayloadMtuOf(const ObjectFactory& deviceFactory);

    ObjectFactory m_switchFactory;
    ObjectFactory m_nvSwitchFactory;
    ObjectFactory m_mmuFactory;
    ObjectFactory m_deviceFactory;
    ObjectFactory m_nvLinkDeviceFactory;
    ObjectFactory m_channelFactory;
    ObjectFactory m_routingFactory;
    std::optional<uint32_t> m_seedBase; //!< pinned; else from the run seed at Install
    bool m_commonSeed{false};
    std::vector<uint32_t> m_rankOfNode;
    uint32_t m_localRank{0};
};

} // namespace ns3

#endif
