// The scenario keys that come from the model's attributes: named in snake_case, complete,
// described by --print-keys with the attribute's own default (a --ns3:: default included),
// and applied with the attribute's checker.
#include "runner-fixture.h"
#include "src/scenario.h"
#include "src/section-schema.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace aifabric_test;
using aifabric::SectionSchema;
using namespace ns3;

TEST(Ns3Flags, BothProgramsTakeNs3sInformationFlags)
{
    const fs::path dir = Scratch("ns3-flags");
    for (const char* program : {AI_FABRIC_RUN_BINARY, AI_FABRIC_COLLBENCH_BINARY})
    {
        const Outcome version = RunProgram(program, "--version", dir);
        EXPECT_EQ(version.exitCode, 0);
        EXPECT_NE(version.stdoutText.find("0.1.0 (ai-fabric), ns-3 3.37"), std::string::npos)
            << version.stdoutText;
        const Outcome attributes = RunProgram(program, "--PrintAttributes=ns3::RdmaNic", dir);
        EXPECT_EQ(attributes.exitCode, 0);
        EXPECT_NE(attributes.stdoutText.find("--ns3::RdmaNic::CongestionControl="),
                  std::string::npos);
        const Outcome types = RunProgram(program, "--PrintTypeIds", dir);
        EXPECT_NE(types.stdoutText.find("ns3::RdmaQueuePair"), std::string::npos);
        EXPECT_EQ(RunProgram(program, "--PrintHelp", dir).exitCode, 0);
        const Outcome bad = RunProgram(program, "--PrintAttributes=ns3::Nope", dir);
        EXPECT_EQ(bad.exitCode, 2);
        EXPECT_NE(bad.stderrText.find("no such type"), std::string::npos) << bad.stderrText;
    }
    fs::remove_all(dir);
}

TEST(SectionSchema, TopologyKindsAreTheHelpersFamily)
{
    // A topology kind is a TopologyHelper subclass with a TypeId: adding one is its file pair.
    const auto kinds = aifabric::FamilyMembers(TopologyHelper::GetTypeId(), "TopologyHelper");
    std::set<std::string> names;
    for (const auto& [name, tid] : kinds)
    {
        names.insert(name);
    }
    EXPECT_EQ(names, (std::set<std::string>{"fat_tree", "leaf_spine", "rail_optimized"}));
    EXPECT_EQ(kinds.at("fat_tree"), FatTreeTopologyHelper::GetTypeId());
    // Congestion controls alike: rdma.congestion_control names ns3::<Name>CongestionControl.
    const auto controls =
        aifabric::FamilyMembers(RdmaCongestionControl::GetTypeId(), "CongestionControl");
    ASSERT_EQ(controls.size(), 5u);
    EXPECT_EQ(controls.at("dcqcn"), DcqcnCongestionControl::GetTypeId());
    EXPECT_EQ(controls.at("dctcp"), DctcpCongestionControl::GetTypeId());
    EXPECT_EQ(controls.at("hpcc"), HpccCongestionControl::GetTypeId());
    EXPECT_EQ(controls.at("none"), NoneCongestionControl::GetTypeId());
    EXPECT_EQ(controls.at("timely"), TimelyCongestionControl::GetTypeId());
    // Through the runner: a kind's keys are its attributes; another kind's are refused.
    const fs::path dir = Scratch("topology-kinds");
    std::ofstream(dir / "s.json")
        << R"({"topology":{"kind":"leaf_spine","k":4},"traffic":{"pattern":"shift"}})";
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--scenario=" + (dir / "s.json").string() + " --out=" +
                                     (dir / "out").string(),
                                 dir);
    EXPECT_EQ(o.exitCode, 2);
    EXPECT_NE(o.stderrText.find("topology.k = 4: unknown key; allowed in topology: kind, "),
              std::string::npos)
        << o.stderrText;
    fs::remove_all(dir);
}

