#pragma once
/// What a training engine needs, beyond the shape, to build a model exactly
/// as published (its Hugging Face config.json): the norm and its epsilon, the
/// position embedding and its rotary base and scaling, the activation, the
/// longest context, and what a plain decoder lacks. A catalog preset carries
/// it (its "build" object), --model-config reads it from the file; a shape
/// from flags or a parameter count has none (`known` false). The biases are
/// in workload::Architecture, which counts them.
#include <cstdint>
#include <string_view>

namespace gpuadvisor::catalog {

enum class Norm : std::uint8_t { rmsnorm, layernorm };
/// rope, learned absolute positions (GPT-2, BERT) or ALiBi score biases (BLOOM).
enum class PositionEmbedding : std::uint8_t { rope, learned, alibi };
/// silu (SwiGLU when gated), gelu (erf), gelu_tanh (the tanh approximation:
/// Hugging Face gelu_new / gelu_pytorch_tanh).
enum class Activation : std::uint8_t { silu, gelu, gelu_tanh };

inline constexpr std::string_view kNormNames[] = {"rmsnorm", "layernorm"};
inline constexpr std::string_view kPositionEmbeddingNames[] = {"rope", "learned", "alibi"};
inline constexpr std::string_view kActivationNames[] = {"silu", "gelu", "gelu_tanh"};

struct ModelBuild {
  bool known = false;  ///< the fields below come from a source
  Norm norm = Norm::rmsnorm;
  double norm_eps = 1e-5;
  PositionEmbedding position = PositionEmbedding::rope;
  double rope_theta = 10000;
  /// Llama 3.1's frequency scaling (rope_type llama3: low_freq_factor 1,
  /// high_freq_factor 4, original 8,192 positions) by this factor; 0: none;
  /// -1: another kind of scaling (a config.json's yarn, longrope ...).
  double rope_scaling = 0;
  double rotary_fraction = 1;       ///< share of each head's dimensions rotated (GLM-4: 0.5)
  bool rotary_interleaved = false;  ///< rotate even/odd pairs (GPT-J style), not the two halves
  int max_positions = 0;            ///< max_position_embeddings
  Activation activation = Activation::silu;
  bool bidirectional = false;     ///< an encoder (BERT): every token sees both sides
  double attn_softcap = 0;        ///< tanh soft-capping of attention logits (Gemma 2); 0: none
  double final_softcap = 0;       ///< of the output logits (Gemma 2); 0: none
  bool scaled_embedding = false;  ///< embeddings multiplied by sqrt(hidden) (Gemma)
  friend bool operator==(const ModelBuild&, const ModelBuild&) = default;
};

}  // namespace gpuadvisor::catalog
