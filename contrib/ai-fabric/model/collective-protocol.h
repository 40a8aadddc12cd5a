#ifndef AI_FABRIC_COLLECTIVE_PROTOCOL_H
#define AI_FABRIC_COLLECTIVE_PROTOCOL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief How a collective's messages are carried, as NCCL's protocols (Simple, LL, LL128)
 * carry them: the bytes on the wire for a message's data, the pipeline's step size, the
 * synchronisation latency each hop adds, and the launch latency.
 *
 * A subclass is one protocol: ns3::<Name>Protocol is chosen by "<name>" (snake case).  Each
 * connection has a buffer of BufferSize bytes cut into NCCL_STEPS = 8 steps; a step carries
 * GetStepPayload() bytes of data.  Rings cut their blocks into chunks and slices of whole
 * steps (GetChunkSteps, GetSliceSteps), so a rank forwards a slice as soon as it has it.  The executor
 * (CollectiveApplication) sends WireBytes(data) for each message, holds each received
 * message for the hop latency (NVLink or network) before its RECV finishes, and starts a
 * schedule's steps after the launch latency.  The latencies' defaults are NCCL 2.30's tuning
 * constants for rings (src/graph/tuning.cc, hwLat and baseLat; doc/nccl-facts.md section 1):
 * they are the cost of the GPUs' flag polling, fences and the network proxy, beside the wire
 * time the packets carry.  NCCL's network figure also holds the wire latency (about 1 us on
 * a two-tier fabric), which the packets add again.  A channel is one CTA of the kernel, and
 * one CTA moves data no faster than ChannelRate however fast its links are: the executor
 * paces every queue pair of the schedule at GetChannelWireRate(), so a channel that waited
 * cannot catch up at the whole NVLink's rate.
 */
class CollectiveProtocol : public Object
{
  public:
    static TypeId GetTypeId();

    /** NCCL_STEPS: the pipeline steps a connection's buffer is cut into. */
    static constexpr uint32_t kSteps = 8;

    /** The protocol whose short name is \p name; throws std::invalid_argument if none. */
    static TypeId LookupByShortName(const std::string& name);

    /** The name users pick it by ("simple", "ll", "ll128", "ideal"). */
    virtual std::string GetShortName() const = 0;
    /** Bytes on the wire that carry \p payload bytes of data (whole lines with their flags). */
    uint64_t WireBytes(uint64_t payload) const
    {
        return (payload + m_lineData - 1) / m_lineData * m_lineBytes;
    }
    /** Data bytes of one pipeline step: BufferSize / kSteps of wire, less the flags. */
    uint64_t GetStepPayload() const;
    /**
     * Steps per chunk and per slice (one message) of a ring: of a pass of all-reduce,
     * reduce-scatter or all-gather (\p ringPass), or of a broadcast or reduce chain.  A ring
     * cuts each block into chunks of up to GetChunkSteps() steps, and each chunk into
     * GetChunkSteps() / GetSliceSteps() slices.
     */
    virtual uint32_t GetChunkSteps(bool ringPass) const;
    virtual uint32_t GetSliceSteps(bool ringPass) const;
    /** The latency one hop adds: over NVLink inside a server (\p sameServer) or the network. */
    Time GetHopLatency(bool sameServer) const { return sameServer ? m_nvLinkHop : m_netHop; }
    /** The time from a launch to the first step. */
    Time GetLaunchLatency() const { return m_launch; }
    /**
     * The rate one channel's queue pair may send its frames' payload at: ChannelRate (data)
     * scaled by the lines' wire bytes per data byte; 0 bps when ChannelRate is 0 (no bound).
     */
    DataRate GetChannelWireRate() const;
    /**
     * The messages a ring or tree sends \p bytes of one channel's data in, when the
     * pipeline cuts them into \p pieces (at least one): more while a message would exceed
     * ForwardUnit.
     */
    uint64_t Messages(uint64_t bytes, uint64_t pieces) const;

  protected:
    /**
     * A protocol that sends its data in lines of \p lineBytes on the wire, \p lineData of them
     * data and the rest flags (1 and 1: the data alone).
     */
    CollectiveProtocol(uint64_t lineBytes, uint64_t lineData);
    /**
     * \p tid with the attributes every protocol has, at the defaults given: BufferSize
     * (NCCL's \p bufferVariable), NvLinkHopLatency, NetHopLatency, LaunchLatency and
     * ChannelRate (its default's source in \p channelRateSource) and ForwardUnit.
     */
    static TypeId AddAttributes(TypeId tid, uint64_t bufferSize, const std::string& bufferVariable,
                                Time nvLinkHop, Time netHop, Time launch, DataRate channelRate,
                                const std::string& channelRateSource, uint64_t forwardUnit);

  private:
    uint64_t m_lineBytes;
    uint64_t m_lineData;
    uint64_t m_bufferSize{0};
    Time m_nvLinkHop;
    Time m_netHop;
    Time m_launch;
    DataRate m_channelRate;
    uint64_t m_forwardUnit{0};
};

} // namespace ns3

#endif
