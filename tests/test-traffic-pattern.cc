// TrafficPatternHelper: each pattern against its definition, the random ones against their
// closed forms, and the htsim connection-matrix reader; through the runner, a matrix file gives
// the flows the same flows listed in the scenario give.
#include "runner-fixture.h"

#include "ns3/traffic-pattern-helper.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace ns3;
using namespace aifabric_test;
namespace fs = std::filesystem;

namespace
{
/** How many flows each host sends and receives. */
std::pair<std::vector<uint32_t>, std::vector<uint32_t>>
Degrees(const std::vector<TrafficFlow>& flows, uint32_t hosts)
{
    std::vector<uint32_t> out(hosts, 0);
    std::vector<uint32_t> in(hosts, 0);
    for (const auto& f : flows)
    {
        ++out.at(f.src);
        ++in.at(f.dst);
    }
    return {out, in};
}

std::vector<TrafficFlow>
Matrix(const std::string& text, uint32_t hosts = 16)
{
    TrafficPatternHelper patterns(hosts);
    patterns.SetFlowBytes(4096);
    std::istringstream in(text);
    return patterns.FromConnectionMatrix(in, "m.cm");
}

/** The message of the std::invalid_argument reading \p text throws ("" if none). */
std::string
MatrixError(const std::string& text)
{
    try
    {
        Matrix(text);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}
} // namespace

TEST(TrafficPattern, ShiftSendsEachHostToTheOneShiftAhead)
{
    TrafficPatternHelper patterns(8);
    patterns.SetFlowBytes(1000);
    patterns.SetStart(MicroSeconds(3));
    const auto flows = patterns.Shift(3);
    ASSERT_EQ(flows.size(), 8u);
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(flows[i].src, i);
        EXPECT_EQ(flows[i].dst, (i + 3) % 8);
        EXPECT_EQ(flows[i].bytes, 1000u);
        EXPECT_EQ(flows[i].start, MicroSeconds(3));
    }
    EXPECT_THROW(patterns.Shift(0), std::invalid_argument);
    EXPECT_THROW(patterns.Shift(8), std::invalid_argument);
}

TEST(TrafficPattern, PermutationIsOneCycleThroughEveryHost)
{
    const uint32_t hosts = 64;
    std::set<std::vector<uint32_t>> seen;
    for (int64_t stream = 0; stream < 5; ++stream)
    {
        TrafficPatternHelper patterns(hosts);
        EXPECT_EQ(patterns.AssignStreams(stream), 1);
        const auto flows = patterns.Permutation();
        const auto [out, in] = Degrees(flows, hosts);
        EXPECT_EQ(out, std::vector<uint32_t>(hosts, 1));
        EXPECT_EQ(in, std::vector<uint32_t>(hosts, 1));
        // Following the flows from host 0 visits every host before returning: one cycle.
        uint32_t h = 0;
        std::vector<uint32_t> order;
        for (uint32_t n = 0; n < hosts; ++n)
        {
            order.push_back(h);
            h = flows[h].dst;
        }
        EXPECT_EQ(h, 0u);
        EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), hosts);
        seen.insert(order);
    }
    EXPECT_EQ(seen.size(), 5u) << "each stream draws its own permutation";
    TrafficPatternHelper a(hosts);
    TrafficPatternHelper b(hosts);
    a.AssignStreams(7);
    b.AssignStreams(7);
    const auto fa = a.Permutation();
    const auto fb = b.Permutation();
    for (uint32_t i = 0; i < hosts; ++i)
    {
        EXPECT_EQ(fa[i].dst, fb[i].dst) << "the same stream draws the same permutation";
    }
}

TEST(TrafficPattern, RandomLeavesAFractionOneOverEOfHostsUnchosen)
{
    // Each of n hosts picks one of the n - 1 others uniformly: a host is nobody's choice with
    // probability (1 - 1/(n-1))^(n-1), 0.3677 at n = 4096 (balls into bins).
    const uint32_t hosts = 4096;
    TrafficPatternHelper patterns(hosts);
    patterns.AssignStreams(3);
    const auto flows = patterns.Random();
    const auto [out, in] = Degrees(flows, hosts);
    EXPECT_EQ(out, std::vector<uint32_t>(hosts, 1));
    for (const auto& f : flows)
    {
        ASSERT_NE(f.src, f.dst);
    }
    const double p = std::pow(1.0 - 1.0 / (hosts - 1), hosts - 1);
    const double unchosen = std::count(in.begin(), in.end(), 0u);
    // Occupancy variance is below the binomial's; 4 binomial sigmas bound it.
    EXPECT_NEAR(unchosen, p * hosts, 4 * std::sqrt(hosts * p * (1 - p)));
}

