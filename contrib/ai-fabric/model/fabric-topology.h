#ifndef AI_FABRIC_FABRIC_TOPOLOGY_H
#define AI_FABRIC_FABRIC_TOPOLOGY_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The graph of a cluster fabric: hosts, switches and cables, before any ns-3 object exists.
 *
 * Topology helpers build it; FabricNetworkHelper instantiates it; FabricRouting computes
 * forwarding from it; the bill of materials counts it.  A node's ports are its links in the
 * order they were added, so port numbers are the same in every process that builds the graph.
 */
class FabricTopology
{
  public:
    /** What a node is. */
    enum class Role
    {
        Host,     //!< a GPU or server NIC endpoint
        NvSwitch, //!< intra-server switch (NVSwitch-like)
        Leaf,     //!< tier 1: ToR / rail switch
        Spine,    //!< tier 2: aggregation / spine
        Core,     //!< tier 3: fat-tree core
        /**
         * An NVSwitch's reduction and multicast engine (NVLink SHARP): an endpoint on the
         * switch that NVLS collectives address; never a GPU.
         */
        NvlsEngine,
    };
    /** What a cable is made of, for latency and the bill of materials. */
    enum class Medium
    {
        NvLink,  //!< inside a server
        Copper,  //!< direct-attach copper, inside a rack
        Optical, //!< fibre with a transceiver at each end
    };
    static constexpr double kNanosecondsPerMetre = 5.0; //!< light in fibre/copper, n ~ 1.5
    /**
     * The longest direct-attach copper cable (metres): IEEE 802.3cd's 50GBASE-CR to
     * 400GBASE-CR8 specify 3 m (802.3ck's 100 Gb/s lanes, 2 m).  Longer cables are optical.
     */
    static constexpr double kCopperReachMetres = 3.0;
    /** The cable a scale-out link of \p lengthMetres is: copper up to the DAC reach, else fibre. */
    static Medium CableFor(double lengthMetres)
    {
        return lengthMetres <= kCopperReachMetres ? Medium::Copper : Medium::Optical;
    }

    struct Node
    {
        Role role;
        std::string name;
        uint32_t group{0};       //!< pod (fat-tree), rail group, or server of an NVSwitch
        uint32_t server{0};      //!< hosts: server index
        uint32_t localIndex{0};  //!< hosts: GPU index inside the server (its rail)
        std::vector<uint32_t> links; //!< incident links; position = port number
    };
    struct Link
    {
        uint32_t a;
        uint32_t b;
        DataRate rate;
        double lengthMetres;
        Medium medium;
        /** Propagation delay of the cable: 5 ns per metre. */
        Time Delay() const
        {
            return PicoSeconds(static_cast<int64_t>(lengthMetres * kNanosecondsPerMetre * 1000 + 0.5));
        }
    };

    /**
     * Add a node; hosts get consecutive host ids in the order added.  Throws
     * std::invalid_argument for an empty name or one with a '-' (link names join node names
     * with it), std::logic_error for a host after an engine (AddNvlsEngines comes last).
     */
    uint32_t AddNode(Role role, const std::string& name, uint32_t group = 0);
    /**
     * Give every NVSwitch its NVLS engine: a node "<switch>e" of role NvlsEngine on a link
     * as fast as the switch's GPU links together.  Engines are endpoints after the hosts
     * (endpoint ids GetNHosts() ...), added after every other node so the others' ids, ports
     * and routes are unchanged.
     */
    void AddNvlsEngines();
    /** The endpoint id of server \p server's NVLS engine, if it has one. */
    std::optional<uint32_t> NvlsEngineOf(uint32_t server) const;
    /** Add a host of \p server with local index \p localIndex; returns the node id. */
    uint32_t AddHost(const std::string& name, uint32_t server, uint32_t localIndex);
    /** Add a cable; returns the link id. */
    uint32_t AddLink(uint32_t a, uint32_t b, DataRate rate, double lengthMetres, Medium medium);

    const std::vector<Node>& Nodes() const { return m_nodes; }
    const std::vector<Link>& Links() const { return m_links; }
    const Node& GetNode(uint32_t id) const { return m_nodes[id]; }
    const Link& GetLink(uint32_t id) const { return m_links[id]; }
    uint32_t GetNNodes() const { return static_cast<uint32_t>(m_nodes.size()); }
    /** Hosts (GPUs with their NICs): endpoint ids 0 .. GetNHosts() - 1. */
    uint32_t GetNHosts() const { return m_nHosts; }
    /** Endpoints: the hosts, then the NVLS engines. */
    uint32_t GetNEndpoints() const { return static_cast<uint32_t>(m_hosts.size()); }
    /** Node id of endpoint (host or engine) \p hostId. */
    uint32_t HostNode(uint32_t hostId) const { return m_hosts[hostId]; }
    /** Endpoint id of node \p node, or UINT32_MAX if it is neither a host nor an engine. */
    uint32_t HostIdOf(uint32_t node) const { return m_hostIdOfNode[node]; }
    /**
     * Link \p link's name: its ends' node names joined by '-', the lower node id first (e.g.
     * "s0g0-l0"); unique unless two cables join the same pair of nodes.
     */
    std::string LinkName(uint32_t link) const;
    /**
     * The link named \p name (its ends' node names joined by '-', in either order); nullopt if
     * no link joins the two nodes or several do.
     */
    std::optional<uint32_t> FindLink(const std::string& name) const;
    /** Port of \p node that \p link attaches to. */
    uint32_t PortOf(uint32_t node, uint32_t link) const;
    /** Whether hosts forward others' traffic (rail-only fabrics route cross-rail via NVLink). */
    bool HostsAreTransit() const { return m_hostTransit; }
    void SetHostsAreTransit(bool t) { m_hostTransit = t; }
    /** Number of nodes with \p role. */
    uint32_t Count(Role role) const;
    static const char* RoleName(Role r);
    static const char* MediumName(Medium m);

  private:
    std::vector<Node> m_nodes;
    std::vector<Link> m_links;
    std::vector<uint32_t> m_hosts; //!< endpoint id -> node id: hosts, then engines
    uint32_t m_nHosts{0};
    std::vector<uint32_t> m_engineOfServer; //!< server -> engine endpoint id (UINT32_MAX: none)
    std::vector<uint32_t> m_hostIdOfNode;
    bool m_hostTransit{false};
};

} // namespace ns3

#endif
