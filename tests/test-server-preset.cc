// Server presets: the HGX H100 preset is the attributes' defaults (one home for the figures),
// and each preset's attribute values follow from its cited figures.
#include "ns3/ai-fabric-module.h"
#include "ns3/double.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/** \p preset's value of attribute \p name ("" if it has none). */
std::string
ValueOf(const ServerPreset::Values& values, const std::string& name)
{
    for (const auto& [n, v] : values)
    {
        if (n == name)
        {
            return v;
        }
    }
    return "";
}

/** The initial value of \p tid's attribute \p name, as text. */
std::string
DefaultOf(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    EXPECT_TRUE(tid.LookupAttributeByName(name, &info)) << name;
    return info.initialValue->SerializeToString(info.checker);
}

/** \p text as the attribute \p name of \p tid would hold it, as text. */
std::string
Parsed(TypeId tid, const std::string& name, const std::string& text)
{
    TypeId::AttributeInformation info;
    EXPECT_TRUE(tid.LookupAttributeByName(name, &info)) << name;
    Ptr<AttributeValue> v = info.checker->Create();
    EXPECT_TRUE(v->DeserializeFromString(text, info.checker)) << name << " = " << text;
    return v->SerializeToString(info.checker);
}

TEST(ServerPreset, HgxH100IsTheAttributesDefaults)
{
    const ServerPreset& h100 = ServerPreset::Get("hgx_h100");
    for (const char* name : {"NvlinkRate", "NicRate"})
    {
        const TypeId tid = TopologyHelper::GetTypeId();
        EXPECT_EQ(Parsed(tid, name, ValueOf(h100.TopologyAttributes(), name)), DefaultOf(tid, name))
            << name;
    }
    for (const char* name : {"ReductionRate", "CopyRate"})
    {
        const TypeId tid = Accelerator::GetTypeId();
        EXPECT_EQ(Parsed(tid, name, ValueOf(h100.AcceleratorAttributes(), name)),
                  DefaultOf(tid, name))
            << name;
    }
    // Doubles to the last bit (their text form keeps 6 digits).
    for (const char* name : {"SustainedFlops", "LowPrecisionSpeedup", "PeakFlops"})
    {
        TypeId::AttributeInformation info;
        ASSERT_TRUE(Accelerator::GetTypeId().LookupAttributeByName(name, &info)) << name;
        EXPECT_EQ(std::stod(ValueOf(h100.AcceleratorAttributes(), name)),
                  DynamicCast<const DoubleValue>(info.initialValue)->Get())
            << name;
    }
}

TEST(ServerPreset, ValuesFollowFromTheCitedFigures)
{
    const ServerPreset& b200 = ServerPreset::Get("hgx_b200");
    // 18 links x 40.1 GB/s = 721.8 GB/s; HBM 8 TB/s over a reduction's 3 passes and a copy's 2;
    // the matrix products measured on it, 1745.0 TFLOP/s in BF16 and 3432.5 in FP8.
    EXPECT_EQ(ValueOf(b200.TopologyAttributes(), "NvlinkRate"), "5774400000000bps");
    EXPECT_EQ(ValueOf(b200.TopologyAttributes(), "GpusPerServer"), "8");
    EXPECT_EQ(ValueOf(b200.TopologyAttributes(), "NicRate"), "400Gbps");
    EXPECT_EQ(ValueOf(b200.AcceleratorAttributes(), "ReductionRate"), "21333Gbps");
    EXPECT_EQ(ValueOf(b200.AcceleratorAttributes(), "CopyRate"), "32000Gbps");
    EXPECT_EQ(std::stod(ValueOf(b200.AcceleratorAttributes(), "SustainedFlops")), 1745e12);
    EXPECT_EQ(std::stod(ValueOf(b200.AcceleratorAttributes(), "LowPrecisionSpeedup")),
              3432.5 / 1745.0);
    EXPECT_EQ(std::stod(ValueOf(b200.AcceleratorAttributes(), "PeakFlops")), 2250e12);
    // H800: 8 NVLinks at NCCL's Hopper rate, the 164.8 GB/s behind DeepSeek's "160 GB/s".
    EXPECT_EQ(ValueOf(ServerPreset::Get("hgx_h800").TopologyAttributes(), "NvlinkRate"),
              "1318400000000bps");
    const ServerPreset& h200 = ServerPreset::Get("hgx_h200");
    EXPECT_EQ(ValueOf(h200.TopologyAttributes(), "NvlinkRate"), "2966400000000bps");
    EXPECT_EQ(ValueOf(h200.AcceleratorAttributes(), "ReductionRate"), "12800Gbps");
    for (const ServerPreset& p : ServerPreset::All())
    {
        EXPECT_FALSE(p.sources.empty()) << p.name;
        EXPECT_GT(p.nvSwitches, 0u) << p.name;
    }
}

TEST(ServerPreset, AnUnknownNameIsRefusedWithTheNames)
{
    try
    {
        ServerPreset::Get("hgx_h300");
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find(
                      "\"hgx_h100\", \"hgx_h200\", \"hgx_h800\", \"hgx_b200\""),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
