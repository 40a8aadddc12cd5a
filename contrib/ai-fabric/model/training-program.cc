#include "training-program.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

const char*
JobCommName(JobComm comm)
{
    switch (comm)
    {
    case JobComm::TENSOR:
        return "tensor";
    case JobComm::EXPERT:
        return "expert";
    case JobComm::DATA:
        return "data";
    case JobComm::ACTIVATION_SEND:
        return "activation-send";
    case JobComm::ACTIVATION_RECV:
        return "activation-recv";
    case JobComm::GRADIENT_SEND:
        return "gradient-send";
    case JobComm::GRADIENT_RECV:
        return "gradient-recv";
    case JobComm::EXPERT_DATA:
        return "expert-data";
    }
    return "?";
}

bool
IsPipelineTransfer(JobComm comm)
{
    return comm == JobComm::ACTIVATION_SEND || comm == JobComm::ACTIVATION_RECV ||
           comm == JobComm::GRADIENT_SEND || comm == JobComm::GRADIENT_RECV;
}

bool
IsGradientComm(JobComm comm)
{
    return comm == JobComm::DATA || comm == JobComm::EXPERT_DATA;
}

std::vector<ParallelAxis>
SpanOf(JobComm comm)
{
    switch (comm)
    {
    case JobComm::TENSOR:
        return {ParallelAxis::TENSOR};
    case JobComm::EXPERT:
        return {ParallelAxis::EXPERT};
    case JobComm::DATA:
        return {ParallelAxis::EXPERT, ParallelAxis::DATA};
    case JobComm::EXPERT_DATA:
        return {ParallelAxis::DATA};
    default:
        return {ParallelAxis::PIPELINE};
    }
}

ParallelAxis
AxisOf(JobComm comm)
{
    switch (comm)
    {
    case JobComm::TENSOR:
        return ParallelAxis::TENSOR;
    case JobComm::EXPERT:
        return ParallelAxis::EXPERT;
    case JobComm::DATA:
    case JobComm::EXPERT_DATA:
        return ParallelAxis::DATA;
    default:
        return ParallelAxis::PIPELINE;
    }
}

const char*
JobOp::PhaseName(Phase p)
{
    switch (p)
    {
    case FORWARD:
        return "forward";
    case BACKWARD:
        return "backward";
    case OPTIMIZER:
        return "optimizer";
    case TRACED:
        return "traced";
    }
    return "?";
}

namespace
{
/** Gradient bucket size in whole elements (at least one). */
uint64_t
BucketSize(const TrainingProgramSpec& s)
{
    return std::max<uint64_t>(1, s.bucketBytes / s.gradientElementBytes) * s.gradientElementBytes;
}

/** \p bytes padded to whole elements of \p element bytes on each of \p replicas ranks. */
uint64_t
PadTo(uint64_t bytes, uint32_t replicas, uint32_t element)
{
    const uint64_t unit = uint64_t{replicas} * element;
    return (bytes + unit - 1) / unit * unit;
}

/** The gradient buckets of \p chunk bytes. */
uint32_t
BucketCount(const TrainingProgramSpec& s, uint64_t chunk)
{
    const uint64_t b = BucketSize(s);
    return static_cast<uint32_t>((chunk + b - 1) / b);
}

/**
 * The bucket reductions of \p bytes of gradients per rank over \p replicas ranks (the
 * first bucket's size, then a smaller last one's if any) and with ZeRO-1 the parameters'
 * all-gather.
 */
std::vector<JobRequest>
GradientRequests(const TrainingProgramSpec& s, uint64_t bytes, uint32_t replicas)
{
    // Each chunk's gradients in buckets of their own (one chunk without interleaving).
    const uint64_t chunk = s.ChunkBytes(bytes);
    const uint64_t bucket = BucketSize(s);
    const uint64_t last = chunk - uint64_t(BucketCount(s, chunk) - 1) * bucket;
    const CollectiveOperation reduce = s.distributedOptimizer ? REDUCE_SCATTER : ALL_REDUCE;
    // ZeRO-1 shards each buffer over the replicas: padded to whole elements per rank, as
    // Megatron pads its distributed optimizer's buffers.
    const auto shard = [&s, replicas](uint64_t b, uint32_t element) {
        return s.distributedOptimizer ? PadTo(b, replicas, element) : b;
    };
    const uint64_t first = std::min(bucket, chunk);
    std::vector<JobRequest> r{{reduce, shard(first, s.gradientElementBytes), s.gradientElementBytes}};
    if (last != first)
    {
        r.push_back({reduce, shard(last, s.gradientElementBytes), s.gradientElementBytes});
    }
    if (s.distributedOptimizer)
    {
        const uint64_t elements = bytes / s.gradientElementBytes;
        r.push_back({ALL_GATHER, shard(elements * s.parameterElementBytes, s.parameterElementBytes),
                     s.parameterElementBytes});
    }
    return r;
}
} // namespace

