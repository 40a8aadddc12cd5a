#include "fabric-topology.h"

#include "ns3/abort.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

uint32_t
FabricTopology::AddNode(Role role, const std::string& name, uint32_t group)
{
    if (role == Role::Host && m_hosts.size() > m_nHosts)
    {
        throw std::logic_error("FabricTopology: host '" + name + "' added after an NVLS engine");
    }
    if (name.empty() || name.find('-') != std::string::npos)
    {
        throw std::invalid_argument("FabricTopology: node name '" + name +
                                    "' must be non-empty and without '-' (link names join node "
                                    "names with it)");
    }
    const auto id = static_cast<uint32_t>(m_nodes.size());
    Node n;
    n.role = role;
    n.name = name;
    n.group = group;
    m_nodes.push_back(n);
    m_hostIdOfNode.push_back(std::numeric_limits<uint32_t>::max());
    if (role == Role::Host || role == Role::NvlsEngine)
    {
        m_hostIdOfNode.back() = static_cast<uint32_t>(m_hosts.size());
        m_hosts.push_back(id);
        m_nHosts += role == Role::Host;
    }
    return id;
}

void
FabricTopology::AddNvlsEngines()
{
    const auto nodes = static_cast<uint32_t>(m_nodes.size());
    for (uint32_t sw = 0; sw < nodes; ++sw)
    {
        if (m_nodes[sw].role != Role::NvSwitch)
        {
            continue;
        }
        uint64_t rate = 0;
        for (uint32_t l : m_nodes[sw].links)
        {
            rate += m_links[l].rate.GetBitRate();
        }
        const uint32_t server = m_nodes[sw].group;
        const uint32_t engine = AddNode(Role::NvlsEngine, m_nodes[sw].name + "e", server);
        m_nodes[engine].server = server;
        AddLink(engine, sw, DataRate(rate), 0.0, Medium::NvLink);
        if (m_engineOfServer.size() <= server)
        {
            m_engineOfServer.resize(server + 1, std::numeric_limits<uint32_t>::max());
        }
        m_engineOfServer[server] = HostIdOf(engine);
    }
}

std::optional<uint32_t>
FabricTopology::NvlsEngineOf(uint32_t server) const
{
    if (server < m_engineOfServer.size() &&
        m_engineOfServer[server] != std::numeric_limits<uint32_t>::max())
    {
        return m_engineOfServer[server];
    }
    return std::nullopt;
}

std::string
FabricTopology::LinkName(uint32_t link) const
{
    const Link& l = m_links[link];
    return m_nodes[std::min(l.a, l.b)].name + "-" + m_nodes[std::max(l.a, l.b)].name;
}

std::optional<uint32_t>
FabricTopology::FindLink(const std::string& name) const
{
    const auto dash = name.find('-');
    if (dash == std::string::npos)
    {
        return std::nullopt;
    }
    const std::string first = name.substr(0, dash);
    const std::string second = name.substr(dash + 1);
    const auto node = std::find_if(m_nodes.begin(), m_nodes.end(),
                                   [&first](const Node& n) { return n.name == first; });
    if (node == m_nodes.end())
    {
        return std::nullopt;
    }
    std::optional<uint32_t> found;
    for (uint32_t l : node->links)
    {
        const uint32_t peer = m_links[l].a == uint32_t(node - m_nodes.begin()) ? m_links[l].b
                                                                              : m_links[l].a;
        if (m_nodes[peer].name == second)
        {
            if (found)
            {
                return std::nullopt; // two cables join the pair: a name cannot tell them apart
            }
            found = l;
        }
    }
    return found;
}

uint32_t
FabricTopology::AddHost(const std::string& name, uint32_t server, uint32_t localIndex)
{
    const uint32_t id = AddNode(Role::Host, name, server);
    m_nodes[id].server = server;
    m_nodes[id].localIndex = localIndex;
    return id;
}

uint32_t
FabricTopology::AddLink(uint32_t a, uint32_t b, DataRate rate, double lengthMetres, Medium medium)
{
    NS_ABORT_MSG_IF(a >= m_nodes.size() || b >= m_nodes.size() || a == b,
                    "FabricTopology::AddLink: bad endpoints " << a << ", " << b);
    const auto id = static_cast<uint32_t>(m_links.size());
    m_links.push_back({a, b, rate, lengthMetres, medium});
    m_nodes[a].links.push_back(id);
    m_nodes[b].links.push_back(id);
    return id;
}

uint32_t
FabricTopology::PortOf(uint32_t node, uint32_t link) const
{
    const auto& l = m_nodes[node].links;
    return static_cast<uint32_t>(std::find(l.begin(), l.end(), link) - l.begin());
}

uint32_t
FabricTopology::Count(Role role) const
{
    return static_cast<uint32_t>(std::count_if(m_nodes.begin(), m_nodes.end(), [role](const Node& n) {
        return n.role == role;
    }));
}

const char*
FabricTopology::RoleName(Role r)
{
    switch (r)
    {
    case Role::Host:
        return "host";
    case Role::NvSwitch:
        return "nvswitch";
    case Role::Leaf:
        return "leaf";
    case Role::Spine:
        return "spine";
    case Role::Core:
        return "core";
    case Role::NvlsEngine:
        return "nvls_engine";
    }
    return "unknown";
}

const char*
FabricTopology::MediumName(Medium m)
{
    switch (m)
    {
    case Medium::NvLink:
        return "nvlink";
    case Medium::Copper:
        return "copper";
    case Medium::Optical:
        return "optical";
    }
    return "unknown";
}

} // namespace ns3
