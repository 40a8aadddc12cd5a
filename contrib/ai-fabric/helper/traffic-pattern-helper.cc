#include "traffic-pattern-helper.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrafficPatternHelper");

TrafficPatternHelper::TrafficPatternHelper(uint32_t hosts)
    : m_hosts(hosts),
      m_random(CreateObject<UniformRandomVariable>())
{
    if (hosts < 2)
    {
        throw std::invalid_argument("hosts = " + std::to_string(hosts) +
                                    ": a traffic pattern needs at least 2 hosts");
    }
}

void
TrafficPatternHelper::SetFlowBytes(uint64_t bytes)
{
    if (bytes == 0)
    {
        throw std::invalid_argument("bytes = 0: a flow carries at least 1 byte");
    }
    m_bytes = bytes;
}

void
TrafficPatternHelper::SetStart(Time start)
{
    if (start.IsStrictlyNegative())
    {
        throw std::invalid_argument("start = " + std::to_string(start.GetSeconds()) +
                                    "s: must be >= 0");
    }
    m_start = start;
}

int64_t
TrafficPatternHelper::AssignStreams(int64_t stream)
{
    m_random->SetStream(stream);
    return 1;
}

std::vector<TrafficFlow>
TrafficPatternHelper::Shift(uint32_t shift) const
{
    if (shift == 0 || shift >= m_hosts)
    {
        throw std::invalid_argument("shift = " + std::to_string(shift) + ": must be in [1, " +
                                    std::to_string(m_hosts - 1) + "]");
    }
    std::vector<TrafficFlow> flows;
    for (uint32_t i = 0; i < m_hosts; ++i)
    {
        flows.push_back({i, (i + shift) % m_hosts, m_bytes, m_start});
    }
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::Poisson(const FlowSizeDistribution& sizes,
                              double load,
                              DataRate hostRate,
                              Time duration)
{
    if (!(load > 0 && load <= 1))
    {
        throw std::invalid_argument("load = " + std::to_string(load) + ": must be in (0, 1]");
    }
    if (!duration.IsStrictlyPositive())
    {
        throw std::invalid_argument("duration = " + std::to_string(duration.GetSeconds()) +
                                    "s: must be > 0");
    }
    if (hostRate.GetBitRate() == 0)
    {
        throw std::invalid_argument("host rate 0: must be > 0");
    }
    // Mean gap between one host's flows, seconds; exponential gaps by inversion of one
    // uniform draw (1 - U, never 0, under the logarithm), then the flow's size and its
    // destination, host by host: one stream, in a fixed order.
    const double meanGap = 8 * sizes.Mean() / (load * hostRate.GetBitRate());
    const double end = duration.GetSeconds();
    std::vector<TrafficFlow> flows;
    for (uint32_t src = 0; src < m_hosts; ++src)
    {
        for (double t = -meanGap * std::log(1 - m_random->GetValue()); t < end;
             t += -meanGap * std::log(1 - m_random->GetValue()))
        {
            const double bytes = std::round(sizes.Quantile(m_random->GetValue()));
            const uint32_t other = m_random->GetInteger(0, m_hosts - 2);
            flows.push_back({src,
                             other < src ? other : other + 1,
                             std::max<uint64_t>(1, static_cast<uint64_t>(bytes)),
                             m_start + Seconds(t)});
        }
    }
    std::stable_sort(flows.begin(), flows.end(), [](const TrafficFlow& a, const TrafficFlow& b) {
        return a.start < b.start;
    });
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::Permutation()
{
    // Sattolo: swapping each position with a strictly earlier one makes a single cycle.
    std::vector<uint32_t> dst(m_hosts);
    std::iota(dst.begin(), dst.end(), 0);
    for (uint32_t i = m_hosts - 1; i > 0; --i)
    {
        std::swap(dst[i], dst[m_random->GetInteger(0, i - 1)]);
    }
    std::vector<TrafficFlow> flows;
    for (uint32_t i = 0; i < m_hosts; ++i)
    {
        flows.push_back({i, dst[i], m_bytes, m_start});
    }
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::Random()
{
    std::vector<TrafficFlow> flows;
    for (uint32_t i = 0; i < m_hosts; ++i)
    {
        const uint32_t draw = m_random->GetInteger(0, m_hosts - 2); // one of the others
        flows.push_back({i, draw < i ? draw : draw + 1, m_bytes, m_start});
    }
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::Incast(uint32_t receiver, uint32_t senders) const
{
    if (receiver >= m_hosts)
    {
        throw std::invalid_argument("receiver = " + std::to_string(receiver) +
                                    ": must be a host id below " + std::to_string(m_hosts));
    }
    if (senders == 0 || senders >= m_hosts)
    {
        throw std::invalid_argument("senders = " + std::to_string(senders) + ": must be in [1, " +
                                    std::to_string(m_hosts - 1) + "]");
    }
    std::vector<TrafficFlow> flows;
    for (uint32_t i = 0; flows.size() < senders; ++i)
    {
        if (i != receiver)
        {
            flows.push_back({i, receiver, m_bytes, m_start});
        }
    }
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::AllToAll() const
{
    std::vector<TrafficFlow> flows;
    for (uint32_t i = 0; i < m_hosts; ++i)
    {
        for (uint32_t j = 0; j < m_hosts; ++j)
        {
            if (i != j)
            {
                flows.push_back({i, j, m_bytes, m_start});
            }
        }
    }
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::FromConnectionMatrix(std::istream& in, const std::string& origin) const
{
    std::vector<TrafficFlow> flows;
    int64_t declared = -1; // the Connections line
    std::string line;
    for (uint32_t number = 1; std::getline(in, line); ++number)
    {
        auto fail = [&](const std::string& why) {
            throw std::invalid_argument(origin + " line " + std::to_string(number) + " (\"" +
                                        line + "\"): " + why);
        };
        std::istringstream words(line);
        std::string first;
        if (!(words >> first) || first[0] == '#')
        {
            continue;
        }
        auto count = [&](const std::string& what) {
            std::string text;
            std::string rest;
            if (!(words >> text) || (words >> rest) ||
                !std::regex_match(text, std::regex("[0-9]{1,9}")))
            {
                fail(what + " takes one count, e.g. \"" + what + " 128\"");
            }
            return std::stoll(text);
        };
        std::smatch ends;
        if (first == "Nodes")
        {
            if (count("Nodes") > m_hosts)
            {
                fail("the file is for more nodes than the topology's " + std::to_string(m_hosts) +
                     " hosts");
            }
        }
        else if (first == "Connections")
        {
            declared = count("Connections");
        }
        else if (first == "Triggers" || first == "Failures")
        {
            if (count(first) != 0)
            {
                fail("htsim's triggers and failures have no counterpart here (use the "
                     "scenario's link_events and failures sections)");
            }
        }
        else if (std::regex_match(first, ends, std::regex("([0-9]{1,9})->([0-9]{1,9})")))
        {
            TrafficFlow flow{uint32_t(std::stoul(ends[1])), uint32_t(std::stoul(ends[2])), m_bytes,
                             m_start};
            if (flow.src >= m_hosts || flow.dst >= m_hosts || flow.src == flow.dst)
            {
                fail("source and destination must be two different host ids below " +
                     std::to_string(m_hosts));
            }
            bool started = false;
            std::string key;
            std::string value;
            while (words >> key)
            {
                if (!(words >> value))
                {
                    fail("\"" + key + "\" has no value");
                }
                std::smatch us;
                if (key == "start" &&
                    std::regex_match(value, us, std::regex("([0-9]{1,12})(\\.([0-9]{1,6}))?")))
                {
                    // Exactly, in picoseconds: whole microseconds and up to 6 decimals.
                    const std::string fraction = (us[3].str() + "000000").substr(0, 6);
                    flow.start = PicoSeconds(std::stoll(us[1]) * 1000000 + std::stoll(fraction));
                    started = true;
                }
                else if (key == "size" && std::regex_match(value, std::regex("[0-9]{1,13}")) &&
                         std::stoull(value) <= kMaxFlowBytes)
                {
                    const uint64_t size = std::stoull(value);
                    flow.bytes = size == 0 ? m_bytes : size;
                }
                else if (key == "id" && std::regex_match(value, std::regex("[1-9][0-9]{0,9}")))
                {
                    // names the flow in htsim only: flows.csv numbers flows in file order
                }
                else if (key == "start" || key == "size" || key == "id")
                {
                    fail(key + " = \"" + value + "\": start takes microseconds (e.g. 2.5), size " +
                         "bytes up to 2^40, id a positive integer");
                }
                else
                {
                    fail("\"" + key + "\" is not supported: a flow line takes start, size and id " +
                         "(htsim's triggers and priorities have no counterpart here)");
                }
            }
            if (!started)
            {
                fail("no start (htsim requires one, in microseconds: \"0->1 start 0 size 4096\")");
            }
            flows.push_back(flow);
        }
        else
        {
            fail("expected Nodes, Connections, or a flow \"src->dst start T size S\"");
        }
    }
    if (declared >= 0 && uint64_t(declared) != flows.size())
    {
        throw std::invalid_argument(origin + ": Connections " + std::to_string(declared) +
                                    " but " + std::to_string(flows.size()) + " flow lines");
    }
    if (flows.empty())
    {
        throw std::invalid_argument(origin + ": no flow lines (\"src->dst start T size S\")");
    }
    NS_LOG_INFO(origin << ": " << flows.size() << " flows");
    return flows;
}

std::vector<TrafficFlow>
TrafficPatternHelper::FromConnectionMatrixFile(const std::string& path) const
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument(path + ": cannot read the file");
    }
    return FromConnectionMatrix(in, path);
}

} // namespace ns3
