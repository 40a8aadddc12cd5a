#include "fabric-monitor.h"

#include "ns3/enum.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/rdma-nic.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <limits>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricMonitor");
NS_OBJECT_ENSURE_REGISTERED(FabricMonitor);

TypeId
FabricMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricMonitor")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricMonitor>()
            .AddAttribute("Interval",
                          "Time between samples.  Default 10 us: a 400G port drains 500 KB in "
                          "it, so a PFC-sized queue shows its build-up and drain over several "
                          "samples; make it longer for long runs (rows = ports x classes x "
                          "samples).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricMonitor::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Ports",
                          "Which ports are sampled: switch (switch egress ports, where "
                          "queues build), host (NIC and NVLink ports of hosts) or all.",
                          EnumValue(SWITCH_PORTS),
                          MakeEnumAccessor(&FabricMonitor::m_selection),
                          MakeEnumChecker(SWITCH_PORTS, "switch", HOST_PORTS, "host", ALL_PORTS,
                                          "all"))
            .AddAttribute("MaxRows",
                          "Rows kept in memory (about 40 bytes each).  When a sample would pass "
                          "it, recording stops and the result says it was truncated.  Default "
                          "10^7.",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&FabricMonitor::m_maxRows),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

void
FabricMonitor::DoDispose()
{
    m_network = nullptr;
    Object::DoDispose();
}

void
FabricMonitor::Install(Ptr<FabricNetwork> network)
{
    NS_ABORT_MSG_IF(m_network, "FabricMonitor::Install: installed already");
    m_network = network;
    m_next = m_interval;
    const FabricTopology& topo = network->GetTopology();
    for (uint32_t id = 0; id < topo.Links().size(); ++id)
    {
        const auto& l = topo.GetLink(id);
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t node = end ? l.b : l.a;
            const bool host = topo.GetNode(node).role == FabricTopology::Role::Host;
            if ((host && m_selection == SWITCH_PORTS) || (!host && m_selection == HOST_PORTS))
            {
                continue;
            }
            Ptr<FabricNetDevice> dev = network->GetPort(node, id);
            if (!dev)
            {
                continue; // another rank's port
            }
            const auto index = static_cast<uint32_t>(m_ports.size());
            m_ports.push_back(Port{node, end ? l.a : l.b, 2 * id + end});
            dev->TraceConnectWithoutContext(
                "QueueBytes",
                MakeBoundCallback(&FabricMonitor::QueueBytesChanged, this, index));
            dev->TraceConnectWithoutContext(
                "Paused",
                MakeBoundCallback(&FabricMonitor::PausedChanged, this, index));
        }
    }
    for (uint32_t h = 0; h < network->GetNEndpoints(); ++h)
    {
        Ptr<Node> node = network->GetHostNode(h);
        Ptr<RdmaNic> nic = node ? node->GetObject<RdmaNic>() : nullptr;
        if (nic)
        {
            for (uint32_t qpn = roce::kFirstDataQpn; qpn < nic->GetNextQpn(); ++qpn)
            {
                QueuePairCreated(this, topo.HostNode(h), nic->GetQueuePair(qpn)); // made already
            }
            nic->TraceConnectWithoutContext(
                "QueuePairCreated",
                MakeBoundCallback(&FabricMonitor::QueuePairCreated, this, topo.HostNode(h)));
        }
    }
}

void
FabricMonitor::QueueBytesChanged(FabricMonitor* m, uint32_t port, uint8_t cls, uint64_t before,
                                 uint64_t after)
{
    m->Advance(Simulator::Now());
    Port& p = m->m_ports[port];
    p.bytes[cls] = after;
    if (after < before)
    {
        p.dequeued[cls] += before - after;
    }
    p.active |= uint8_t(1u << cls);
}

void
FabricMonitor::PausedChanged(FabricMonitor* m, uint32_t port, uint8_t cls, bool paused)
{
    m->Advance(Simulator::Now());
    Port& p = m->m_ports[port];
    p.paused[cls] = paused;
    p.active |= uint8_t(1u << cls);
}

