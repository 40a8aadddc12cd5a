#include "fabric-stats-helper.h"

#include "ns3/message-source.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{
/** Call \p f with each endpoint of \p network's hosts that this process simulates. */
template <class F>
void
ForLocalEndpoints(const Ptr<FabricNetwork>& network, F f)
{
    for (uint32_t h = 0; network && h < network->GetNEndpoints(); ++h)
    {
        if (network->IsHostLocal(h))
        {
            f(*network->GetEndpoint(h));
        }
    }
}
} // namespace

void
FabricStatsHelper::Install(Ptr<FabricNetwork> network, const MessageSourceHelper& sources)
{
    m_network = network;
    for (const auto& m : sources.GetMessages())
    {
        Record(m.flowId, m.src, m.dst, m.bytes).counted = true;
    }
    const ApplicationContainer& apps = sources.GetSources();
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        apps.Get(i)->TraceConnectWithoutContext(
            "MessageStarted",
            MakeCallback(&FabricStatsHelper::MessagePosted, this));
    }
    if (sources.GetMessages().empty())
    {
        return; // no flow to count bytes for: no callback per delivered frame
    }
    ForLocalEndpoints(network, [this](FabricEndpoint& e) {
        e.TraceConnectWithoutContext("Deliver", MakeCallback(&FabricStatsHelper::Delivered, this));
    });
}

uint64_t
FabricStatsHelper::GetFramesDelivered() const
{
    uint64_t frames = 0;
    ForLocalEndpoints(m_network,
                      [&frames](const FabricEndpoint& e) { frames += e.GetFramesDelivered(); });
    return frames;
}

uint64_t
FabricStatsHelper::GetPayloadDelivered() const
{
    uint64_t bytes = 0;
    ForLocalEndpoints(m_network,
                      [&bytes](const FabricEndpoint& e) { bytes += e.GetPayloadDelivered(); });
    return bytes;
}

Time
FabricStatsHelper::GetLastDelivery() const
{
    Time last;
    ForLocalEndpoints(m_network, [&last](const FabricEndpoint& e) {
        last = std::max(last, e.GetLastDelivery());
    });
    return last;
}

FabricStatsHelper::FlowRecord&
FabricStatsHelper::Record(uint32_t flowId, uint32_t src, uint32_t dst, uint64_t bytes)
{
    if (flowId >= m_flows.size())
    {
        m_flows.resize(flowId + 1);
    }
    FlowRecord& f = m_flows[flowId];
    f.flowId = flowId;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    return f;
}

void
FabricStatsHelper::MessagePosted(uint32_t flowId, uint32_t src, uint32_t dst, uint64_t bytes)
{
    FlowRecord& f = Record(flowId, src, dst, bytes);
    f.start = Simulator::Now();
    f.started = true;
}

void
FabricStatsHelper::MessageAcknowledged(uint32_t flowId)
{
    FlowRecord& f = m_flows[flowId];
    f.delivered = f.bytes;
    f.lastArrival = Simulator::Now();
}

void
FabricStatsHelper::Delivered(const FrameInfo& info)
{
    // MessageSource frames carry their flow id as DestQP; RDMA messages are recorded from their
    // queue pairs instead.
    if (info.destQp < m_flows.size() && m_flows[info.destQp].counted &&
        m_flows[info.destQp].src == info.srcHost && m_flows[info.destQp].dst == info.dstHost)
    {
        FlowRecord& f = m_flows[info.destQp];
        f.delivered += info.payloadBytes;
        f.lastArrival = Simulator::Now();
    }
}

void
FabricStatsHelper::MergeFlows(const std::vector<FlowRecord>& other)
{
    for (const FlowRecord& o : other)
    {
        if (!o.started && !o.counted)
        {
            continue; // no record of that flow id there
        }
        FlowRecord& f = Record(o.flowId, o.src, o.dst, o.bytes);
        if (o.started)
        {
            f.start = o.start;
            f.started = true;
        }
        f.counted = f.counted || o.counted;
        f.delivered += o.delivered;
        f.lastArrival = std::max(f.lastArrival, o.lastArrival);
    }
}

