// Megatron-LM's pretrain_gpt.py builds a GPT model with LayerNorm, learned
// absolute positions, biased linears, GELU, tied embeddings and dropout 0.1
// unless told otherwise (megatron/core/transformer/transformer_config.py and
// megatron/training/arguments.py; tests/data/megatron-defaults.json pins
// them). Every difference between that and the named model becomes an
// argument here, or a listed difference when Megatron-LM has no argument.
#include "emit_model.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpuadvisor/catalog/model_build.hpp"
#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::plan {
namespace {

using catalog::Activation;
using catalog::Norm;
using catalog::PositionEmbedding;

/// Megatron-LM pads the vocabulary to a multiple of
/// make_vocab_size_divisible_by x tp (vocab_size_with_padding): the largest
/// power of two up to its default 128 that leaves `vocab` as it is, or 1.
int vocab_divisor(int vocab, int tp) {
  for (int d = 128; d > 1; d /= 2)
    if (vocab % (d * tp) == 0) return d;
  return 1;
}

std::string number(double v) { return fmt::format("{:g}", v); }

}  // namespace

MegatronModel megatron_model(const workload::Workload& w, const Layout& l) {
  MegatronModel m;
  const auto& a = w.arch;
  const auto& b = a.build;
  auto arg = [&](std::string s) { m.args.push_back(std::move(s)); };
  auto differs = [&](std::string s) { m.differences.push_back(std::move(s)); };
  if (!b.known)
    m.assumed =
        "the shape comes from flags or a parameter count, not a config: RMSNorm (eps 1e-5), "
        "rotary positions (base 10000), no biases and no dropout are assumed; check them "
        "against your model";

  if (b.bidirectional)
    differs(
        "an encoder with bidirectional attention (BERT: Megatron-LM's pretrain_bert.py), "
        "built here as a causal decoder");
  if (b.norm == Norm::rmsnorm) arg("--normalization RMSNorm");
  if (b.norm_eps != 1e-5) arg("--norm-epsilon " + number(b.norm_eps));
  if (a.norms_per_layer != 2)
    differs(
        fmt::format("{} norms per layer (Megatron-LM has one before attention and one before "
                    "the FFN)",
                    a.norms_per_layer));

  // Positions. max_position_embeddings sizes the learned table and must
  // cover the sequence (validate_args).
  const int positions = std::max(b.max_positions, w.seq_len);
  switch (b.position) {
    case PositionEmbedding::rope: {
      arg("--position-embedding-type rope");
      // --rotary-base is an int in Megatron-LM.
      if (b.rope_theta != std::round(b.rope_theta))
        differs(
            fmt::format("rotary base {} (Megatron-LM takes a whole number)", number(b.rope_theta)));
      arg(fmt::format("--rotary-base {}", static_cast<long long>(std::round(b.rope_theta))));
      if (b.rotary_fraction < 1) arg("--rotary-percent " + number(b.rotary_fraction));
      if (b.rotary_interleaved) arg("--rotary-interleaved");
      if (b.rope_scaling > 0) {
        // apply_scaling's low 1, high 4, original 8,192 are Llama 3.1's.
        arg("--use-rope-scaling");
        arg("--rope-scaling-factor " + number(b.rope_scaling));
      } else if (b.rope_scaling < 0) {
        differs("rotary scaling other than Llama 3.1's (yarn, longrope ...)");
      }
      break;
    }
    case PositionEmbedding::learned:
      break;  // Megatron-LM's default: learned_absolute
    case PositionEmbedding::alibi:
      differs("ALiBi attention biases (Megatron-LM's GPT model has none; built without positions)");
      arg("--position-embedding-type none");
      break;
  }
  arg(fmt::format("--max-position-embeddings {}", positions));

  // The FFN: SwiGLU, or GELU (erf, Megatron-LM's default).
  if (a.gated_ffn) {
    if (b.activation == Activation::silu) {
      arg("--swiglu");
    } else {
      arg("--swiglu");
      differs("a GELU-gated FFN (GeGLU), built as SwiGLU");
    }
  } else if (b.activation == Activation::gelu_tanh) {
    differs(
        "GELU's tanh approximation (gelu_new), built with the exact GELU (--openai-gelu is "
        "not wired into the model at the pinned commit)");
  } else if (b.activation == Activation::silu) {
    differs("a SiLU FFN without a gate, built with GELU");
  }

  // Biases: Megatron-LM's add_bias_linear puts one on every linear layer.
  const bool all = a.qkv_bias && a.o_bias && a.mlp_bias;
  if (!all) {
    arg("--disable-bias-linear");
    if (a.qkv_bias) arg("--add-qkv-bias");
    if (a.o_bias || a.mlp_bias)
      differs("biases on the attention output or the FFN but not on every linear layer");
  }
  if (a.output_bias) differs("a bias on the output layer");

  if (a.head_dim_override > 0) arg(fmt::format("--kv-channels {}", a.head_dim_override));
  if (a.sliding_window > 0) {
    if (a.sliding_window_layers == a.layers) {
      arg(fmt::format("--window-size {},0", a.sliding_window));
    } else {
      differs(fmt::format("a sliding window of {} on {} of the {} layers", a.sliding_window,
                          a.sliding_window_layers, a.layers));
    }
  }
  if (b.attn_softcap > 0) differs("soft-capped attention logits");
  if (b.final_softcap > 0) differs("soft-capped output logits");
  if (b.scaled_embedding) differs("embeddings scaled by sqrt(hidden)");

  // Dropout: Megatron-LM's default 0.1; models with rotary positions train
  // without it (their configs' attention_dropout 0.0), GPT-2 and BERT with 0.1.
  if (b.position != PositionEmbedding::learned) {
    arg("--attention-dropout 0.0");
    arg("--hidden-dropout 0.0");
  }

  const int d = vocab_divisor(a.vocab, l.tp);
  const int multiple = d * l.tp;
  m.padded_vocab = (a.vocab + multiple - 1) / multiple * multiple;
  arg(fmt::format("--make-vocab-size-divisible-by {}", d));
  if (m.padded_vocab != a.vocab)
    differs(fmt::format("a vocabulary of {} padded to {} (split over TP {})", a.vocab,
                        m.padded_vocab, l.tp));
  return m;
}

}  // namespace gpuadvisor::plan
