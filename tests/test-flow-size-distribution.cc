// FlowSizeDistribution: the presets' means against an independent integration of their
// quantile functions, the CDF against its inverse, HPCC's file format, and clear refusals.
#include "ns3/flow-size-distribution.h"

#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{
/** The mean as the integral of the quantile function over (0, 1), by the midpoint rule. */
double
IntegratedMean(const FlowSizeDistribution& d)
{
    const int n = 1000000;
    double sum = 0;
    for (int i = 0; i < n; ++i)
    {
        sum += d.Quantile((i + 0.5) / n);
    }
    return sum / n;
}
} // namespace

TEST(FlowSizeDistribution, PresetMeansAreTheIntegralsOfTheirQuantiles)
{
    for (const std::string& name : FlowSizeDistribution::PresetNames())
    {
        const FlowSizeDistribution d = FlowSizeDistribution::Preset(name);
        EXPECT_NEAR(IntegratedMean(d) / d.Mean(), 1.0, 1e-4) << name;
    }
    // The trapezoid sums of the published points.
    EXPECT_DOUBLE_EQ(FlowSizeDistribution::WebSearch().Mean(), 1711250);
    EXPECT_NEAR(FlowSizeDistribution::FbHadoop().Mean(), 120420.75, 1e-6);
}

TEST(FlowSizeDistribution, CdfInvertsQuantile)
{
    const FlowSizeDistribution d = FlowSizeDistribution::FbHadoop();
    for (int i = 1; i < 1000; ++i)
    {
        const double u = i / 1000.0;
        EXPECT_NEAR(d.Cdf(d.Quantile(u)), u, 1e-12) << u;
    }
    EXPECT_DOUBLE_EQ(d.Quantile(0.5), 700);  // a published point
    EXPECT_DOUBLE_EQ(d.Quantile(0.55), 850); // halfway between 700 (50%) and 1,000 (60%)
    EXPECT_EQ(d.Quantile(1.0), 1e7);
    EXPECT_EQ(d.Cdf(0), 0);
    EXPECT_EQ(d.Cdf(2e7), 1);
}

TEST(FlowSizeDistribution, ReadsHpccsFormat)
{
    std::istringstream in("# web search\n0 0\n10000 15\n20000 20\n30000 30\n50000 40\n"
                          "80000 53\n200000 60\n1000000 70\n2000000 80\n5000000 90\n"
                          "10000000 97\n\n30000000 100\n");
    EXPECT_EQ(FlowSizeDistribution::Read(in, "ws").Points(),
              FlowSizeDistribution::WebSearch().Points());
}

TEST(FlowSizeDistribution, RefusesWhatIsNoCdfNamingWhere)
{
    const auto refusal = [](const std::string& text) {
        std::istringstream in(text);
        try
        {
            FlowSizeDistribution::Read(in, "f");
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refusal("0 0\n100 50\n50 100\n").find("point 2"), std::string::npos);
    EXPECT_NE(refusal("0 0\n100 50\n200 50\n300 100\n").find("point 2"), std::string::npos);
    EXPECT_NE(refusal("0 0\n100 90\n").find("ends at 1"), std::string::npos);
    EXPECT_NE(refusal("0 10\n100 100\n").find("starts at fraction 0"), std::string::npos);
    EXPECT_NE(refusal("0 0\n100 abc\n").find("f line 2"), std::string::npos);
    EXPECT_NE(refusal("0 0\n100 100 7\n").find("f line 2"), std::string::npos);
    EXPECT_NE(refusal("0 0\n").find("at least 2 points"), std::string::npos);
    EXPECT_THROW(FlowSizeDistribution::Preset("web"), std::invalid_argument);
    EXPECT_THROW(FlowSizeDistribution::ReadFile("/nonexistent/cdf.txt"), std::invalid_argument);
}
