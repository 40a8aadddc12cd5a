#ifndef AI_FABRIC_FAILURE_HELPER_H
#define AI_FABRIC_FAILURE_HELPER_H

#include "ns3/component-failure-process.h"
#include "ns3/fabric-network-helper.h"
#include "ns3/fabric-topology.h"
#include "ns3/job-availability-model.h"
#include "ns3/object-factory.h"
#include "ns3/training-job.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Attaches failure processes to a fabric's components, by kind.
 *
 * Component kinds, found in the topology:
 *  - link: every cable outside servers (copper or optical);
 *  - transceiver: the two ends of every optical link (either one kills its link);
 *  - nic: every host's NIC (its scale-out links: one per plane of a multi-plane fabric);
 *  - switch: every leaf, spine and core switch (all its links);
 *  - server: every server (its GPUs' scale-out and NVLink links);
 *  - gpu: every GPU (no link: a job that holds it stops).
 * Each failure mode added for a kind gives every component of that kind its own
 * ComponentFailureProcess, with its own streams.  Install with a FabricNetwork for packet-level
 * runs (failures act on the channels), or without one for long-horizon runs.
 */
class FailureHelper
{
  public:
    /** A component the helper found. */
    struct Component
    {
        std::string name;
        std::string kind;
        std::vector<uint32_t> links; //!< links a failure acts on
        std::vector<uint32_t> hosts; //!< hosts it serves (they are cut off if it dies)
    };
    /** One failure mode of one kind, as added. */
    struct Mode
    {
        std::string kind;
        ComponentFailureProcess::Mode mode;
        double mtbfSeconds;
        ObjectFactory process;
    };
    /** An installed process and the component it belongs to. */
    struct Installed
    {
        Ptr<ComponentFailureProcess> process;
        const Component* component;
        double mtbfSeconds; //!< infinity for an injected failure
    };

    /** The component kinds: link, transceiver, nic, switch, server, gpu. */
    static const std::vector<std::string>& Kinds();
    /**
     * \p name as Components names it: a link by its id ("link 17") or by its ends in either
     * order ("p0a1-p0e0"), alone or in a transceiver's name ("link 17 at p0e0"), becomes the
     * link's name (FabricTopology::LinkName); other names are unchanged.
     */
    static std::string CanonicalName(const FabricTopology& topology, const std::string& name);
    /** The components of \p kind in \p topology, in a fixed order. */
    static std::vector<Component> Components(const FabricTopology& topology,
                                             const std::string& kind);

    /**
     * Every component of \p kind fails in mode \p mode after times to failure of mean
     * \p mtbfSeconds: exponential, or Weibull of shape \p weibullShape when it is > 0 (its
     * scale set so the mean is the MTBF); repairs take exponential times of mean
     * \p mttrSeconds (none if zero; without it, ComponentFailureProcess's TimeToRepair default).  Seconds as doubles: MTBFs of 1e5 h and more are beyond
     * ns-3's picosecond clock (106 days); a draw beyond it never happens in the run.  Further process attributes (FlapCount, BitErrorRate,
     * RateFraction, ...) go in \p attributes.  Throws std::invalid_argument for an unknown kind,
     * a mode the kind cannot have (switches, servers and GPUs only fail hard), or times <= 0.
     */
    void AddFailureMode(const std::string& kind, ComponentFailureProcess::Mode mode,
                        double mtbfSeconds, std::optional<double> mttrSeconds,
                        double weibullShape = 0,
                        const std::vector<std::pair<std::string, std::string>>& attributes = {});
    /**
     * Component \p name of \p kind fails once, in \p mode, at \p at, for \p duration (a flap
     * lasts its burst; Time::Max: for ever): a deterministic failure, e.g. to measure a degraded
     * fabric.  Links are named by their ends (FabricTopology::LinkName, "s0g0-l0"; "link 17"
     * by id also works), a transceiver as "<link> at <node>".  Install throws
     * std::invalid_argument if the topology has no such component.
     */
    void AddInjection(const std::string& kind, const std::string& name,
                      ComponentFailureProcess::Mode mode, Time at, Time duration,
                      const std::vector<std::pair<std::string, std::string>>& attributes = {});
    /**
     * Create the processes for \p topology; with \p network their failures act on its
     * channels.  Streams from \p stream on; returns the processes (started).
     */
    const std::vector<Installed>& Install(const FabricTopology& topology,
                                          Ptr<FabricNetwork> network, int64_t stream);
    /** Streams the last Install used. */
    int64_t GetStreamsUsed() const { return m_streamsUsed; }
    /**
     * Make \p job follow the installed processes as a job on \p hosts: failures of what those
     * hosts cannot run without interrupt it; failures elsewhere in the fabric degrade it.
     */
    void Follow(Ptr<JobAvailabilityModel> job, const std::set<uint32_t>& hosts) const;
    /**
     * Make every installed GPU and server failure stop, at its time, each of \p jobs that has
     * a rank on one of its hosts (TrainingJob::Interrupt, cause "<kind> <component> failed").
     * Links need no wiring: routing reroutes and the transport's retry limit fails the job's
     * collectives.  Call after Install.
     */
    void InterruptJobs(const std::vector<Ptr<TrainingJob>>& jobs) const;
    /**
     * What a failure of \p installed does to a job on \p hosts: where the component sits
     * (the helper's topology knowledge), classified by the model
     * (JobAvailabilityModel::EffectOf).
     */
    static JobAvailabilityModel::Effect EffectOf(const Installed& installed,
                                                 const std::set<uint32_t>& hosts);
    /** EffectOf's name: "job restart", "rerouted", "degraded", or "". */
    static std::string EffectOn(const Installed& installed, const std::set<uint32_t>& hosts);

  private:
    /** The factory of a process with \p mode and \p attributes, times to be set. */
    static ObjectFactory ProcessFactory(ComponentFailureProcess::Mode mode,
                                        const std::vector<std::pair<std::string, std::string>>& attributes);
    /** Create, wire and record one process for \p c. */
    void Add(const ObjectFactory& factory, const Component& c, double mtbfSeconds, Ptr<FabricNetwork> network,
             int64_t stream);

    struct Injection
    {
        std::string kind;
        std::string name;
        ObjectFactory process;
    };
    std::vector<Mode> m_modes;
    std::vector<Injection> m_injections;
    std::vector<std::vector<Component>> m_components; //!< by kind, for the last Install
    std::vector<Installed> m_installed;
    int64_t m_streamsUsed{0};
};

} // namespace ns3

#endif
