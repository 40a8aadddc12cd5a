// TransformerModel: parameter counts against the published totals of real models, FLOPs
// against Narayanan et al.'s closed form, and the dimensions it refuses.
#include "ns3/boolean.h"
#include "ns3/transformer-model.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace ns3;

namespace
{

Ptr<TransformerModel>
Model(std::initializer_list<std::pair<const char*, uint64_t>> dims, bool gated = true)
{
    Ptr<TransformerModel> m = CreateObject<TransformerModel>();
    for (const auto& [name, value] : dims)
    {
        m->SetAttribute(name, UintegerValue(value));
    }
    m->SetAttribute("GatedMlp", BooleanValue(gated));
    m->Check();
    return m;
}

/** GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, h 12288, 96 heads, 4h MLP, tied. */
Ptr<TransformerModel>
Gpt3()
{
    Ptr<TransformerModel> m = Model({{"Layers", 96},
                                     {"HiddenSize", 12288},
                                     {"FfnHiddenSize", 4 * 12288},
                                     {"AttentionHeads", 96},
                                     {"KvHeads", 0},
                                     {"VocabSize", 50257},
                                     {"SequenceLength", 2048}},
                                    false);
    m->SetAttribute("TiedEmbeddings", BooleanValue(true));
    return m;
}

} // namespace

// Llama 3 8B, the defaults, counted by hand: embedding and output 2 x 128256 x 4096 =
// 1,050,673,152; a layer: Q and O 2 x 4096^2, K and V 2 x 4096 x 1024, SwiGLU 3 x 4096 x 14336,
// two norms 2 x 4096 = 218,112,000; x 32 layers, + the final norm 4096: 8,030,261,248, the
// "8.03B" of its model card.
TEST(TransformerModel, Llama3With8BParametersByDefault)
{
    Ptr<TransformerModel> m = CreateObject<TransformerModel>();
    m->Check();
    EXPECT_EQ(m->GetLayerParameters(0), 218112000u);
    EXPECT_EQ(m->GetEmbeddingParameters(), 1050677248u);
    EXPECT_EQ(m->GetParameters(), 8030261248u);
    EXPECT_EQ(m->GetMoeLayers(), 0u);
    EXPECT_EQ(m->GetActivationElements(2), 2u * 8192 * 4096);
}

// GPT-3 175B: 174.6 B weights without biases and position embeddings (the paper's 175.0 B has
// them); and three forward passes (backward = 2 x forward) give Narayanan et al.'s FLOPs per
// iteration, 72 B s l h^2 (1 + s / (6h) + V / (12 l h)) (SC'21, appendix), exactly.
TEST(TransformerModel, Gpt3MatchesNarayanansFlops)
{
    Ptr<TransformerModel> m = Gpt3();
    EXPECT_NEAR(m->GetParameters() / 175.0e9, 1.0, 0.005);
    const double b = 1536; // GPT-3 175B's global batch in Megatron-LM's example script
    const double s = 2048, l = 96, h = 12288, v = 50257;
    const double narayanan = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
    EXPECT_NEAR(3 * m->GetForwardFlops(1536) / narayanan, 1.0, 1e-12);
    // A layer: 24 s h^2 + 4 s^2 h per sequence, the attention block 8 s h^2 + 4 s^2 h of it.
    EXPECT_DOUBLE_EQ(m->GetAttentionFlops(1), 8 * s * h * h + 4 * s * s * h);
    EXPECT_DOUBLE_EQ(m->GetMlpFlops(0, 1), 16 * s * h * h);
    EXPECT_DOUBLE_EQ(m->GetLogitFlops(1), 2 * s * h * v);
}

// Mixtral 8x7B (Jiang et al. 2024; its config: 32 layers, h 4096, 32 heads, 8 KV heads,
// SwiGLU experts of 14336, 8 experts, top 2, vocabulary 32000): 46.7 B parameters in all and
// 12.9 B used per token, as the paper gives them.  A token's linear FLOPs are twice the weights
// it uses; the input embedding is a lookup (no FLOPs) but counts among the used weights.
TEST(TransformerModel, MixtralHasItsTotalAndActiveParameters)
{
    Ptr<TransformerModel> m = Model({{"Layers", 32},
                                     {"HiddenSize", 4096},
                                     {"FfnHiddenSize", 14336},
                                     {"AttentionHeads", 32},
                                     {"KvHeads", 8},
                                     {"VocabSize", 32000},
                                     {"SequenceLength", 4096},
                                     {"Experts", 8},
                                     {"ExpertTopK", 2}});
    EXPECT_EQ(m->GetMoeLayers(), 32u);
    EXPECT_NEAR(m->GetParameters() / 46.7e9, 1.0, 0.002);
    const double s = 4096;
    const double scores = 32 * 4 * s * s * 32 * 128; // 4 s^2 x heads x head dim, per layer
    const double linearPerToken = (m->GetForwardFlops(1) - scores) / (2 * s);
    EXPECT_NEAR((linearPerToken + 32000.0 * 4096) / 12.9e9, 1.0, 0.005);
}

