#include "bill-of-materials.h"

#include <algorithm>


namespace ns3
{

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
        if (node.role == FabricTopology::Role::Host)
        {
            continue;
        }
        double portGbps = 0;
        for (uint32_t l : node.links)
        {
            portGbps = std::max(portGbps, topo.GetLink(l).rate.GetBitRate() / 1e9);
        }
        const std::string item = std::string(FabricTopology::RoleName(node.role)) + " " +
                                 std::to_string(node.links.size()) + "-port";
        const bool inServer = node.role == FabricTopology::Role::NvSwitch;
        const double unit =
            inServer ? 0 : prices.switchPortPer100G * portGbps / 100 * double(node.links.size());
        bom.Add("switch", item, portGbps, 1, unit);
    }
    for (const auto& l : topo.Links())
    {
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