int64_t
TrainingProgram::ForwardOf(int64_t total, double backwardRatio)
{
    return static_cast<int64_t>(std::llround(total / (1 + backwardRatio)));
}

int64_t
TrainingProgram::BackwardOf(int64_t forward, double backwardRatio)
{
    return static_cast<int64_t>(std::llround(forward * backwardRatio));
}

int64_t
TrainingProgram::Part(int64_t total, uint32_t parts, uint32_t index)
{
    const __int128 t = total;
    return static_cast<int64_t>(t * (index + 1) / parts - t * index / parts);
}

std::vector<JobRequest>
TrainingProgram::Requests(const TrainingProgramSpec& s, JobComm comm)
{
    switch (comm)
    {
    case JobComm::TENSOR:
        if (s.tp > 1 && s.activationBytes > 0)
        {
            if (s.sequenceParallel)
            {
                // Whole pieces per rank, as the all-to-all's below.
                const uint64_t bytes = PadTo(s.activationBytes, s.tp, 1);
                return {{ALL_GATHER, bytes, 1}, {REDUCE_SCATTER, bytes, 1}};
            }
            return {{ALL_REDUCE, s.activationBytes, 1}};
        }
        return {};
    case JobComm::EXPERT:
        if (s.ep > 1 && s.moeLayers > 0 && s.activationBytes > 0)
        {
            // Each token goes to top-k experts; all-to-all pieces are whole per rank.  With
            // sequence parallelism each tensor rank dispatches its 1/tp of the tokens.
            const uint64_t tokens = s.sequenceParallel ? (s.activationBytes + s.tp - 1) / s.tp
                                                       : s.activationBytes;
            const uint64_t bytes = tokens * s.expertTopK;
            return {{ALL_TO_ALL, PadTo(bytes, s.ep, 1), 1, s.experts, s.expertTopK}};
        }
        return {};
    case JobComm::DATA:
    case JobComm::EXPERT_DATA: {
        const uint64_t bytes = s.GradientBytesOf(comm);
        const uint32_t replicas = s.ReplicasOf(comm);
        if (replicas <= 1 || bytes == 0)
        {
            return {};
        }
        if (s.fullySharded)
        {
            // One layer's parameters gathered and its gradients reduce-scattered, each padded
            // to whole elements per replica (TrainingJob refuses FSDP with EP).
            const uint64_t elements = bytes / s.gradientElementBytes;
            // A layer's share: the rank's parameters x stages / layers (exact when the
            // stages hold equal layers; with uneven stages each layer weighs the same).
            const uint64_t layer = (elements * s.pp + s.layers - 1) / s.layers;
            return {{ALL_GATHER,
                     PadTo(layer * s.parameterElementBytes, replicas, s.parameterElementBytes),
                     s.parameterElementBytes},
                    {REDUCE_SCATTER,
                     PadTo(layer * s.gradientElementBytes, replicas, s.gradientElementBytes),
                     s.gradientElementBytes}};
        }
        return GradientRequests(s, bytes, replicas);
    }
    case JobComm::ACTIVATION_SEND:
    case JobComm::ACTIVATION_RECV:
    case JobComm::GRADIENT_SEND:
    case JobComm::GRADIENT_RECV:
        // Zero bytes: the stages still wait for each other, at no communication cost.  With
        // sequence parallelism each rank holds and sends 1/tp of the activation.
        if (s.pp <= 1)
        {
            return {};
        }
        return {{BROADCAST,
                 s.sequenceParallel ? (s.activationBytes + s.tp - 1) / s.tp : s.activationBytes,
                 1}};
    }
    return {};
}