void
FabricMonitor::QueuePairCreated(FabricMonitor* m, uint32_t node, Ptr<RdmaQueuePair> qp)
{
    const auto index = static_cast<uint32_t>(m->m_qps.size());
    const FabricTopology& topo = m->m_network->GetTopology();
    Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
    m->m_qps.push_back(QueuePair{node, qp->GetLocalQpn(), topo.HostNode(qp->GetRemoteHost()),
                                 double(cc->GetLineRate().GetBitRate())});
    cc->TraceConnectWithoutContext("Rate",
                                   MakeBoundCallback(&FabricMonitor::RateChanged, m, index));
    qp->TraceConnectWithoutContext("FramesInFlight",
                                   MakeBoundCallback(&FabricMonitor::InFlightChanged, m, index));
}

void
FabricMonitor::RateChanged(FabricMonitor* m, uint32_t qp, double, double after)
{
    m->Advance(Simulator::Now());
    m->m_qps[qp].rate = after;
}

void
FabricMonitor::InFlightChanged(FabricMonitor* m, uint32_t qp, uint64_t, uint64_t after)
{
    m->Advance(Simulator::Now());
    m->m_qps[qp].inFlight = after;
    m->m_qps[qp].active = true;
}

void
FabricMonitor::Advance(Time now)
{
    m_lastChange = now;
    while (m_next < now && !m_truncated)
    {
        Record(m_next);
        m_next += m_interval;
    }
}

void
FabricMonitor::Finish(Time lastChange)
{
    // Samples before the last change were recorded as changes came; one more covers it.
    while (!m_truncated)
    {
        const bool last = m_next >= lastChange;
        Record(m_next);
        m_next += m_interval;
        if (last)
        {
            break;
        }
    }
    Settle();
}

namespace
{
template <class T>
void
Put(std::string& out, const std::vector<T>& v)
{
    const uint64_t n = v.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof(n));
    out.append(reinterpret_cast<const char*>(v.data()), n * sizeof(T));
}

template <class T>
std::vector<T>
Take(const std::string& in, std::size_t& at)
{
    uint64_t n = 0;
    NS_ABORT_MSG_IF(at + sizeof(n) > in.size(), "FabricMonitor::Merge: a truncated series");
    std::memcpy(&n, in.data() + at, sizeof(n));
    at += sizeof(n);
    NS_ABORT_MSG_IF(at + n * sizeof(T) > in.size(), "FabricMonitor::Merge: a truncated series");
    std::vector<T> v(n);
    if (n > 0)
    {
        std::memcpy(v.data(), in.data() + at, n * sizeof(T));
    }
    at += n * sizeof(T);
    return v;
}
} // namespace

std::string
FabricMonitor::Serialize() const
{
    // Raw structs: the processes of a run are the same program on the same architecture.
    std::string out;
    Put(out, m_ports);
    Put(out, m_qps);
    Put(out, m_portRows);
    Put(out, m_qpRows);
    Put(out, std::vector<int64_t>{m_truncated ? m_truncatedAt.GetTimeStep() : -1});
    return out;
}

void
FabricMonitor::Merge(const std::vector<std::string>& others)
{
    for (const std::string& other : others)
    {
        std::size_t at = 0;
        const auto ports = Take<Port>(other, at);
        const auto qps = Take<QueuePair>(other, at);
        const auto portBase = static_cast<uint32_t>(m_ports.size());
        const auto qpBase = static_cast<uint32_t>(m_qps.size());
        m_ports.insert(m_ports.end(), ports.begin(), ports.end());
        m_qps.insert(m_qps.end(), qps.begin(), qps.end());
        for (PortRow r : Take<PortRow>(other, at))
        {
            r.port += portBase;
            m_portRows.push_back(r);
        }
        for (QpRow r : Take<QpRow>(other, at))
        {
            r.qp += qpBase;
            m_qpRows.push_back(r);
        }
        const int64_t truncatedAt = Take<int64_t>(other, at).at(0);
        if (truncatedAt >= 0 && (!m_truncated || truncatedAt < m_truncatedAt.GetTimeStep()))
        {
            m_truncated = true;
            m_truncatedAt = TimeStep(truncatedAt);
        }
    }
    Settle();
}

