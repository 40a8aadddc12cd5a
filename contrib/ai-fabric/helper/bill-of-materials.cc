#include "bill-of-materials.h"

#include "ns3/attribute-construction-list.h"
#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BomPrices);

TypeId
BomPrices::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BomPrices")
            .SetParent<ObjectBase>()
            .SetGroupName("AiFabric")
            .AddConstructor<BomPrices>()
            .AddAttribute("SwitchPortPer100G",
                          "USD per 100 Gb/s of switch port.  Default 1,500: a Mellanox SN2700 "
                          "(32 x 100G) listed at 49,000 USD at launch (The Next Platform, "
                          "2015-09-14).",
                          DoubleValue(1500),
                          MakeDoubleAccessor(&BomPrices::switchPortPer100G),
                          MakeDoubleChecker<double>(0, 1e9))
            .AddAttribute("TransceiverPer100G",
                          "USD per 100 Gb/s of optical transceiver (two per optical link).  "
                          "Default 500: 100G QSFP28 at volume (LuxOptx, \"From 100G to "
                          "400G/800G\", 2024).",
                          DoubleValue(500),
                          MakeDoubleAccessor(&BomPrices::transceiverPer100G),
                          MakeDoubleChecker<double>(0, 1e9))
            .AddAttribute("DacCablePer100G",
                          "USD per 100 Gb/s of direct-attach copper cable.  Default 100: our "
                          "assumption, no public source found; override it.",
                          DoubleValue(100),
                          MakeDoubleAccessor(&BomPrices::dacCablePer100G),
                          MakeDoubleChecker<double>(0, 1e9))
            .AddAttribute("FibrePerMetre",
                          "USD per metre of fibre.  Default 2: our assumption, no public source "
                          "found; override it.",
                          DoubleValue(2),
                          MakeDoubleAccessor(&BomPrices::fibrePerMetre),
                          MakeDoubleChecker<double>(0, 1e9));
    return tid;
}

TypeId
BomPrices::GetInstanceTypeId() const
{
    return GetTypeId();
}

BomPrices::BomPrices()
{
    ConstructSelf(AttributeConstructionList());
}

void
BillOfMaterials::Add(const std::string& category, const std::string& item, double rateGbps,
                     uint64_t quantity, double unitPrice)
{
    for (auto& l : m_lines)
    {
        if (l.category == category && l.item == item && l.rateGbps == rateGbps)
        {
            l.quantity += quantity;
            return;
        }
    }
    m_lines.push_back({category, item, rateGbps, quantity, unitPrice});
}

BillOfMaterials
BillOfMaterials::FromTopology(const FabricTopology& topo, const BomPrices& prices)
{
    BillOfMaterials bom;
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        const auto& node = topo.GetNode(n);
        if (node.role == FabricTopology::Role::Host ||
            node.role == FabricTopology::Role::NvlsEngine)
        {
            continue; // an NVLS engine is part of its NVSwitch
        }
        double portGbps = 0;
        for (uint32_t l : node.links)
        {
            if (topo.GetNode(topo.GetLink(l).a).role == FabricTopology::Role::NvlsEngine ||
                topo.GetNode(topo.GetLink(l).b).role == FabricTopology::Role::NvlsEngine)
            {
                continue;
            }
            portGbps = std::max(portGbps, topo.GetLink(l).rate.GetBitRate() / 1e9);
        }
        const uint32_t engines = static_cast<uint32_t>(
            std::count_if(node.links.begin(), node.links.end(), [&](uint32_t l) {
                const auto& link = topo.GetLink(l);
                return topo.GetNode(link.a == n ? link.b : link.a).role ==
                       FabricTopology::Role::NvlsEngine;
            }));
        const auto ports = static_cast<uint32_t>(node.links.size()) - engines;
        const std::string item = std::string(FabricTopology::RoleName(node.role)) + " " +
                                 std::to_string(ports) + "-port";
        const bool inServer = node.role == FabricTopology::Role::NvSwitch;
        const double unit =
            inServer ? 0 : prices.switchPortPer100G * portGbps / 100 * double(ports);
        bom.Add("switch", item, portGbps, 1, unit);
    }
    for (const auto& l : topo.Links())
    {
        if (topo.GetNode(l.a).role == FabricTopology::Role::NvlsEngine ||
            topo.GetNode(l.b).role == FabricTopology::Role::NvlsEngine)
        {
            continue; // inside the NVSwitch
        }
        const double gbps = l.rate.GetBitRate() / 1e9;
        switch (l.medium)
        {
        case FabricTopology::Medium::NvLink:
            bom.Add("cable", "nvlink", gbps, 1, 0);
            break;
        case FabricTopology::Medium::Copper:
            bom.Add("cable", "copper", gbps, 1, prices.dacCablePer100G * gbps / 100);
            break;
        case FabricTopology::Medium::Optical:
            bom.Add("cable", "optical", gbps, 1, 0);
            bom.Add("cable", "fibre metres", 0, static_cast<uint64_t>(l.lengthMetres + 0.5),
                    prices.fibrePerMetre);
            bom.Add("transceiver", "optical", gbps, 2, prices.transceiverPer100G * gbps / 100);
            break;
        }
    }
    return bom;
}

uint64_t
BillOfMaterials::Quantity(const std::string& category, const std::string& item) const
{
    uint64_t q = 0;
    for (const auto& l : m_lines)
    {
        if (l.category == category && l.item == item)
        {
            q += l.quantity;
        }
    }
    return q;
}

double
BillOfMaterials::TotalCost() const
{
    double t = 0;
    for (const auto& l : m_lines)
    {
        t += l.Total();
    }
    return t;
}

void
BillOfMaterials::WriteCsv(std::ostream& os) const
{
    os << "category,item,rate_gbps,quantity,unit_price_usd,total_usd\n";
    for (const auto& l : m_lines)
    {
        os << l.category << ',' << l.item << ',' << l.rateGbps << ',' << l.quantity << ','
           << l.unitPrice << ',' << l.Total() << '\n';
    }
    os << "total,,,,," << TotalCost() << '\n';
}

} // namespace ns3