uint32_t
TrainingProgramSpec::LayersOf(uint32_t stage) const
{
    return stageLayers.empty() ? layers / pp : stageLayers[stage];
}

uint32_t
TrainingProgramSpec::LayerOf(uint32_t stage, uint32_t index) const
{
    if (virtualStages <= 1)
    {
        uint32_t first = 0;
        for (uint32_t s = 0; s < stage; ++s)
        {
            first += LayersOf(s);
        }
        return first + index;
    }
    const uint32_t chunk = layers / (pp * virtualStages);
    return (index / chunk * pp + stage) * chunk + index % chunk;
}

uint64_t
TrainingProgramSpec::GradientBytesOf(JobComm comm) const
{
    const uint64_t experts = ep > 1 ? expertGradientBytes : 0; // one stream without EP
    return comm == JobComm::EXPERT_DATA ? experts : gradientBytes - experts;
}

uint32_t
TrainingProgramSpec::ReplicasOf(JobComm comm) const
{
    return comm == JobComm::EXPERT_DATA ? dp : ep * dp;
}

uint64_t
TrainingProgramSpec::ChunkBytes(uint64_t bytes) const
{
    if (virtualStages <= 1)
    {
        return bytes;
    }
    const uint64_t elements = (bytes / gradientElementBytes + virtualStages - 1) / virtualStages;
    return elements * gradientElementBytes;
}

TrainingProgram::TrainingProgram(const TrainingProgramSpec& spec, uint32_t stage)
    : m_spec(spec),
      m_stage(stage),
      m_layers(spec.LayersOf(stage)),
      m_chunkLayers(m_layers / spec.virtualStages),
      m_tensor(!Requests(spec, JobComm::TENSOR).empty()),
      m_expert(!Requests(spec, JobComm::EXPERT).empty())
{
    if (spec.fullySharded && !Requests(spec, JobComm::DATA).empty())
    {
        m_gatherOp.assign(m_layers, 0);
    }
    for (JobComm comm : {JobComm::DATA, JobComm::EXPERT_DATA})
    {
        const auto requests = Requests(spec, comm);
        if (spec.fullySharded || requests.empty())
        {
            continue;
        }
        const uint64_t chunk = spec.ChunkBytes(spec.GradientBytesOf(comm));
        const uint32_t sizes = static_cast<uint32_t>(requests.size()) - spec.distributedOptimizer;
        // ZeRO-1's parameter all-gather is the comm's last request.
        m_streams.push_back({comm, chunk, BucketCount(spec, chunk), sizes == 2,
                             spec.distributedOptimizer ? sizes : 0});
    }
    const int64_t total = spec.compute.GetPicoSeconds();
    m_forward = ForwardOf(total, spec.backwardRatio);
    m_backward = total - m_forward;

    const uint32_t m = spec.microBatches;
    const uint32_t v = spec.virtualStages;
    const uint32_t p = spec.pp;
    // Pass k of the m v: its micro-batch and its chunk (Megatron-LM's get_model_chunk_id).
    const auto microBatch = [&](uint32_t k) { return v == 1 ? k : k / (p * v) * p + k % p; };
    const auto chunk = [&](uint32_t k, bool forward) {
        const uint32_t c = v == 1 ? 0 : k % (p * v) / p;
        return forward ? c : v - 1 - c;
    };
    const uint32_t passes = m * v;
    const uint32_t warmup =
        std::min(v == 1 ? p - stage - 1 : 2 * (p - stage - 1) + (v - 1) * p, passes);
    for (uint32_t k = 0; k < warmup; ++k)
    {
        Forward(microBatch(k), chunk(k, true));
    }
    for (uint32_t k = 0; k < passes - warmup; ++k)
    {
        Forward(microBatch(warmup + k), chunk(warmup + k, true));
        Backward(microBatch(k), chunk(k, false));
    }
    for (uint32_t k = passes - warmup; k < passes; ++k)
    {
        Backward(microBatch(k), chunk(k, false));
    }
    if (!spec.overlap)
    {
        for (uint32_t c = 0; c < v; ++c)
        {
            for (uint32_t i = 0; i < m_streams.size(); ++i)
            {
                for (uint32_t k = 0; k < m_streams[i].buckets; ++k)
                {
                    StartBucket(i, k, JobOp::BACKWARD, m - 1);
                }
            }
        }
    }
    m_ops.push_back({JobOp::WAIT, JobOp::OPTIMIZER});
    if (spec.optimizer.IsStrictlyPositive())
    {
        m_ops.push_back({JobOp::COMPUTE, JobOp::OPTIMIZER});
        m_ops.back().picoseconds = spec.optimizer.GetPicoSeconds();
    }
    for (const GradientStream& stream : m_streams)
    {
        if (stream.parameterGather > 0)
        {
            Collective(stream.comm, stream.parameterGather, true, JobOp::OPTIMIZER, m - 1);
        }
    }
    m_ops.shrink_to_fit();
}