// DeepSeek-style layout: the first dense layers, shared experts beside the routed ones.
TEST(TransformerModel, DenseLayersAndSharedExperts)
{
    Ptr<TransformerModel> m = Model({{"Layers", 4},
                                     {"HiddenSize", 64},
                                     {"FfnHiddenSize", 256},
                                     {"AttentionHeads", 4},
                                     {"KvHeads", 0},
                                     {"VocabSize", 100},
                                     {"SequenceLength", 16},
                                     {"Experts", 8},
                                     {"ExpertTopK", 2},
                                     {"ExpertFfnHiddenSize", 32},
                                     {"SharedExperts", 1},
                                     {"DenseLayers", 1}});
    EXPECT_FALSE(m->IsMoeLayer(0));
    EXPECT_TRUE(m->IsMoeLayer(1));
    EXPECT_EQ(m->GetMoeLayers(), 3u);
    // Dense MLP 3 x 64 x 256; MoE: router 64 x 8 + (8 + 1) experts of 3 x 64 x 32.
    const uint64_t attention = 4 * 64 * 64;
    EXPECT_EQ(m->GetLayerParameters(0), attention + 3 * 64 * 256 + 2 * 64);
    EXPECT_EQ(m->GetLayerParameters(1), attention + 64 * 8 + 9 * 3 * 64 * 32 + 2 * 64);
    // A token uses the router, its top 2 and the shared expert.
    EXPECT_DOUBLE_EQ(m->GetMlpFlops(1, 1), 2.0 * 16 * (64 * 8 + 3 * 3 * 64 * 32));
}

// DeepSeek-V3 (its config_671B.json): multi-head latent attention of 128 heads (queries
// through a rank of 1536, keys and values through a latent of 512 plus a 64-wide rotary key,
// 128 + 64 per query and key head, 128 per value head), 3 dense layers of 18432, then 256
// experts of 2048 with 8 used and 1 shared, vocabulary 129280.  By hand from those shapes:
// 7168 x 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 x 128 x 256 + 128 x 128 x 7168 =
// 187,105,280 attention weights a layer; 671.03 B in all, its published 671 B.  Attention
// FLOPs per sequence: 2 s x those weights + 2 s^2 x 128 x (192 + 128).
TEST(TransformerModel, DeepSeekV3WithLatentAttention)
{
    Ptr<TransformerModel> m = Model({{"Layers", 61},
                                     {"HiddenSize", 7168},
                                     {"FfnHiddenSize", 18432},
                                     {"AttentionHeads", 128},
                                     {"KvHeads", 0},
                                     {"HeadDim", 128},
                                     {"KvLoraRank", 512},
                                     {"QueryLoraRank", 1536},
                                     {"QkRopeHeadDim", 64},
                                     {"ValueHeadDim", 128},
                                     {"VocabSize", 129280},
                                     {"SequenceLength", 4096},
                                     {"Experts", 256},
                                     {"ExpertTopK", 8},
                                     {"ExpertFfnHiddenSize", 2048},
                                     {"SharedExperts", 1},
                                     {"DenseLayers", 3}});
    const double s = 4096;
    EXPECT_DOUBLE_EQ(m->GetAttentionFlops(1), 2 * s * 187105280.0 + 2 * s * s * 128 * (192 + 128));
    EXPECT_EQ(m->GetLayerParameters(0), 187105280u + 3u * 7168 * 18432 + 2 * 7168 + 1536 + 512);
    EXPECT_NEAR(m->GetParameters() / 671e9, 1.0, 0.001);
    EXPECT_EQ(m->GetMoeLayers(), 58u);
    EXPECT_THROW(Model({{"QkRopeHeadDim", 64}}), std::invalid_argument); // MLA keys without MLA
}

TEST(TransformerModel, RefusesDimensionsThatDoNotFit)
{
    EXPECT_THROW(Model({{"HiddenSize", 100}, {"AttentionHeads", 32}}), std::invalid_argument);
    EXPECT_THROW(Model({{"AttentionHeads", 32}, {"KvHeads", 5}}), std::invalid_argument);
    EXPECT_THROW(Model({{"Experts", 4}, {"ExpertTopK", 5}}), std::invalid_argument);
    EXPECT_THROW(Model({{"Experts", 4}, {"DenseLayers", 32}}), std::invalid_argument);
    EXPECT_THROW(Model({{"SharedExperts", 1}}), std::invalid_argument);
    EXPECT_NO_THROW(Model({{"HiddenSize", 100}, {"AttentionHeads", 32}, {"HeadDim", 4}}));
}