void
FabricStatsHelper::WriteFlows(std::ostream& os) const
{
    os << "flow_id,src,dst,bytes,delivered_bytes,start_us,finish_us,fct_us,complete\n";
    os << std::fixed << std::setprecision(6);
    for (const auto& f : m_flows)
    {
        if (!f.started)
        {
            continue;
        }
        os << f.flowId << ',' << f.src << ',' << f.dst << ',' << f.bytes << ',' << f.delivered
           << ',' << f.start.GetSeconds() * 1e6 << ',';
        if (f.Complete())
        {
            os << f.lastArrival.GetSeconds() * 1e6 << ','
               << (f.lastArrival - f.start).GetSeconds() * 1e6 << ",1\n";
        }
        else
        {
            os << ",,0\n";
        }
    }
}

std::vector<FabricStatsHelper::Row>
FabricStatsHelper::LinkRows(Time elapsed) const
{
    const FabricTopology& topo = m_network->GetTopology();
    std::vector<Row> rows;
    for (uint32_t id = 0; id < topo.Links().size(); ++id)
    {
        const auto& l = topo.GetLink(id);
        for (uint32_t end = 0; end < 2; ++end)
        {
            const uint32_t node = end ? l.b : l.a;
            const uint32_t peer = end ? l.a : l.b;
            Ptr<FabricNetDevice> dev = m_network->GetPort(node, id);
            if (!dev)
            {
                continue; // another rank's port
            }
            Ptr<FabricChannel> ch = m_network->GetChannel(id);
            const FabricPortCounters& c = dev->GetCounters();
            std::ostringstream os;
            os << std::fixed << std::setprecision(6);
            os << id << ',' << topo.LinkName(id) << ',' << topo.GetNode(node).name << ','
               << FabricTopology::RoleName(topo.GetNode(node).role) << ',' << topo.PortOf(node, id)
               << ','
               << topo.GetNode(peer).name << ',' << FabricTopology::MediumName(l.medium) << ','
               << l.rate.GetBitRate() / 1e9 << ',' << c.txFrames << ',' << c.txBytes << ','
               << c.rxFrames << ',' << c.rxBytes;
            for (uint64_t d : c.dropFrames)
            {
                os << ',' << d;
            }
            os << ',' << c.trimmedFrames;
            const double util = elapsed.IsStrictlyPositive()
                                    ? c.busyTime.GetSeconds() / elapsed.GetSeconds()
                                    : 0.0;
            os << ',' << c.ecnMarked << ',' << c.pfcPauseSent << ',' << c.pfcResumeSent << ','
               << c.pfcPauseReceived << ',' << dev->GetPausedTime().GetSeconds() * 1e6 << ','
               << util << ',' << ch->GetDownCount(elapsed) << ','
               << ch->GetDownTime(elapsed).GetSeconds() * 1e6 << '\n';
            rows.push_back({2 * uint64_t(id) + end, os.str()});
        }
    }
    return rows;
}

std::string
FabricStatsHelper::LinksHeader()
{
    std::string h =
        "link,name,node,role,port,peer,medium,rate_gbps,tx_frames,tx_bytes,rx_frames,rx_bytes";
    for (std::size_t r = 0; r < static_cast<std::size_t>(DropReason::kCount); ++r)
    {
        h += std::string(",drop_") + DropReasonName(static_cast<DropReason>(r));
    }
    return h + ",trimmed,ecn_marked,pfc_pause_sent,pfc_resume_sent,pfc_pause_received,paused_us,"
               "utilization,downs,down_us\n";
}

void
FabricStatsHelper::WriteLinks(std::ostream& os, Time elapsed) const
{
    os << LinksHeader();
    for (const auto& row : LinkRows(elapsed))
    {
        os << row.text;
    }
}

} // namespace ns3
