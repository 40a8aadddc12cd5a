// The sections whose keys are the model's attributes only: switch, port, routing, accelerator,
// rdma (the network) and prices, monitor (the output).

#include "../scenario-keys.h"
#include "../scenario-sections.h"

#include "ns3/string.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

/** Whether every switch hashes alike unless switch.common_ecmp_seed says. */
constexpr bool kCommonEcmpSeed = false;

/** Kmin must not exceed Kmax, taking the attribute default for the one not given. */
void
CheckEcnRamp(const json& port)
{
    auto bytes = [&port](const std::string& key, const std::string& attribute) {
        TypeId::AttributeInformation info;
        FabricNetDevice::GetTypeId().LookupAttributeByName(attribute, &info);
        QueueSizeValue v;
        if (port.contains(key))
        {
            ParseAttributeText(JsonAttributeText(port.at(key)), *info.checker, v); // checked already
        }
        else
        {
            v.Set(DynamicCast<const QueueSizeValue>(info.initialValue)->Get());
        }
        return v.Get().GetValue();
    };
    if (bytes("ecn_kmin_per_25g", "EcnKminPer25G") > bytes("ecn_kmax_per_25g", "EcnKmaxPer25G"))
    {
        Fail("port.ecn_kmin_per_25g", port.contains("ecn_kmin_per_25g") ? port.at("ecn_kmin_per_25g")
                                                                         : json(nullptr),
             "must not exceed port.ecn_kmax_per_25g");
    }
}

/**
 * The sections whose keys are the model's attributes, bound to \p s's helpers, with the few
 * keys the runner reads itself.
 */
std::vector<SectionSchema>
AttributeSections(Scenario& s)
{
    auto& net = s.network;
    auto& rdma = s.rdmaHelper;
    auto& collective = s.collectiveHelper;
    std::vector<SectionSchema> sections;
    sections.emplace_back("switch");
    sections.back()
        .Bind(FabricSwitch::GetTypeId(),
              [&net](const std::string& n, const AttributeValue& v) { net.SetSwitchAttribute(n, v); },
              {"EcmpSeed"}) // per switch, from the ECMP keys below
        .Bind(SharedBufferMmu::GetTypeId(),
              [&net](const std::string& n, const AttributeValue& v) { net.SetMmuAttribute(n, v); })
        .Key("common_ecmp_seed", "true or false", kCommonEcmpSeed ? "true" : "false",
             "Every switch hashes flows alike (to study ECMP polarization).")
        .Key("ecmp_seed_base", "an integer in [0, 4294967295]", "from the seed",
             "Pins switch n's ECMP hash seed to base + n; without it the base is "
             "0x9e3779b9 x seed + 0x85ebca6b x (run - 1), so every seed hashes flows anew.")
        .Moved("pfc", "switch.pfc_enabled");
    sections.emplace_back("port");
    sections.back()
        .Bind(FabricNetDevice::GetTypeId(),
              [&net](const std::string& n, const AttributeValue& v) { net.SetDeviceAttribute(n, v); })
        .BindAs("nvlink_payload_mtu", FabricNetDevice::GetTypeId(), "PayloadMtu",
                [&net](const std::string& n, const AttributeValue& v) {
                    net.SetNvLinkDeviceAttribute(n, v);
                })
        .Moved("ecn", "port.ecn_enabled");
    sections.emplace_back("routing");
    sections.back().Bind(FabricRouting::GetTypeId(),
                         [&net](const std::string& n, const AttributeValue& v) {
                             net.SetRoutingAttribute(n, v);
                         });
    sections.emplace_back("accelerator");
    sections.back().Bind(Accelerator::GetTypeId(),
                         [&collective](const std::string& n, const AttributeValue& v) {
                             collective.SetAcceleratorAttribute(n, v);
                         });
    sections.emplace_back("rdma");
    sections.back()
        .Bind(RdmaQueuePair::GetTypeId(),
              [&rdma](const std::string& n, const AttributeValue& v) { rdma.SetQueuePairAttribute(n, v); },
              {"UdpSourcePort"}) // each queue pair's own entropy
        .BindFamily("congestion_control", RdmaNic::GetTypeId(), "CongestionControl",
                    RdmaCongestionControl::GetTypeId(), "CongestionControl",
                    [&rdma](const std::string& n, const AttributeValue& v) {
                        rdma.SetNicAttribute(n, v);
                    });
    return sections;
}

void
ConfigureNetwork(const json& doc, Scenario& s)
{
    const json empty = json::object();
    const json& sw = doc.contains("switch") ? doc.at("switch") : empty;
    auto& net = s.network;
    net.SetCommonEcmpSeed(GetBool(sw, "switch", "common_ecmp_seed", kCommonEcmpSeed));
    if (sw.contains("ecmp_seed_base"))
    {
        net.SetEcmpSeedBase(uint32_t(GetUnsigned(sw, "switch", "ecmp_seed_base", 0, 0, UINT32_MAX)));
    }

    const json& port = doc.contains("port") ? doc.at("port") : empty;
    CheckEcnRamp(port);
}

/** The prices section: BomPrices's attributes. */
SectionSchema
PricesSchema(BomPrices& prices)
{
    SectionSchema schema("prices");
    schema.Bind(BomPrices::GetTypeId(), [&prices](const std::string& n, const AttributeValue& v) {
        prices.SetAttribute(n, v);
    });
    return schema;
}

/** The monitor section: FabricMonitor's attributes; the section's presence turns it on. */
SectionSchema
MonitorSchema(ObjectFactory& monitor)
{
    SectionSchema schema("monitor");
    schema.Bind(FabricMonitor::GetTypeId(),
                [&monitor](const std::string& n, const AttributeValue& v) { monitor.Set(n, v); });
    return schema;
}

} // namespace

ScenarioSection
NetworkSection()
{
    ScenarioSection section;
    section.keys = {"switch", "port", "routing", "accelerator", "rdma"};
    section.build = [](const json& doc, Scenario& s) {
        for (const auto& [name, value] :
             s.server ? s.server->AcceleratorAttributes() : ServerPreset::Values())
        {
            s.collectiveHelper.SetAcceleratorAttribute(name, StringValue(value));
        }
        for (const SectionSchema& schema : AttributeSections(s))
        {
            if (doc.contains(schema.GetName()))
            {
                schema.Apply(doc.at(schema.GetName()));
            }
        }
        ConfigureNetwork(doc, s);
    };
    section.schemas = &AttributeSections;
    return section;
}

ScenarioSection
OutputSection()
{
    ScenarioSection section;
    section.keys = {"prices", "monitor"};
    section.build = [](const json& doc, Scenario& s) {
        if (doc.contains("prices"))
        {
            PricesSchema(s.prices).Apply(doc.at("prices"));
        }
        if (doc.contains("monitor"))
        {
            MonitorSchema(s.monitor).Apply(doc.at("monitor"));
            s.hasMonitor = true;
        }
    };
    section.schemas = [](Scenario& s) {
        return std::vector<SectionSchema>{PricesSchema(s.prices), MonitorSchema(s.monitor)};
    };
    return section;
}

} // namespace aifabric