bool
TrainingProgram::IsMoeLayer(uint32_t layer) const
{
    if (!m_spec.moe.empty())
    {
        return m_spec.moe[layer];
    }
    return m_spec.moeLayers > 0 && (layer + 1) % (m_spec.layers / m_spec.moeLayers) == 0;
}

int64_t
TrainingProgram::Half(JobOp::Phase phase, uint32_t microBatch, uint32_t half) const
{
    if (m_spec.stageHalves.empty())
    {
        const int64_t total = phase == JobOp::FORWARD ? m_forward : m_backward;
        return Part(Part(total, m_spec.microBatches, microBatch), 2 * m_layers, half);
    }
    const int64_t forward = m_spec.stageHalves[m_stage][half];
    return phase == JobOp::FORWARD
               ? forward
               : BackwardOf(forward, m_spec.backwardRatio);
}

int64_t
TrainingProgram::Recomputed(uint32_t microBatch, uint32_t half) const
{
    if (!m_spec.stageRecompute.empty())
    {
        return m_spec.stageRecompute[m_stage][half];
    }
    return m_spec.recompute == RECOMPUTE_FULL ? Half(JobOp::FORWARD, microBatch, half) : 0;
}

void
TrainingProgram::Collective(JobComm comm, uint32_t request, bool blocking, JobOp::Phase phase,
                            uint32_t microBatch)
{
    JobOp op{JobOp::COLLECTIVE, phase, comm, blocking, request, microBatch};
    op.after = std::move(m_waitFor);
    m_waitFor.clear();
    m_ops.push_back(op);
}

void
TrainingProgram::GatherLayer(uint32_t layer, JobOp::Phase phase, uint32_t microBatch)
{
    if (m_gatherOp.empty() || layer >= m_layers)
    {
        return;
    }
    const std::vector<uint32_t> waitFor = std::move(m_waitFor); // for the op after the gather
    m_waitFor.clear();
    Collective(JobComm::DATA, 0, false, phase, microBatch);
    m_gatherOp[layer] = static_cast<uint32_t>(m_ops.size() - 1);
    m_waitFor = waitFor;
}

void
TrainingProgram::WaitForGather(uint32_t layer, JobOp::Phase phase, uint32_t microBatch,
                               uint32_t prefetch)
{
    if (m_gatherOp.empty())
    {
        return;
    }
    GatherLayer(prefetch, phase, microBatch);
    m_waitFor = {m_gatherOp[layer]};
}

