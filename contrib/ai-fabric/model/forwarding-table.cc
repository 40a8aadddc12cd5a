#include "forwarding-table.h"

#include <algorithm>

namespace ns3
{

ForwardingTable::ForwardingTable(uint32_t hosts)
    : m_sets(1),
      m_setOfHost(hosts, 0)
{
}

void
ForwardingTable::SetNextHops(uint32_t host, const PortSet& ports)
{
    if (host >= m_setOfHost.size())
    {
        m_setOfHost.resize(host + 1, 0);
    }
    // Tables have few distinct sets (a handful per switch), so a linear search is cheap here
    // and keeps the per-packet lookup a plain index.
    auto it = std::find(m_sets.begin(), m_sets.end(), ports);
    if (it == m_sets.end())
    {
        m_sets.push_back(ports);
        it = m_sets.end() - 1;
    }
    m_setOfHost[host] = static_cast<uint32_t>(it - m_sets.begin());
}

} // namespace ns3