TEST(TrafficPattern, IncastAndAllToAll)
{
    TrafficPatternHelper patterns(8);
    const auto incast = patterns.Incast(2, 5);
    ASSERT_EQ(incast.size(), 5u);
    const uint32_t senders[] = {0, 1, 3, 4, 5}; // the first five hosts other than 2
    for (uint32_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(incast[i].src, senders[i]);
        EXPECT_EQ(incast[i].dst, 2u);
    }
    EXPECT_THROW(patterns.Incast(8, 1), std::invalid_argument);
    EXPECT_THROW(patterns.Incast(0, 8), std::invalid_argument);
    const auto all = patterns.AllToAll();
    const auto [out, in] = Degrees(all, 8);
    EXPECT_EQ(all.size(), 56u);
    EXPECT_EQ(out, std::vector<uint32_t>(8, 7));
    EXPECT_EQ(in, std::vector<uint32_t>(8, 7));
}

TEST(TrafficPattern, ReadsHtsimConnectionMatrix)
{
    const auto flows = Matrix("# a comment\n"
                              "Nodes 16\n"
                              "Connections 3\n"
                              "\n"
                              "0->5 id 1 start 0 size 65536\n"
                              "5->0 start 2.5 size 0\n"
                              "15->1 start 10 size 1\n");
    ASSERT_EQ(flows.size(), 3u);
    EXPECT_EQ(flows[0].src, 0u);
    EXPECT_EQ(flows[0].dst, 5u);
    EXPECT_EQ(flows[0].bytes, 65536u);
    EXPECT_EQ(flows[0].start, Time(0));
    EXPECT_EQ(flows[1].bytes, 4096u) << "size 0: the helper's flow size";
    EXPECT_EQ(flows[1].start, NanoSeconds(2500)) << "start in microseconds";
    EXPECT_EQ(flows[2].src, 15u);
    EXPECT_EQ(flows[2].bytes, 1u);
    EXPECT_EQ(flows[2].start, MicroSeconds(10));
}

TEST(TrafficPattern, RefusesMalformedConnectionMatrixNamingTheLine)
{
    struct Case
    {
        std::string text;
        std::string mention;
    };
    const Case cases[] = {
        {"Connections 2\n0->1 start 0 size 8\n", "Connections 2 but 1 flow lines"},
        {"Nodes 17\n0->1 start 0\n", "line 1"},
        {"0->1 start 0\n1->1 start 0\n", "line 2"},
        {"0->16 start 0\n", "below 16"},
        {"0->1 size 8\n", "no start"},
        {"0->1 start 0 trigger 1\n", "\"trigger\" is not supported"},
        {"0->1 start 0 prio 3\n", "\"prio\" is not supported"},
        {"0->1 start -1\n", "start takes microseconds"},
        {"0->1 start\n", "has no value"},
        {"Triggers 1\n0->1 start 0\n", "triggers"},
        {"hello\n", "expected Nodes"},
        {"# nothing\n", "no flow lines"},
    };
    for (const auto& c : cases)
    {
        const std::string error = MatrixError(c.text);
        EXPECT_NE(error.find(c.mention), std::string::npos) << c.text << " gave: " << error;
        EXPECT_EQ(error.rfind("m.cm", 0), 0u) << error;
    }
}

