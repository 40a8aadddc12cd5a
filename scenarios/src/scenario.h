// A scenario file, validated and turned into the objects a run needs.
#ifndef AI_FABRIC_SCENARIO_H
#define AI_FABRIC_SCENARIO_H

#include "attribute-text.h"

#include "ns3/ai-fabric-module.h"

#include <nlohmann/json.hpp>

#include <array>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * The random stream of the traffic pattern's draws (permutation, random), made while the scenario is
 * read; a run's other random variables take the streams after it (ScenarioRun's plan).
 */
constexpr int64_t kTrafficStream = 0;

/** Bad input: the message names the key, the value and what is allowed. */
class ScenarioError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/** A link taken down or brought up at a time. */
struct LinkEvent
{
    uint32_t link;
    ns3::Time at;
    bool up;
};

/** The "collective" section: one operation swept over sizes, nccl-tests style. */
struct CollectiveSpec
{
    ns3::CollectiveOperation op{};
    std::string algorithm;
    ns3::ObjectFactory algorithmFactory; //!< the algorithm's TypeId and the attributes given
    std::vector<uint64_t> sizes;         //!< bytes, in order
    uint32_t ranks{0};                   //!< ranks run on hosts 0 .. ranks-1
    uint32_t root{0};
    uint32_t iterations{0};              //!< timed runs per size (nccl-tests -n), back to back
    uint32_t warmup{0};                  //!< untimed runs before them (nccl-tests -w)
    /** Runs of each size: the warm-up runs, then the timed ones. */
    uint32_t RunsPerSize() const { return warmup + iterations; }
    /** Whether run \p run (counted over the whole sweep) is a warm-up run. */
    bool IsWarmup(std::size_t run) const { return run % RunsPerSize() < warmup; }
    /**
     * false ("barrier"): each run starts when every rank has finished the one before;
     * true ("stream"): every run is queued on every rank at time 0 and a rank begins the next
     * when it has finished its part, as back-to-back launches on one CUDA stream.
     */
    bool stream{false};
    /** CollectiveGroup attributes given (BarrierLatency), set on the group when installed. */
    std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>> groupAttributes;
    uint64_t timelineMaxSteps{0};        //!< timeline.json only if the run has no more steps
    std::string sizeNote;                //!< how sweep sizes were rounded, if they were
};

/** The "training" section: jobs on the fabric, each with its helper (attributes, placement). */
struct TrainingSpec
{
    std::vector<ns3::TrainingJobHelper> jobs;
    std::vector<std::string> placements; //!< per job, as given ("packed", a map file, ...)
    uint64_t timelineMaxSpans{0};        //!< timeline.json only if the run has no more spans
    bool chakraTraces{false};            //!< write each job's programs to traces/
};

/** The "failures" section: failure modes by component kind and injected failures. */
struct FailureSpec
{
    ns3::FailureHelper helper;      //!< modes and injections, checked against the topology
    bool random{false};             //!< some component fails at random times (not only injected)
    /**
     * The first mode key that says "bit_errors" ("" if none): frames the flow model lacks, so
     * it refuses it.
     */
    std::string bitErrorsKey;
    /** The first mode key that says "lane_loss" ("" if none): HPCC cannot encode its rates. */
    std::string laneLossKey;
};

/** The "availability" section: the long-horizon run of the training job. */
struct AvailabilitySpec
{
    ns3::Time horizon;
    ns3::ObjectFactory model; //!< JobAvailabilityModel with the checkpoint keys
    /** Per fabric state (JobAvailabilityModel::FabricState): given, or zero to measure. */
    std::array<ns3::Time, ns3::JobAvailabilityModel::kStates> iterationTimes{};
    /** Per degraded state: the link whose failure the measurement applies. */
    std::array<uint32_t, ns3::JobAvailabilityModel::kStates> links{};
    std::array<bool, ns3::JobAvailabilityModel::kStates> linkGiven{};
    /**
     * The measured bit_errors and reduced_rate states' fault: a ComponentFailureProcess with
     * the BitErrorRate and RateFraction given.
     */
    ns3::ObjectFactory failureMode{"ns3::ComponentFailureProcess"};
    std::vector<ns3::Time> sweep; //!< fixed checkpoint intervals for availability.csv
    uint32_t runs{0};             //!< independent runs (streams) per interval
};

/** The "pcap" section (--pcap: the section with its defaults). */
struct PcapSpec
{
    std::vector<uint32_t> nodes; //!< topology node ids whose every port is captured
    uint32_t snapLength{0}; //!< pcap.snap_length (its default there)
};

/** Everything a run needs, checked: building it from a document either succeeds or throws. */
struct Scenario
{
    nlohmann::json document; //!< as read (echoed into summary.json)
    std::string name{"unnamed"};
    uint32_t seed{0}; //!< scenario.seed (its default there)
    /** The "server" preset (ServerPreset), or null: the attributes' defaults. */
    const ns3::ServerPreset* server{nullptr};
    ns3::FabricTopology topology;
    ns3::FabricNetworkHelper network;
    ns3::MessageSourceHelper sources; //!< attributes only; flows are installed by the run
    bool rdma{false};                 //!< flows as RDMA messages on reliable queue pairs
    ns3::RdmaHelper rdmaHelper;       //!< NIC and queue-pair attributes when rdma
    std::vector<ns3::TrafficFlow> flows;
    bool hasCollective{false};
    CollectiveSpec collective;
    ns3::CollectiveHelper collectiveHelper; //!< accelerator attributes
    bool hasTraining{false};
    TrainingSpec training;
    std::vector<LinkEvent> linkEvents;
    bool hasFailures{false};
    FailureSpec failures;
    bool hasAvailability{false};
    AvailabilitySpec availability;
    ns3::Time stopTime; //!< zero: run until every event is done
    std::string fidelity{"packet"}; //!< "fidelity": packet, flow or collective
    bool flowLevel{false};          //!< fidelity flow or collective
    ns3::BomPrices prices;
    bool hasPcap{false};
    PcapSpec pcap;
    bool hasMonitor{false};
    ns3::ObjectFactory monitor{"ns3::FabricMonitor"}; //!< the monitor section's attributes
};

/** Set the default of attribute "ns3::Type::Attribute" from \p text; throws ScenarioError. */
void SetAttributeDefault(const std::string& name, const std::string& text);

/** Parse JSON text; \p origin names it in errors. */
/**
 * Print the keys of \p section ("" for every section whose keys come from the model's
 * attributes) as a Markdown table: key, allowed values, default, help.  Throws ScenarioError
 * for a section without generated keys.
 */
void PrintScenarioKeys(std::ostream& os, const std::string& section);

nlohmann::json ParseScenarioText(const std::string& text, const std::string& origin);
/** Read and parse a scenario file. */
nlohmann::json ReadScenarioFile(const std::string& path);
/**
 * The "topology" object of a "kind:key=value,key=value" text (e.g. "fat_tree:k=4,
 * nic_rate=400Gbps"): numbers, true/false and strings as JSON; \p origin names it in errors.
 */
nlohmann::json ParseTopologyText(const std::string& text, const std::string& origin);
/** Validate \p document key by key and build the scenario. */
Scenario BuildScenario(const nlohmann::json& document);

} // namespace aifabric

#endif