void
FabricMonitor::Settle()
{
    std::sort(m_portRows.begin(), m_portRows.end(), [this](const PortRow& a, const PortRow& b) {
        return std::make_tuple(a.timePs, m_ports[a.port].slot, a.cls) <
               std::make_tuple(b.timePs, m_ports[b.port].slot, b.cls);
    });
    std::sort(m_qpRows.begin(), m_qpRows.end(), [this](const QpRow& a, const QpRow& b) {
        return std::make_tuple(a.timePs, m_qps[a.qp].node, m_qps[a.qp].qpn) <
               std::make_tuple(b.timePs, m_qps[b.qp].node, m_qps[b.qp].qpn);
    });
    // The first sample that would pass MaxRows, counted over every process's rows (a process
    // that stopped recording stopped at or after it, since its rows are some of them).
    int64_t cut = m_truncated ? m_truncatedAt.GetTimeStep() : std::numeric_limits<int64_t>::max();
    uint64_t rows = 0;
    auto p = m_portRows.begin();
    auto q = m_qpRows.begin();
    while (p != m_portRows.end() || q != m_qpRows.end())
    {
        const int64_t t = std::min(p != m_portRows.end() ? p->timePs : q->timePs,
                                   q != m_qpRows.end() ? q->timePs : p->timePs);
        if (t >= cut)
        {
            break;
        }
        for (; p != m_portRows.end() && p->timePs == t; ++p)
        {
            ++rows;
        }
        for (; q != m_qpRows.end() && q->timePs == t; ++q)
        {
            ++rows;
        }
        if (rows > m_maxRows)
        {
            cut = t;
        }
    }
    if (cut != std::numeric_limits<int64_t>::max())
    {
        m_truncated = true;
        m_truncatedAt = TimeStep(cut);
        m_portRows.erase(std::find_if(m_portRows.begin(), m_portRows.end(),
                                      [cut](const PortRow& r) { return r.timePs >= cut; }),
                         m_portRows.end());
        m_qpRows.erase(std::find_if(m_qpRows.begin(), m_qpRows.end(),
                                    [cut](const QpRow& r) { return r.timePs >= cut; }),
                       m_qpRows.end());
    }
}

void
FabricMonitor::Record(Time at)
{
    std::size_t rows = 0;
    for (const Port& p : m_ports)
    {
        rows += __builtin_popcount(p.active);
    }
    for (const QueuePair& q : m_qps)
    {
        rows += q.active;
    }
    if (GetRows() + rows > m_maxRows)
    {
        m_truncated = true; // record nothing more
        m_truncatedAt = at;
        return;
    }
    const int64_t ps = at.GetTimeStep();
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        Port& p = m_ports[i];
        for (uint8_t c = 0; c < kClasses; ++c)
        {
            if (p.active & (1u << c))
            {
                m_portRows.push_back({ps, i, c, p.paused[c], p.bytes[c], p.dequeued[c]});
                p.dequeued[c] = 0;
            }
        }
    }
    for (uint32_t i = 0; i < m_qps.size(); ++i)
    {
        if (m_qps[i].active)
        {
            m_qpRows.push_back({ps, i, m_qps[i].rate, m_qps[i].inFlight});
        }
    }
}

void
FabricMonitor::WritePorts(std::ostream& os) const
{
    const FabricTopology& topo = m_network->GetTopology();
    os << "time_us,node,peer,class,queue_bytes,paused,dequeued_bytes\n";
    os << std::fixed << std::setprecision(3);
    for (const PortRow& r : m_portRows)
    {
        const Port& p = m_ports[r.port];
        os << Time(r.timePs).GetSeconds() * 1e6 << ',' << topo.GetNode(p.node).name << ','
           << topo.GetNode(p.peer).name << ',' << unsigned(r.cls) << ',' << r.bytes << ','
           << (r.paused ? 1 : 0) << ',' << r.dequeued << '\n';
    }
}

void
FabricMonitor::WriteQueuePairs(std::ostream& os) const
{
    const FabricTopology& topo = m_network->GetTopology();
    os << "time_us,node,qpn,remote,rate_gbps,frames_in_flight\n";
    os << std::fixed << std::setprecision(3);
    for (const QpRow& r : m_qpRows)
    {
        const QueuePair& q = m_qps[r.qp];
        os << Time(r.timePs).GetSeconds() * 1e6 << ',' << topo.GetNode(q.node).name << ','
           << q.qpn << ',' << topo.GetNode(q.remoteNode).name << ',' << r.rate / 1e9 << ','
           << r.inFlight << '\n';
    }
}

} // namespace ns3