void
TrainingProgram::TensorBefore(JobOp::Phase phase, uint32_t microBatch)
{
    if (m_tensor && m_spec.sequenceParallel)
    {
        Collective(JobComm::TENSOR, 0, true, phase, microBatch);
    }
}

void
TrainingProgram::TensorAfter(JobOp::Phase phase, uint32_t microBatch)
{
    if (m_tensor)
    {
        Collective(JobComm::TENSOR, m_spec.sequenceParallel ? 1 : 0, true, phase, microBatch);
    }
}

void
TrainingProgram::ExpertAllToAll(JobOp::Phase phase, uint32_t microBatch)
{
    if (m_expert)
    {
        Collective(JobComm::EXPERT, 0, true, phase, microBatch);
    }
}

void
TrainingProgram::StartBucket(uint32_t stream, uint32_t index, JobOp::Phase phase,
                             uint32_t microBatch)
{
    const GradientStream& s = m_streams[stream];
    const bool remainder = s.remainder && index + 1 == s.buckets;
    Collective(s.comm, remainder ? 1 : 0, false, phase, microBatch);
}

void
TrainingProgram::Compute(JobOp::Phase phase, uint32_t microBatch, int64_t ps)
{
    while (m_bucketClock >= 0 && m_nextBucket < m_bucketReady.size() &&
           m_bucketReady[m_nextBucket].at <= m_bucketClock + ps)
    {
        const BucketReady ready = m_bucketReady[m_nextBucket++];
        const int64_t before = ready.at - m_bucketClock;
        if (before > 0)
        {
            m_ops.push_back({JobOp::COMPUTE, phase});
            m_ops.back().after = std::move(m_waitFor);
            m_waitFor.clear();
            m_ops.back().microBatch = microBatch;
            m_ops.back().picoseconds = before;
            m_bucketClock += before;
            ps -= before;
        }
        StartBucket(ready.stream, ready.index, phase, microBatch);
    }
    if (m_bucketClock >= 0)
    {
        m_bucketClock += ps;
    }
    if (ps > 0)
    {
        m_ops.push_back({JobOp::COMPUTE, phase});
        m_ops.back().after = std::move(m_waitFor);
        m_waitFor.clear();
        m_ops.back().microBatch = microBatch;
        m_ops.back().picoseconds = ps;
    }
}

void
TrainingProgram::LayerForward(JobOp::Phase phase, uint32_t mb, int64_t attention, int64_t mlp,
                              bool moe)
{
    TensorBefore(phase, mb);
    Compute(phase, mb, attention);
    TensorAfter(phase, mb);
    TensorBefore(phase, mb);
    if (moe)
    {
        ExpertAllToAll(phase, mb);
    }
    Compute(phase, mb, mlp);
    if (moe)
    {
        ExpertAllToAll(phase, mb);
    }
    TensorAfter(phase, mb);
}

void
TrainingProgram::Forward(uint32_t mb, uint32_t chunk)
{
    if (m_stage > 0 || chunk > 0)
    {
        Collective(JobComm::ACTIVATION_RECV, 0, true, JobOp::FORWARD, mb);
    }
    GatherLayer(chunk * m_chunkLayers, JobOp::FORWARD, mb);
    for (uint32_t l = chunk * m_chunkLayers; l < (chunk + 1) * m_chunkLayers; ++l)
    {
        WaitForGather(l, JobOp::FORWARD, mb, l + 1);
        LayerForward(JobOp::FORWARD, mb, Half(JobOp::FORWARD, mb, 2 * l),
                     Half(JobOp::FORWARD, mb, 2 * l + 1), IsMoeLayer(m_spec.LayerOf(m_stage, l)));
    }
    if (m_stage + 1 < m_spec.pp || chunk + 1 < m_spec.virtualStages)
    {
        Collective(JobComm::ACTIVATION_SEND, 0, false, JobOp::FORWARD, mb);
    }
}