TEST(TrafficPattern, RunnerMatrixFileGivesTheFlowsOfTheSameListedFlows)
{
    const fs::path dir = Scratch("connection-matrix");
    std::ofstream(dir / "m.cm") << "Nodes 16\nConnections 3\n0->9 start 0 size 20000\n"
                                   "3->9 start 1 size 0\n12->4 start 0.5 size 7000\n";
    const std::string topology = R"("topology":{"kind":"fat_tree","k":4,"nic_rate":"100Gbps"})";
    std::ofstream(dir / "file.json")
        << "{" << topology << R"(,"traffic":{"pattern":"connection_matrix","file":")"
        << (dir / "m.cm").string() << R"(","bytes":30000}})";
    std::ofstream(dir / "list.json")
        << "{" << topology << R"(,"traffic":{"pattern":"flows","bytes":30000,"flows":[)"
        << R"({"src":0,"dst":9,"bytes":20000},{"src":3,"dst":9,"start":"1us"},)"
        << R"({"src":12,"dst":4,"bytes":7000,"start":"500ns"}]}})";
    for (const char* name : {"file", "list"})
    {
        const Outcome o =
            RunProgram(AI_FABRIC_RUN_BINARY,
                       "--scenario=" + (dir / (std::string(name) + ".json")).string() +
                           " --out=" + (dir / name).string(),
                       dir);
        ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    }
    for (const char* file : {"flows.csv", "links.csv"})
    {
        EXPECT_EQ(ReadFile(dir / "file" / file), ReadFile(dir / "list" / file)) << file;
    }
    const auto rows = ReadCsv(dir / "file" / "flows.csv");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1].at("bytes"), "30000") << "size 0: traffic.bytes";
    // A broken file is bad input naming the key and the line.
    std::ofstream(dir / "m.cm") << "Nodes 16\n0->9 start 0 size 20000 prio 1\n";
    const Outcome bad = RunProgram(AI_FABRIC_RUN_BINARY,
                                   "--scenario=" + (dir / "file.json").string() +
                                       " --out=" + (dir / "bad").string(),
                                   dir);
    ExpectRefusedAsBadInput(bad, dir / "bad", "traffic.file");
    EXPECT_NE(bad.stderrText.find("line 2"), std::string::npos) << bad.stderrText;
    fs::remove_all(dir);
}

namespace
{
/** What a Poisson pattern offered: its load, its flows per host, and its gaps' spread. */
struct Offered
{
    double load{0}; //!< bytes x 8 / (hosts x rate x duration)
    double flowsPerHost{0};
    double gapCv{0}; //!< coefficient of variation of one host's gaps (1: exponential)
};

Offered
Measure(const std::vector<TrafficFlow>& flows, uint32_t hosts, double bps, double seconds)
{
    Offered o;
    double bytes = 0;
    std::vector<std::vector<double>> starts(hosts);
    for (const auto& f : flows)
    {
        bytes += f.bytes;
        starts[f.src].push_back(f.start.GetSeconds());
    }
    o.load = bytes * 8 / (hosts * bps * seconds);
    o.flowsPerHost = double(flows.size()) / hosts;
    double sum = 0;
    double squares = 0;
    double n = 0;
    for (const auto& s : starts)
    {
        for (std::size_t i = 1; i < s.size(); ++i)
        {
            const double gap = s[i] - s[i - 1];
            sum += gap;
            squares += gap * gap;
            ++n;
        }
    }
    const double mean = sum / n;
    o.gapCv = std::sqrt(squares / n - mean * mean) / mean;
    return o;
}
} // namespace

TEST(TrafficPattern, PoissonOffersItsLoadWithExponentialGaps)
{
    // 128 hosts at 100G: about 56,000 web-search flows at 30% over 200 ms and 332,000 Hadoop
    // flows at 50% over 50 ms; the offered load is within 5% of the target, 4.7 and 5.2
    // standard errors (the sizes' coefficients of variation are 2.3 and 5.6).
    const uint32_t hosts = 128;
    const double bps = 100e9;

    struct Case
    {
        FlowSizeDistribution sizes;
        double load;
        double seconds;
    };

    for (const Case& c : {Case{FlowSizeDistribution::WebSearch(), 0.3, 0.2},
                          Case{FlowSizeDistribution::FbHadoop(), 0.5, 0.05}})
    {
        TrafficPatternHelper patterns(hosts);
        patterns.AssignStreams(7);
        patterns.SetStart(MicroSeconds(10));
        const auto flows =
            patterns.Poisson(c.sizes, c.load, DataRate(uint64_t(bps)), Seconds(c.seconds));
        const Offered o = Measure(flows, hosts, bps, c.seconds);
        const double perHost = c.seconds * c.load * bps / (8 * c.sizes.Mean());
        EXPECT_NEAR(o.load / c.load, 1.0, 0.05);
        EXPECT_NEAR(o.flowsPerHost / perHost, 1.0, 0.03);
        EXPECT_NEAR(o.gapCv, 1.0, 0.05);
        Time last(0);
        for (const auto& f : flows)
        {
            ASSERT_NE(f.src, f.dst);
            ASSERT_LT(f.dst, hosts);
            ASSERT_GE(f.bytes, 1u);
            ASSERT_LE(f.bytes, uint64_t(c.sizes.Max()));
            ASSERT_GE(f.start, last) << "not in order of start";
            last = f.start;
        }
        EXPECT_GE(flows.front().start, MicroSeconds(10));
        EXPECT_LT(last, MicroSeconds(10) + Seconds(c.seconds));
        // Every host sends and receives about its share: a Poisson count, within 5 standard
        // deviations (the square root of the mean).
        const auto [out, in] = Degrees(flows, hosts);
        const double sigmas = 5 / std::sqrt(o.flowsPerHost);
        for (uint32_t h = 0; h < hosts; ++h)
        {
            EXPECT_NEAR(in[h] / o.flowsPerHost, 1.0, sigmas) << "host " << h;
            EXPECT_NEAR(out[h] / o.flowsPerHost, 1.0, sigmas) << "host " << h;
        }
    }
}

