#include "flow-size-distribution.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{
std::string
PointText(std::size_t i, const std::pair<double, double>& p)
{
    std::ostringstream os;
    os << "point " << i << " (" << p.first << " bytes, " << p.second << ")";
    return os.str();
}
} // namespace

FlowSizeDistribution::FlowSizeDistribution(std::vector<std::pair<double, double>> points)
    : m_points(std::move(points))
{
    if (m_points.size() < 2)
    {
        throw std::invalid_argument("a flow-size CDF needs at least 2 points");
    }
    for (std::size_t i = 0; i < m_points.size(); ++i)
    {
        const auto& [bytes, fraction] = m_points[i];
        if (!std::isfinite(bytes) || !std::isfinite(fraction) || bytes < 0 || fraction < 0 ||
            fraction > 1)
        {
            throw std::invalid_argument(PointText(i, m_points[i]) +
                                        ": bytes must be >= 0 and the fraction in [0, 1]");
        }
        if (i > 0 && (bytes <= m_points[i - 1].first || fraction <= m_points[i - 1].second))
        {
            throw std::invalid_argument(PointText(i, m_points[i]) +
                                        ": bytes and fraction must both increase");
        }
    }
    if (m_points.front().second != 0 || m_points.back().second != 1)
    {
        throw std::invalid_argument("a flow-size CDF starts at fraction 0 and ends at 1 (100 "
                                    "in a file, whose second column is a percent)");
    }
    if (m_points.back().first < 1 || m_points.back().first > kMaxBytes)
    {
        throw std::invalid_argument("a flow-size CDF must reach at least 1 byte and at most "
                                    "2^40 bytes");
    }
}

FlowSizeDistribution
FlowSizeDistribution::WebSearch()
{
    return FlowSizeDistribution({{0, 0},
                                 {10000, 0.15},
                                 {20000, 0.20},
                                 {30000, 0.30},
                                 {50000, 0.40},
                                 {80000, 0.53},
                                 {200000, 0.60},
                                 {1000000, 0.70},
                                 {2000000, 0.80},
                                 {5000000, 0.90},
                                 {10000000, 0.97},
                                 {30000000, 1.0}});
}

FlowSizeDistribution
FlowSizeDistribution::FbHadoop()
{
    return FlowSizeDistribution({{0, 0},
                                 {100, 0.01},
                                 {200, 0.02},
                                 {300, 0.05},
                                 {350, 0.15},
                                 {400, 0.20},
                                 {500, 0.30},
                                 {600, 0.40},
                                 {700, 0.50},
                                 {1000, 0.60},
                                 {2000, 0.67},
                                 {7000, 0.70},
                                 {30000, 0.72},
                                 {50000, 0.82},
                                 {80000, 0.87},
                                 {120000, 0.90},
                                 {300000, 0.95},
                                 {1000000, 0.975},
                                 {2000000, 0.99},
                                 {10000000, 1.0}});
}

std::vector<std::string>
FlowSizeDistribution::PresetNames()
{
    return {"web_search", "fb_hadoop"};
}

FlowSizeDistribution
FlowSizeDistribution::Preset(const std::string& name)
{
    if (name == "web_search")
    {
        return WebSearch();
    }
    if (name == "fb_hadoop")
    {
        return FbHadoop();
    }
    throw std::invalid_argument("no flow-size preset \"" + name +
                                "\": allowed: \"web_search\", \"fb_hadoop\"");
}

FlowSizeDistribution
FlowSizeDistribution::Read(std::istream& in, const std::string& origin)
{
    std::vector<std::pair<double, double>> points;
    std::string line;
    for (uint32_t n = 1; std::getline(in, line); ++n)
    {
        const std::string text = line.substr(0, line.find('#'));
        if (text.find_first_not_of(" \t\r") == std::string::npos)
        {
            continue;
        }
        std::istringstream fields(text);
        double bytes = 0;
        double percent = 0;
        std::string rest;
        if (!(fields >> bytes >> percent) || (fields >> rest))
        {
            throw std::invalid_argument(origin + " line " + std::to_string(n) + ": \"" + line +
                                        "\": expected \"bytes percent\"");
        }
        points.emplace_back(bytes, percent / 100);
    }
    try
    {
        return FlowSizeDistribution(std::move(points));
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(origin + ": " + e.what());
    }
}

FlowSizeDistribution
FlowSizeDistribution::ReadFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument("cannot read flow-size CDF file " + path);
    }
    return Read(in, path);
}

double
FlowSizeDistribution::Mean() const
{
    double sum = 0;
    for (std::size_t i = 1; i < m_points.size(); ++i)
    {
        const auto& [x0, y0] = m_points[i - 1];
        const auto& [x1, y1] = m_points[i];
        sum += (x0 + x1) / 2 * (y1 - y0);
    }
    return sum;
}

double
FlowSizeDistribution::Quantile(double u) const
{
    u = std::clamp(u, 0.0, 1.0);
    const auto it = std::lower_bound(m_points.begin() + 1,
                                     m_points.end() - 1,
                                     u,
                                     [](const auto& p, double v) { return p.second < v; });
    const auto& [x0, y0] = *(it - 1);
    const auto& [x1, y1] = *it;
    return x0 + (x1 - x0) * (u - y0) / (y1 - y0);
}

double
FlowSizeDistribution::Cdf(double bytes) const
{
    if (bytes <= m_points.front().first)
    {
        return 0;
    }
    if (bytes >= m_points.back().first)
    {
        return 1;
    }
    const auto it = std::lower_bound(m_points.begin(),
                                     m_points.end(),
                                     bytes,
                                     [](const auto& p, double v) { return p.first < v; });
    const auto& [x0, y0] = *(it - 1);
    const auto& [x1, y1] = *it;
    return y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
}

} // namespace ns3
