#ifndef AI_FABRIC_FLOW_SIZE_DISTRIBUTION_H
#define AI_FABRIC_FLOW_SIZE_DISTRIBUTION_H

#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A flow-size distribution: a piecewise-linear CDF over bytes, as data-center traffic
 * studies publish them.
 *
 * Points (bytes, cumulative fraction) with both coordinates strictly increasing, the first
 * fraction 0 and the last 1; between points the CDF is linear (sizes are uniform), so the
 * mean is the trapezoid sum and Quantile inverts the CDF exactly.  Two presets are the
 * workloads HPCC (Li et al., SIGCOMM 2019) and many congestion-control papers evaluate:
 * WebSearch (DCTCP's web-search cluster, Alizadeh et al., SIGCOMM 2010) and FbHadoop
 * (Facebook's Hadoop cluster, Roy et al., SIGCOMM 2015), with the points of HPCC's traffic
 * generator.  Invalid input throws std::invalid_argument naming the point.
 */
class FlowSizeDistribution
{
  public:
    /** The largest size a distribution may reach: 2^40 bytes (1 TiB). */
    static constexpr double kMaxBytes = double(uint64_t(1) << 40);
    /** A distribution through \p points: (bytes, cumulative fraction in [0, 1]). */
    explicit FlowSizeDistribution(std::vector<std::pair<double, double>> points);

    /** DCTCP's web-search flow sizes (mean 1,711,250 bytes; 15% of flows up to 10 KB). */
    static FlowSizeDistribution WebSearch();
    /** Facebook's Hadoop flow sizes (mean 120,421 bytes; half the flows up to 700 bytes). */
    static FlowSizeDistribution FbHadoop();
    /** The preset \p name ("web_search", "fb_hadoop"); throws for any other. */
    static FlowSizeDistribution Preset(const std::string& name);
    /** The preset names Preset takes. */
    static std::vector<std::string> PresetNames();
    /**
     * A distribution read from \p in: one "bytes percent" pair per line (HPCC's traffic
     * generator format: the percent from 0 to 100), '#' comments and blank lines skipped.
     * \p origin names the text in errors, which give the line.
     */
    static FlowSizeDistribution Read(std::istream& in, const std::string& origin);
    /** Read from file \p path; throws if it cannot be read. */
    static FlowSizeDistribution ReadFile(const std::string& path);

    /** The mean flow size, bytes (closed form: linear between points). */
    double Mean() const;
    /** The size at cumulative fraction \p u in [0, 1] (inverse CDF), bytes. */
    double Quantile(double u) const;
    /** The cumulative fraction of flows of at most \p bytes. */
    double Cdf(double bytes) const;
    /** The largest size, bytes. */
    double Max() const { return m_points.back().first; }
    const std::vector<std::pair<double, double>>& Points() const { return m_points; }

  private:
    std::vector<std::pair<double, double>> m_points;
};

} // namespace ns3

#endif
