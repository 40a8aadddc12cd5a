#include "transformer-model.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TransformerModel");
NS_OBJECT_ENSURE_REGISTERED(TransformerModel);

TypeId
TransformerModel::GetTypeId()
{
    // Defaults: Llama 3 8B (meta-llama/llama-models models/sku_list.py: dim 4096, 32 layers,
    // 32 heads, 8 KV heads, vocabulary 128,256; models/llama3/model.py's FFN sizing gives
    // 14,336; pre-training sequences of 8,192, the model card).
    static TypeId tid =
        TypeId("ns3::TransformerModel")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<TransformerModel>()
            .AddAttribute("Layers", "Transformer layers.", UintegerValue(32),
                          MakeUintegerAccessor(&TransformerModel::m_layers),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("HiddenSize", "Model dimension h.", UintegerValue(4096),
                          MakeUintegerAccessor(&TransformerModel::m_hidden),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("FfnHiddenSize", "Hidden size of a dense layer's MLP.",
                          UintegerValue(14336), MakeUintegerAccessor(&TransformerModel::m_ffn),
                          MakeUintegerChecker<uint32_t>(1, 10000000))
            .AddAttribute("AttentionHeads", "Query heads.", UintegerValue(32),
                          MakeUintegerAccessor(&TransformerModel::m_heads),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("KvHeads",
                          "Key/value heads (grouped-query attention); 0: as many as "
                          "AttentionHeads (multi-head attention).",
                          UintegerValue(8), MakeUintegerAccessor(&TransformerModel::m_kvHeads),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("HeadDim", "Dimension of a head; 0: HiddenSize / AttentionHeads.",
                          UintegerValue(0), MakeUintegerAccessor(&TransformerModel::m_headDim),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("KvLoraRank",
                          "Multi-head latent attention (DeepSeek-V2/V3): the rank keys and values "
                          "are compressed to; 0: no MLA.  With it HeadDim is the query and key "
                          "dimension without position, QkRopeHeadDim the rotary part and "
                          "ValueHeadDim the values'.",
                          UintegerValue(0), MakeUintegerAccessor(&TransformerModel::m_kvLora),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("QueryLoraRank",
                          "With MLA, the rank queries are compressed to; 0: queries projected "
                          "directly.",
                          UintegerValue(0), MakeUintegerAccessor(&TransformerModel::m_qLora),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("QkRopeHeadDim",
                          "With MLA, the rotary (position) dimension of each query and the "
                          "shared key head.",
                          UintegerValue(0), MakeUintegerAccessor(&TransformerModel::m_rope),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("ValueHeadDim", "With MLA, a value head's dimension; 0: HeadDim.",
                          UintegerValue(0), MakeUintegerAccessor(&TransformerModel::m_vHeadDim),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("VocabSize", "Vocabulary: rows of the embedding and the output layer.",
                          UintegerValue(128256), MakeUintegerAccessor(&TransformerModel::m_vocab),
                          MakeUintegerChecker<uint32_t>(1, 100000000))
            .AddAttribute("SequenceLength", "Tokens per sequence (sample) in training.",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&TransformerModel::m_sequence),
                          MakeUintegerChecker<uint32_t>(1, 100000000))
            .AddAttribute("GatedMlp",
                          "MLPs of three matrices (SwiGLU's gate, up and down, as Llama's and "
                          "Mixtral's); false: two (GELU, as GPT's).",
                          BooleanValue(true), MakeBooleanAccessor(&TransformerModel::m_gated),
                          MakeBooleanChecker())
            .AddAttribute("TiedEmbeddings",
                          "The output layer shares the input embedding's matrix.",
                          BooleanValue(false), MakeBooleanAccessor(&TransformerModel::m_tied),
                          MakeBooleanChecker())
            .AddAttribute("Experts",
                          "Routed experts of a mixture-of-experts layer; 0: a dense model.",
                          UintegerValue(0), MakeUintegerAccessor(&TransformerModel::m_experts),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("ExpertTopK", "Routed experts each token uses.", UintegerValue(2),
                          MakeUintegerAccessor(&TransformerModel::m_topK),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("ExpertFfnHiddenSize",
                          "Hidden size of an expert's MLP; 0: FfnHiddenSize.", UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_expertFfn),
                          MakeUintegerChecker<uint32_t>(0, 10000000))
            .AddAttribute("SharedExperts",
                          "Experts of ExpertFfnHiddenSize every token uses beside its routed "
                          "ones (DeepSeek's shared experts).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_sharedExperts),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("DenseLayers",
                          "Layers at the start of a mixture-of-experts model that are dense "
                          "(DeepSeek-V3's first 3).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_denseLayers),
                          MakeUintegerChecker<uint32_t>(0, 100000));
    return tid;
}

void
TransformerModel::Check() const
{
    const auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
    if (m_headDim == 0 && m_hidden % m_heads != 0)
    {
        bad("AttentionHeads (" + std::to_string(m_heads) + ") must divide HiddenSize (" +
            std::to_string(m_hidden) + ") unless HeadDim is given");
    }
    if (m_heads % KvHeads() != 0)
    {
        bad("KvHeads (" + std::to_string(m_kvHeads) + ") must divide AttentionHeads (" +
            std::to_string(m_heads) + ")");
    }
    if (m_experts > 0 && m_topK > m_experts)
    {
        bad("ExpertTopK (" + std::to_string(m_topK) + ") must not exceed Experts (" +
            std::to_string(m_experts) + ")");
    }
    if (m_experts > 0 && m_denseLayers >= m_layers)
    {
        bad("DenseLayers (" + std::to_string(m_denseLayers) +
            ") leaves no mixture-of-experts layer of " + std::to_string(m_layers));
    }
    if (m_kvLora == 0 && (m_qLora > 0 || m_rope > 0 || m_vHeadDim > 0))
    {
        bad("QueryLoraRank, QkRopeHeadDim and ValueHeadDim need multi-head latent attention "
            "(KvLoraRank > 0)");
    }
    if (m_experts == 0 && (m_sharedExperts > 0 || m_denseLayers > 0))
    {
        bad("SharedExperts and DenseLayers need Experts > 0");
    }
}

uint32_t
TransformerModel::HeadDim() const
{
    return m_headDim > 0 ? m_headDim : m_hidden / m_heads;
}

uint32_t
TransformerModel::KvHeads() const
{
    return m_kvHeads > 0 ? m_kvHeads : m_heads;
}

bool
TransformerModel::IsMoeLayer(uint32_t layer) const
{
    return m_experts > 0 && layer >= m_denseLayers;
}

uint32_t
TransformerModel::GetMoeLayers() const
{
    return m_experts > 0 ? m_layers - m_denseLayers : 0;
}

uint64_t
TransformerModel::MlpWeights(uint64_t ffn) const
{
    return (m_gated ? 3 : 2) * uint64_t{m_hidden} * ffn;
}

uint64_t
TransformerModel::AttentionWeights() const
{
    const uint64_t h = m_hidden;
    if (m_kvLora > 0)
    {
        // MLA: queries (through their low rank if any), keys and values through the latent
        // of KvLoraRank plus the shared rotary key, the output from the values.
        const uint64_t q = uint64_t{m_heads} * (HeadDim() + m_rope);
        const uint64_t v = uint64_t{m_heads} * VHeadDim();
        const uint64_t queries = m_qLora > 0 ? h * m_qLora + uint64_t{m_qLora} * q : h * q;
        const uint64_t keysValues =
            h * (m_kvLora + m_rope) + uint64_t{m_kvLora} * m_heads * (HeadDim() + VHeadDim());
        return queries + keysValues + v * h;
    }
    const uint64_t q = uint64_t{m_heads} * HeadDim();
    const uint64_t kv = uint64_t{KvHeads()} * HeadDim();
    return h * (q + 2 * kv) + q * h;
}

uint32_t
TransformerModel::VHeadDim() const
{
    return m_vHeadDim > 0 ? m_vHeadDim : HeadDim();
}

uint64_t
TransformerModel::ActiveMlpWeights(uint32_t layer) const
{
    if (!IsMoeLayer(layer))
    {
        return MlpWeights(m_ffn);
    }
    const uint64_t expert = MlpWeights(m_expertFfn > 0 ? m_expertFfn : m_ffn);
    return uint64_t{m_hidden} * m_experts + (uint64_t{m_topK} + m_sharedExperts) * expert;
}

uint64_t
TransformerModel::GetLayerParameters(uint32_t layer) const
{
    uint64_t mlp = MlpWeights(m_ffn);
    if (IsMoeLayer(layer))
    {
        const uint64_t expert = MlpWeights(m_expertFfn > 0 ? m_expertFfn : m_ffn);
        mlp = uint64_t{m_hidden} * m_experts + (uint64_t{m_experts} + m_sharedExperts) * expert;
    }
    // Two norms, and MLA's norms of its latents.
    return AttentionWeights() + mlp + 2 * uint64_t{m_hidden} + m_qLora + m_kvLora;
}

uint64_t
TransformerModel::GetEmbeddingParameters() const
{
    return (m_tied ? 1 : 2) * uint64_t{m_vocab} * m_hidden + m_hidden; // final norm
}

uint64_t
TransformerModel::GetParameters() const
{
    uint64_t all = GetEmbeddingParameters();
    for (uint32_t l = 0; l < m_layers; ++l)
    {
        all += GetLayerParameters(l);
    }
    return all;
}

uint64_t
TransformerModel::GetRoutedExpertParameters() const
{
    const uint64_t expert = MlpWeights(m_expertFfn > 0 ? m_expertFfn : m_ffn);
    return uint64_t{GetMoeLayers()} * m_experts * expert;
}

double
TransformerModel::GetAttentionFlops(uint32_t sequences) const
{
    return sequences * 2.0 * m_sequence * double(AttentionWeights()) +
           GetCoreAttentionFlops(sequences);
}

double
TransformerModel::GetCoreAttentionFlops(uint32_t sequences) const
{
    const double s = m_sequence;
    // Scores over the query and key dimension, weighted values over the value dimension.
    const double qk = double(m_heads) * (HeadDim() + m_rope);
    const double v = double(m_heads) * VHeadDim();
    return sequences * 2.0 * s * s * (qk + v);
}

double
TransformerModel::GetMlpFlops(uint32_t layer, uint32_t sequences) const
{
    return sequences * 2.0 * m_sequence * double(ActiveMlpWeights(layer));
}

double
TransformerModel::GetLogitFlops(uint32_t sequences) const
{
    return sequences * 2.0 * m_sequence * double(m_hidden) * m_vocab;
}

double
TransformerModel::GetForwardFlops(uint32_t sequences) const
{
    double all = GetLogitFlops(sequences);
    for (uint32_t l = 0; l < m_layers; ++l)
    {
        all += GetAttentionFlops(sequences) + GetMlpFlops(l, sequences);
    }
    return all;
}

uint64_t
TransformerModel::GetActivationElements(uint32_t sequences) const
{
    return uint64_t{sequences} * m_sequence * m_hidden;
}

} // namespace ns3
