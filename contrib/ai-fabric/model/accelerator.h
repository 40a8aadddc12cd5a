#ifndef AI_FABRIC_ACCELERATOR_H
#define AI_FABRIC_ACCELERATOR_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A GPU, aggregated to its fabric host's Node: its sustained compute rate, and the
 * memory-bound work of collectives.
 *
 * The compute rate turns a job's FLOPs into time (TrainingJob).  A reduction engine and a copy engine, each serving one request at a time in arrival order
 * (work on one engine queues; the two engines run side by side).  A reduction of n bytes
 * takes n / ReductionRate, a copy n / CopyRate.  The NIC affinity is the host port of the
 * GPU's own scale-out NIC (its rail); intra-server peers are reached over its NVLink port.
 */
class Accelerator : public Object
{
  public:
    static TypeId GetTypeId();
    Accelerator();

    /**
     * Reduce \p bytes (combine a received buffer into a local one) on the reduction engine,
     * behind its queued work; returns when it finishes (the caller schedules what follows).
     */
    Time Reduce(uint64_t bytes);
    /** Copy \p bytes inside the GPU's memory on the copy engine; returns when it finishes. */
    Time Copy(uint64_t bytes);
    /** When the reduction engine has finished all its queued work (now if idle). */
    Time GetReductionFreeAt() const;
    DataRate GetReductionRate() const { return m_reductionRate; }
    /** Sustained FLOP/s of training compute. */
    double GetSustainedFlops() const { return m_sustainedFlops; }
    /** Dense peak FLOP/s (for MFU). */
    double GetPeakFlops() const { return m_peakFlops; }
    /** How long \p flops of training compute take at the sustained rate. */
    Time ComputeTime(double flops) const;
    /** How long \p flops of FP8 matrix products take: the sustained rate x LowPrecisionSpeedup. */
    Time Fp8ComputeTime(double flops) const;
    DataRate GetCopyRate() const { return m_copyRate; }
    /** The training job holding this GPU ("" if none): a GPU runs one rank of one job. */
    const std::string& GetJob() const { return m_job; }
    void SetJob(const std::string& name) { m_job = name; }

  private:
    /** Queue \p bytes at \p rate behind \p freeAt; return the finish time. */
    static Time Serve(Time& freeAt, uint64_t bytes, DataRate rate);

    DataRate m_reductionRate;
    DataRate m_copyRate;
    double m_sustainedFlops;
    double m_peakFlops;
    double m_lowPrecisionSpeedup;
    std::string m_job;
    Time m_reductionFreeAt; //!< when the reduction engine finishes its queued work
    Time m_copyFreeAt;      //!< same for the copy engine
    TracedCallback<uint64_t, Time> m_reduceTrace; //!< bytes, finish time
};

} // namespace ns3

#endif
