#include "accelerator.h"

#include "range-checkers.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Accelerator");
NS_OBJECT_ENSURE_REGISTERED(Accelerator);

TypeId
Accelerator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Accelerator")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<Accelerator>()
            .AddAttribute("ReductionRate",
                          "Bytes of reduced output per second.  Default 8933 Gb/s = 1.117 TB/s: "
                          "an H100 SXM's 3.35 TB/s HBM3 (NVIDIA H100 datasheet) over the three "
                          "memory passes of a reduction (two reads, one write).",
                          DataRateValue(DataRate("8933Gbps")),
                          MakeDataRateAccessor(&Accelerator::m_reductionRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("CopyRate",
                          "Bytes copied per second.  Default 13400 Gb/s = 1.675 TB/s: the H100 "
                          "SXM's 3.35 TB/s HBM3 over a copy's two passes (one read, one write).",
                          DataRateValue(DataRate("13400Gbps")),
                          MakeDataRateAccessor(&Accelerator::m_copyRate),
                          MakeDataRateChecker(DataRate(1)))
            .AddAttribute("SustainedFlops",
                          "FLOP/s the GPU sustains on training compute (its matrix products; "
                          "bubbles and communication are simulated, elementwise work such as "
                          "norms and activations, kernel gaps and the optimizer step unless "
                          "OptimizerTime are not timed).  Default 794.5e12: the maximum achievable BF16 matrix-"
                          "product rate measured on an H100 SXM, 80.3% of its 989 TFLOP/s dense "
                          "peak (S. Bekman, \"Machine Learning Engineering\", compute/"
                          "accelerator, Maximum Achievable Matmul FLOPS table, torch 2.7.0 + "
                          "CUDA 12.6).  Not an end-to-end rate such as Llama 3's 380-430 "
                          "TFLOP/s per GPU, which has the step's other losses in it already.",
                          DoubleValue(794.5e12),
                          MakeDoubleAccessor(&Accelerator::m_sustainedFlops),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("PeakFlops",
                          "Dense peak FLOP/s model FLOPs utilization (MFU) is taken against "
                          "(in FP8 jobs too, as MFU is usually quoted against the BF16 peak).  Default 989e12: an H100 SXM's 989 TFLOP/s dense BF16 "
                          "(NVIDIA H100 datasheet).",
                          DoubleValue(989e12), MakeDoubleAccessor(&Accelerator::m_peakFlops),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("LowPrecisionSpeedup",
                          "How many times faster than SustainedFlops the GPU runs a matrix "
                          "product in FP8 (a job's Precision fp8).  Default 1402.6 / 794.5 = "
                          "1.765: the maximum achievable FP8 and BF16 matrix-product rates "
                          "measured on an H100 SXM (the table of SustainedFlops; the FP8 peak is "
                          "twice the BF16, FP8 kernels reach less of it).  Casts and scaling "
                          "are not timed.",
                          DoubleValue(1402.6 / 794.5), MakeDoubleAccessor(&Accelerator::m_lowPrecisionSpeedup),
                          MakeDoubleChecker<double>(0.001, 1000))
            .AddTraceSource("Reduce",
                            "A reduction was queued: bytes, the time it will finish.",
                            MakeTraceSourceAccessor(&Accelerator::m_reduceTrace),
                            "ns3::Accelerator::ReduceTracedCallback");
    return tid;
}

Accelerator::Accelerator() = default;

Time
Accelerator::Serve(Time& freeAt, uint64_t bytes, DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "Accelerator: a rate of 0 bit/s never finishes");
    const Time start = std::max(Simulator::Now(), freeAt);
    const unsigned __int128 bits = static_cast<unsigned __int128>(bytes) * 8u * 1000000000000ull;
    const uint64_t bitRate = rate.GetBitRate();
    freeAt = start + PicoSeconds(static_cast<int64_t>((bits + bitRate - 1) / bitRate));
    return freeAt;
}

Time
Accelerator::Reduce(uint64_t bytes)
{
    const Time end = Serve(m_reductionFreeAt, bytes, m_reductionRate);
    NS_LOG_LOGIC("reduce " << bytes << " B until " << end.As(Time::US));
    m_reduceTrace(bytes, end);
    return end;
}

Time
Accelerator::Copy(uint64_t bytes)
{
    return Serve(m_copyFreeAt, bytes, m_copyRate);
}

Time
Accelerator::ComputeTime(double flops) const
{
    return PicoSeconds(static_cast<int64_t>(std::llround(flops / m_sustainedFlops * 1e12)));
}

Time
Accelerator::Fp8ComputeTime(double flops) const
{
    return ComputeTime(flops / m_lowPrecisionSpeedup);
}

Time
Accelerator::GetReductionFreeAt() const
{
    return std::max(Simulator::Now(), m_reductionFreeAt);
}

} // namespace ns3