TEST(TrafficPattern, PoissonIsItsStreamsAndRefusesBadArguments)
{
    const auto draw = [](int64_t stream) {
        TrafficPatternHelper patterns(16);
        patterns.AssignStreams(stream);
        return patterns.Poisson(FlowSizeDistribution::WebSearch(),
                                0.3,
                                DataRate("100Gbps"),
                                MilliSeconds(1));
    };
    const auto a = draw(3);
    const auto b = draw(3);
    const auto c = draw(4);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        EXPECT_TRUE(a[i].src == b[i].src && a[i].dst == b[i].dst && a[i].bytes == b[i].bytes &&
                    a[i].start == b[i].start);
    }
    EXPECT_TRUE(a.size() != c.size() || a.front().bytes != c.front().bytes);
    TrafficPatternHelper patterns(16);
    const auto sizes = FlowSizeDistribution::FbHadoop();
    EXPECT_THROW(patterns.Poisson(sizes, 0, DataRate("100Gbps"), MilliSeconds(1)),
                 std::invalid_argument);
    EXPECT_THROW(patterns.Poisson(sizes, 1.5, DataRate("100Gbps"), MilliSeconds(1)),
                 std::invalid_argument);
    EXPECT_THROW(patterns.Poisson(sizes, 0.3, DataRate("100Gbps"), Time(0)), std::invalid_argument);
}

TEST(TrafficPattern, RunnerPoissonFlowsRunOverRdmaFromAFileCdf)
{
    // A k=4 fat-tree at 100G under 30% of Hadoop-sized flows for 1 ms, the CDF read from a
    // file: every flow completes, its size within the CDF's range and its start in the span.
    const fs::path dir = Scratch("poisson");
    std::ofstream(dir / "cdf.txt") << "0 0\n1000 50\n100000 100\n";
    std::ofstream(dir / "s.json")
        << R"({"topology":{"kind":"fat_tree","k":4,"nic_rate":"100Gbps"},"traffic":{)"
        << R"("pattern":"poisson","transport":"rdma","load":0.3,"duration":"1ms",)"
        << R"("start":"5us","flow_sizes":")" << (dir / "cdf.txt").string() << R"("}})";
    const Outcome o =
        RunProgram(AI_FABRIC_RUN_BINARY,
                   "--scenario=" + (dir / "s.json").string() + " --out=" + (dir / "out").string(),
                   dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const auto rows = ReadCsv(dir / "out" / "flows.csv");
    // 16 hosts x 1 ms x 0.3 x 100 Gb/s / (8 x 25,500 bytes, the CDF's mean): 2,353 flows.
    EXPECT_NEAR(rows.size() / 2353.0, 1.0, 0.1);
    for (const auto& r : rows)
    {
        EXPECT_EQ(r.at("complete"), "1");
        EXPECT_LE(std::stoull(r.at("bytes")), 100000u);
        EXPECT_GE(std::stod(r.at("start_us")), 5.0);
        EXPECT_LT(std::stod(r.at("start_us")), 1005.0);
    }
    fs::remove_all(dir);
}
