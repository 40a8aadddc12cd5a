// Rules between sections, checked once every section has been read.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{
/** Whether the scenario turns the switches' Trimming on. */
bool
Trimming(const json& doc)
{
    return doc.contains("switch") && doc["switch"].value("trimming", false);
}

/** What fidelity "flow" (and "collective") cannot run: exit 2 naming the section. */
void
CheckFlowLevel(const json& doc, const Scenario& s)
{
    const std::string why = "not at fidelity \"" + s.fidelity + "\", ";
    if (s.hasPcap)
    {
        Fail("pcap", doc.at("pcap"), why + "which has no frames to capture");
    }
    if (s.hasMonitor)
    {
        Fail("monitor", doc.at("monitor"), why + "which has no queues or pauses to sample");
    }
    if (!s.failures.bitErrorsKey.empty())
    {
        Fail(s.failures.bitErrorsKey, json("bit_errors"), why + "which has no frames to corrupt");
    }
    if (Trimming(doc))
    {
        Fail("switch.trimming", json(true), why + "which has no buffers to overflow");
    }
}

/**
 * HPCC's switches stamp each frame's telemetry with their link rate, in a code of the IEEE
 * 802.3 rates (InbandTelemetry): every Ethernet link a switch sends on must run at one, lanes
 * lost or not, and the switches must stamp.
 */
void
CheckTelemetryRates(const json& doc, const Scenario& s)
{
    const bool hpcc = doc.contains("rdma") && doc["rdma"].is_object() &&
                      doc["rdma"].value("congestion_control", json("")) == json("hpcc");
    if (!hpcc || s.flowLevel)
    {
        return;
    }
    if (doc.contains("switch") && !doc["switch"].value("telemetry", true))
    {
        Fail("switch.telemetry",
             json(false),
             "HPCC (rdma.congestion_control) reads the telemetry switches stamp: without it "
             "every sender would run at line rate");
    }
    if (!s.failures.laneLossKey.empty())
    {
        Fail(s.failures.laneLossKey,
             json("lane_loss"),
             "not with HPCC (rdma.congestion_control): its switches' telemetry encodes link "
             "rates of " +
                 std::string(InbandTelemetry::RateList()) +
                 ", and a link that loses lanes runs between them");
    }
    const auto& t = s.topology;
    for (const auto& link : t.Links())
    {
        const auto sw = [&t](uint32_t n) {
            const auto r = t.GetNode(n).role;
            return r == FabricTopology::Role::Leaf || r == FabricTopology::Role::Spine ||
                   r == FabricTopology::Role::Core;
        };
        if ((sw(link.a) || sw(link.b)) && InbandTelemetry::RateCode(link.rate.GetBitRate()) == 0)
        {
            Fail("rdma.congestion_control",
                 json("hpcc"),
                 "its switches stamp in-band telemetry, which encodes link rates of " +
                     std::string(InbandTelemetry::RateList()) + "; link " + t.GetNode(link.a).name +
                     "-" + t.GetNode(link.b).name + " runs at " +
                     std::to_string(link.rate.GetBitRate() / 1e9) + " Gb/s");
        }
    }
}

} // namespace

ScenarioSection
RulesSection()
{
    ScenarioSection section;
    section.build = [](const json& doc, Scenario& s) {
        if (doc.contains("rdma") && !s.rdma && !s.hasCollective && !s.hasTraining)
        {
            Fail("rdma", doc.at("rdma"),
                 "this scenario has no queue pairs: they come with traffic.transport \"rdma\", "
                 "a \"collective\" or a \"training\" section");
        }
        // Plain messages (MessageSource) address queue-pair numbers the sweep's queue pairs
        // use, and would land on them; RDMA messages have queue pairs of their own.
        if (s.hasCollective && !s.flows.empty() && !s.rdma)
        {
            Fail("traffic.transport", json("messages"),
                 "with a \"collective\" sweep, background traffic must be \"rdma\" (plain "
                 "messages would land on the sweep's queue pairs)");
        }
        if (s.hasPcap && s.hasAvailability)
        {
            Fail("pcap", doc.at("pcap"),
                 "not with an \"availability\" run (it measures fabric states in runs of its "
                 "own; capture a packet-level scenario instead)");
        }
        if (s.flowLevel)
        {
            CheckFlowLevel(doc, s);
        }
        else if (Trimming(doc) && doc["switch"].value("pfc_enabled", true))
        {
            Fail("switch.trimming",
                 json(true),
                 "trims frames a lossy class would drop, and with switch.pfc_enabled (the "
                 "default) no class is lossy: set switch.pfc_enabled to false");
        }
        if (Trimming(doc) && !s.flows.empty() && !s.rdma)
        {
            Fail("switch.trimming",
                 json(true),
                 "needs a transport that reads a trimmed frame: plain messages would lose its "
                 "payload uncounted (set traffic.transport to \"rdma\")");
        }
        CheckTelemetryRates(doc, s);
        if (s.failures.random && !s.hasAvailability && s.stopTime.IsZero())
        {
            Fail("stop_time", json(nullptr),
                 "required with failures.components (outside an availability run): failure processes never "
                 "end (or add an \"availability\" section for a long-horizon run)");
        }
    };
    section.schemas = [](Scenario&) { return std::vector<SectionSchema>{}; };
    return section;
}

} // namespace aifabric
