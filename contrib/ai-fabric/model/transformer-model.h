#ifndef AI_FABRIC_TRANSFORMER_MODEL_H
#define AI_FABRIC_TRANSFORMER_MODEL_H

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A decoder-only transformer by its dimensions: its parameters, the FLOPs of each
 * layer for a micro-batch, and the sizes its parallel training communicates.
 *
 * A layer is an attention block (Q, K, V and output projections; grouped-query attention
 * with KvHeads key/value heads, or DeepSeek's multi-head latent attention with KvLoraRank)
 * and an MLP block: a dense MLP of FfnHiddenSize (three
 * matrices when GatedMlp, as SwiGLU's gate, up and down; two otherwise, as GPT's), or, for a
 * mixture-of-experts layer, a router over Experts experts of ExpertFfnHiddenSize of which
 * each token uses ExpertTopK, beside SharedExperts experts every token uses.  The first
 * DenseLayers layers of a MoE model are dense.  The input embedding and the output (logit)
 * layer are VocabSize x HiddenSize each, shared when TiedEmbeddings.
 *
 * FLOPs count a multiply-add as 2 and only the matrix products (norms, softmax and
 * activations are left out), as Narayanan et al. count them ("Efficient Large-Scale Language
 * Model Training on GPU Clusters Using Megatron-LM", SC'21, appendix): per sequence of s
 * tokens a layer's forward is 2 s P_linear for its linear weights plus 4 s^2 Q for attention's
 * scores and weighted values (Q = AttentionHeads x head dimension), the whole s^2 without
 * halving for the causal mask, as that paper and PaLM's MFU count it.  A GPT-3-shaped model
 * (two-matrix MLP of 4h, no GQA) gives their 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) per
 * iteration with the backward at twice the forward.  The defaults are Llama 3 8B's
 * (meta-llama/llama-models, models/sku_list.py and models/llama3/model.py).
 */
class TransformerModel : public Object
{
  public:
    static TypeId GetTypeId();

    /** Throws std::invalid_argument naming the attribute if the dimensions do not fit. */
    void Check() const;

    uint32_t GetLayers() const { return m_layers; }
    uint32_t GetSequenceLength() const { return m_sequence; }
    uint32_t GetHiddenSize() const { return m_hidden; }
    uint32_t GetExpertTopK() const { return m_experts > 0 ? m_topK : 0; }
    /** Whether layer \p layer (from 0) is a mixture-of-experts layer. */
    bool IsMoeLayer(uint32_t layer) const;
    /** Mixture-of-experts layers in all. */
    uint32_t GetMoeLayers() const;

    /** Weights of layer \p layer (every expert of a MoE layer; norms included). */
    uint64_t GetLayerParameters(uint32_t layer) const;
    /** Weights of the embedding and the output layer (one matrix if tied), final norm included. */
    uint64_t GetEmbeddingParameters() const;
    /** All weights. */
    uint64_t GetParameters() const;
    /** The routed experts' weights, all layers (what expert parallelism splits). */
    uint64_t GetRoutedExpertParameters() const;
    uint32_t GetExperts() const { return m_experts; }

    /** Forward FLOPs of a layer's attention block for \p sequences sequences. */
    double GetAttentionFlops(uint32_t sequences) const;
    /**
     * The part of GetAttentionFlops that grows with the sequence squared: scores and weighted
     * values, 2 s^2 (query-key width + value width) per sequence (Korthikanti et al.'s "core
     * attention", 4 b s^2 h for multi-head attention), what selective recomputation redoes.
     */
    double GetCoreAttentionFlops(uint32_t sequences) const;
    /** Forward FLOPs of layer \p layer's MLP block (router, routed and shared experts). */
    double GetMlpFlops(uint32_t layer, uint32_t sequences) const;
    /** Forward FLOPs of the output layer (logits) for \p sequences sequences. */
    double GetLogitFlops(uint32_t sequences) const;
    /** Forward FLOPs of the whole model for \p sequences sequences. */
    double GetForwardFlops(uint32_t sequences) const;

    /**
     * Elements of one layer's output for \p sequences sequences (sequences x sequence length
     * x hidden size): a tensor-parallel all-reduce's and a pipeline transfer's payload.
     */
    uint64_t GetActivationElements(uint32_t sequences) const;

  private:
    uint32_t HeadDim() const;
    uint32_t VHeadDim() const;
    uint32_t KvHeads() const;
    /** Per token: the linear weights' multiply-adds of the attention block. */
    uint64_t AttentionWeights() const;
    /** Per token: the MLP weights a token uses (top-k of the routed experts). */
    uint64_t ActiveMlpWeights(uint32_t layer) const;
    /** Weights of one MLP (gated: 3 matrices) of hidden size \p ffn. */
    uint64_t MlpWeights(uint64_t ffn) const;

    uint32_t m_layers{};
    uint32_t m_hidden{};
    uint32_t m_ffn{};
    uint32_t m_heads{};
    uint32_t m_kvHeads{};
    uint32_t m_headDim{};
    uint32_t m_kvLora{};
    uint32_t m_qLora{};
    uint32_t m_rope{};
    uint32_t m_vHeadDim{};
    uint32_t m_vocab{};
    uint32_t m_sequence{};
    bool m_gated{};
    bool m_tied{};
    uint32_t m_experts{};
    uint32_t m_topK{};
    uint32_t m_expertFfn{};
    uint32_t m_sharedExperts{};
    uint32_t m_denseLayers{};
};

} // namespace ns3

#endif