void
TrainingProgram::Backward(uint32_t mb, uint32_t chunk)
{
    // The chunk's last backward: its gradients become ready, bucket by bucket.
    const bool lastBackward = mb == m_spec.microBatches - 1;
    const uint32_t begin = chunk * m_chunkLayers;
    const uint32_t end = begin + m_chunkLayers;
    if (lastBackward && m_spec.overlap && !m_streams.empty())
    {
        int64_t pass = 0;
        for (uint32_t h = 2 * begin; h < 2 * end; ++h)
        {
            pass += Half(JobOp::BACKWARD, mb, h) + Recomputed(mb, h);
        }
        const uint64_t bucket = BucketSize(m_spec);
        m_bucketReady.clear();
        m_nextBucket = 0;
        for (uint32_t i = 0; i < m_streams.size(); ++i)
        {
            const uint64_t bytes = m_streams[i].chunkBytes;
            for (uint32_t k = 0; k < m_streams[i].buckets; ++k)
            {
                const uint64_t ready = std::min(uint64_t(k + 1) * bucket, bytes);
                const __int128 at = static_cast<__int128>(pass) * ready;
                m_bucketReady.push_back({static_cast<int64_t>((at + bytes - 1) / bytes), i, k});
            }
        }
        std::stable_sort(m_bucketReady.begin(), m_bucketReady.end(),
                         [](const BucketReady& a, const BucketReady& b) { return a.at < b.at; });
        m_bucketClock = 0;
    }
    if (m_stage + 1 < m_spec.pp || chunk + 1 < m_spec.virtualStages)
    {
        Collective(JobComm::GRADIENT_RECV, 0, true, JobOp::BACKWARD, mb);
    }
    // Layers in reverse, each MLP half before its attention half.
    GatherLayer(end - 1, JobOp::BACKWARD, mb);
    for (uint32_t l = end; l-- > begin;)
    {
        WaitForGather(l, JobOp::BACKWARD, mb, l - 1); // l = 0: no layer -1 (wraps past the end)
        const bool moe = IsMoeLayer(m_spec.LayerOf(m_stage, l));
        // Selective recomputation adds to each half's backward; full reruns the layer first.
        const bool full = m_spec.recompute == RECOMPUTE_FULL;
        if (full)
        {
            LayerForward(JobOp::BACKWARD, mb, Recomputed(mb, 2 * l), Recomputed(mb, 2 * l + 1),
                         moe);
        }
        const auto backward = [&](uint32_t half) {
            return Half(JobOp::BACKWARD, mb, half) + (full ? 0 : Recomputed(mb, half));
        };
        TensorBefore(JobOp::BACKWARD, mb);
        if (moe)
        {
            ExpertAllToAll(JobOp::BACKWARD, mb);
        }
        Compute(JobOp::BACKWARD, mb, backward(2 * l + 1));
        if (moe)
        {
            ExpertAllToAll(JobOp::BACKWARD, mb);
        }
        TensorAfter(JobOp::BACKWARD, mb);
        TensorBefore(JobOp::BACKWARD, mb);
        Compute(JobOp::BACKWARD, mb, backward(2 * l));
        TensorAfter(JobOp::BACKWARD, mb);
        if (!m_gatherOp.empty())
        {
            Collective(JobComm::DATA, 1, false, JobOp::BACKWARD, mb); // its gradients
        }
    }
    if (lastBackward)
    {
        while (m_nextBucket < m_bucketReady.size())
        {
            const BucketReady& ready = m_bucketReady[m_nextBucket++];
            StartBucket(ready.stream, ready.index, JobOp::BACKWARD, mb);
        }
        m_bucketClock = -1;
    }
    if (m_stage > 0 || chunk > 0)
    {
        Collective(JobComm::GRADIENT_SEND, 0, false, JobOp::BACKWARD, mb);
    }
}

} // namespace ns3
