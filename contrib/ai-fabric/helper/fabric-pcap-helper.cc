#include "fabric-pcap-helper.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPcapHelper");

namespace
{
void
WritePcapRecord(Ptr<PcapFileWrapper> file, Ptr<const Packet> p)
{
    file->Write(Simulator::Now(), p);
}
} // namespace

void
FabricPcapHelper::SetSnapLength(uint32_t bytes)
{
    if (bytes == 0)
    {
        throw std::invalid_argument("snap length = 0: keep at least 1 byte of each frame");
    }
    m_snapLength = bytes;
}

uint32_t
FabricPcapHelper::EnablePcap(const std::string& prefix, Ptr<FabricNetwork> network, uint32_t node)
{
    const FabricTopology& topo = network->GetTopology();
    if (node >= topo.GetNNodes())
    {
        throw std::invalid_argument("node " + std::to_string(node) + ": the topology has " +
                                    std::to_string(topo.GetNNodes()) + " nodes");
    }
    const auto& n = topo.GetNode(node);
    uint32_t opened = 0;
    for (uint32_t port = 0; port < n.links.size(); ++port)
    {
        Ptr<FabricNetDevice> dev = network->GetPort(node, n.links[port]);
        if (!dev)
        {
            continue; // another rank's port
        }
        const auto& link = topo.GetLink(n.links[port]);
        const uint32_t peer = link.a == node ? link.b : link.a;
        std::string name = prefix + n.name + "-" + topo.GetNode(peer).name;
        for (uint32_t other = 0; other < n.links.size(); ++other)
        {
            const auto& l = topo.GetLink(n.links[other]);
            if (other != port && (l.a == peer || l.b == peer))
            {
                name += "-p" + std::to_string(port); // parallel cables
                break;
            }
        }
        name += ".pcap";
        Ptr<PcapFileWrapper> file =
            CreateObjectWithAttributes<PcapFileWrapper>("NanosecMode", BooleanValue(true));
        file->Open(name, std::ios::out);
        if (file->Fail())
        {
            throw std::invalid_argument(name + ": cannot write the file");
        }
        file->Init(PcapHelper::DLT_EN10MB, m_snapLength);
        dev->TraceConnectWithoutContext("Tx", MakeBoundCallback(&WritePcapRecord, file));
        dev->TraceConnectWithoutContext("Rx", MakeBoundCallback(&WritePcapRecord, file));
        NS_LOG_INFO("capturing " << name);
        m_files.push_back(file);
        ++opened;
    }
    return opened;
}

void
FabricPcapHelper::Close()
{
    for (const auto& file : m_files)
    {
        file->Close();
    }
    m_files.clear();
}

} // namespace ns3
