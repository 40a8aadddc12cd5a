#ifndef AI_FABRIC_BILL_OF_MATERIALS_H
#define AI_FABRIC_BILL_OF_MATERIALS_H

#include "ns3/fabric-topology.h"
#include "ns3/object-base.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Unit prices of fabric parts, in US dollars, scaled linearly with port rate.
 *
 * Defaults are public list-price orders of magnitude, to be overridden for a real purchase:
 * - switch port: 1,500 USD per 100 Gb/s (Mellanox SN2700, 32 x 100G, 49,000 USD list at
 *   launch: The Next Platform, 2015-09-14);
 * - optical transceiver: 500 USD per 100 Gb/s (100G QSFP28 at volume, LuxOptx "From 100G to
 *   400G/800G", 2024);
 * - copper DAC cable: 100 USD per 100 Gb/s and fibre: 2 USD per metre are our assumptions,
 *   with no public source found; override them.
 * NVSwitches and NVLink come with the server and are counted at zero cost.  An attribute
 * holder (ObjectBase): each price is an attribute, its default and source in its help.
 */
class BomPrices : public ObjectBase
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    /** The attributes' defaults. */
    BomPrices();

    double switchPortPer100G{};  //!< USD per 100 Gb/s of switch port
    double transceiverPer100G{}; //!< USD per 100 Gb/s of optical transceiver
    double dacCablePer100G{};    //!< USD per 100 Gb/s of copper cable
    double fibrePerMetre{};      //!< USD per metre of fibre
};

/**
 * \ingroup ai-fabric
 * \brief What a buyer would order for a fabric: switches per tier and radix, cables by kind,
 * transceivers (two per optical link), each priced, and the total.
 */
class BillOfMaterials
{
  public:
    struct Line
    {
        std::string category; //!< switch, cable, transceiver
        std::string item;     //!< e.g. "leaf 64-port", "optical", "fibre metres"
        double rateGbps;      //!< port or link rate
        uint64_t quantity;
        double unitPrice;     //!< USD
        double Total() const { return unitPrice * double(quantity); }
    };

    static BillOfMaterials FromTopology(const FabricTopology& topology,
                                        const BomPrices& prices = BomPrices());
    const std::vector<Line>& Lines() const { return m_lines; }
    /** Quantity of lines whose category and item match. */
    uint64_t Quantity(const std::string& category, const std::string& item) const;
    double TotalCost() const;
    /** category,item,rate_gbps,quantity,unit_price_usd,total_usd */
    void WriteCsv(std::ostream& os) const;

  private:
    void Add(const std::string& category, const std::string& item, double rateGbps,
             uint64_t quantity, double unitPrice);
    std::vector<Line> m_lines;
};

} // namespace ns3

#endif