TEST(SectionSchema, GpusPerServerAloneFillsTheFabricsHostPorts)
{
    LeafSpineTopologyHelper leafSpine; // 2 leaves x 8 host ports
    leafSpine.SetAttribute("GpusPerServer", UintegerValue(4));
    EXPECT_EQ(leafSpine.GetCluster().GetNServers(), 4u);
    EXPECT_EQ(leafSpine.Build().GetNHosts(), 16u);
    FatTreeTopologyHelper fatTree(4);
    EXPECT_EQ(fatTree.GetCluster().GetNServers(), 16u);
}

TEST(SectionSchema, KeysAreTheAttributesNamesInSnakeCase)
{
    EXPECT_EQ(SectionSchema::SnakeCase("BufferSize"), "buffer_size");
    EXPECT_EQ(SectionSchema::SnakeCase("EcnKminPer25G"), "ecn_kmin_per_25g");
    EXPECT_EQ(SectionSchema::SnakeCase("PfcEnabled"), "pfc_enabled");
    EXPECT_EQ(SectionSchema::SnakeCase("RetransmissionTimeoutMax"), "retransmission_timeout_max");
}

TEST(SectionSchema, AppliesEveryBoundKeyWithItsCheckerAndRefusesOthers)
{
    std::map<std::string, std::string> set;
    SectionSchema schema("rdma");
    schema.Bind(RdmaQueuePair::GetTypeId(),
                [&set](const std::string& n, const AttributeValue& v) {
                    set[n] = v.SerializeToString(MakeUintegerChecker<uint32_t>());
                },
                {"UdpSourcePort"})
        .Moved("old", "rdma.new");
    schema.Apply(nlohmann::json{{"retry_count", 3}, {"ack_interval", 2}});
    EXPECT_EQ(set.size(), 2u);
    EXPECT_EQ(set.at("RetryCount"), "3");
    EXPECT_THROW(schema.Apply(nlohmann::json{{"retry_count", 8}}), aifabric::ScenarioError);
    EXPECT_THROW(schema.Apply(nlohmann::json{{"udp_source_port", 5}}), aifabric::ScenarioError);
    EXPECT_THROW(schema.Apply(nlohmann::json{{"old", 1}}), aifabric::ScenarioError);
}

TEST(SectionSchema, PrintKeysListsEverySettableAttributeOfTheBoundTypes)
{
    const fs::path dir = Scratch("print-keys");
    const Outcome o = RunProgram(AI_FABRIC_RUN_BINARY,
                                 "--ns3::RdmaQueuePair::RetryCount=5 --print-keys", dir);
    ASSERT_EQ(o.exitCode, 0) << o.stderrText;
    const std::pair<const char*, TypeId> bound[] = {{"topology", TopologyHelper::GetTypeId()},
                                                    {"topology", FatTreeTopologyHelper::GetTypeId()},
                                                    {"topology", RailOptimizedTopologyHelper::GetTypeId()},
                                                    {"switch", SharedBufferMmu::GetTypeId()},
                                                    {"port", FabricNetDevice::GetTypeId()},
                                                    {"routing", FabricRouting::GetTypeId()},
                                                    {"rdma", RdmaQueuePair::GetTypeId()}};
    const std::set<std::string> set{"UdpSourcePort"}; // per queue pair: not a section key
    for (const auto& [section, tid] : bound)
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const std::string name = tid.GetAttribute(i).name;
            const std::string key =
                "`" + std::string(section) + "." + SectionSchema::SnakeCase(name) + "`";
            EXPECT_EQ(o.stdoutText.find(key) != std::string::npos, !set.count(name)) << key;
        }
    }
    // The default shown is the attribute's, after the command line's --ns3:: defaults.
    EXPECT_NE(o.stdoutText.find("| `rdma.retry_count` | an integer in [0, 7] | `5` |"),
              std::string::npos);
    const Outcome bad = RunProgram(AI_FABRIC_RUN_BINARY, "--print-keys=links", dir);
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("no such section; sections: scenario, topology, switch, port, "
                                  "routing, accelerator, rdma, traffic, traffic.flows, "
                                  "collective, training, training.jobs, training.jobs.model, link_events, failures, "
                                  "failures.components, failures.inject, availability, prices, "
                                  "monitor, pcap"),
              std::string::npos)
        << bad.stderrText;
    fs::remove_all(dir);
}
