// What a bitsandbytes QLoRA base holds beyond its NF4 weights: the output
// layer where the framework quantises it, and the inputs MatMul4Bit kept
// before bitsandbytes 0.43.2. docs/estimation.md section 3.1 derives both.
#include <charconv>
#include <cmath>

#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "model.hpp"

namespace gpuadvisor::workload::detail {
namespace {

bool output_layer_quantised(const Architecture& a, bool output_layer) {
  return output_layer && !a.tied_embeddings;
}

}  // namespace

double qlora_quantised_params(const Architecture& a, const ParamCounts& c, bool output_layer) {
  return c.linear + (output_layer_quantised(a, output_layer) ? d(a.vocab) * d(a.hidden) : 0);
}

std::optional<bool> version_before(std::string_view version, const int (&release)[3]) {
  // MAJOR.MINOR[.PATCH], anything after the third number ignored (".dev0").
  int parts[3] = {0, 0, 0};
  std::size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (pos >= version.size() || version[pos] != '.') {
        if (i == 2) break;  // "0.42" is 0.42.0
        return std::nullopt;
      }
      ++pos;
    }
    if (pos >= version.size() || version[pos] < '0' || version[pos] > '9') return std::nullopt;
    const char* begin = version.data() + pos;
    const auto [end, ec] = std::from_chars(begin, version.data() + version.size(), parts[i]);
    if (ec != std::errc{} || end == begin) return std::nullopt;
    pos = static_cast<std::size_t>(end - version.data());
  }
  // A pre-release or local suffix (".dev0", "rc1", "+cu121"): letters, digits
  // and . + - only, so the text is safe to show as given.
  for (; pos < version.size(); ++pos) {
    const char ch = version[pos];
    const bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
                    (ch >= 'A' && ch <= 'Z') || ch == '.' || ch == '+' || ch == '-';
    if (!ok) return std::nullopt;
  }
  for (int i = 0; i < 3; ++i) {
    if (parts[i] != release[i]) return parts[i] < release[i];
  }
  return false;
}

std::optional<bool> bnb_keeps_inputs(std::string_view version) {
  return version_before(version, k::kBnbInputsFixedIn);
}

double bnb_kept_input_bytes(const Architecture& a, const Settings& s) {
  if (s.task != Task::qlora || !s.bnb_keeps_inputs || a.kind != catalog::ModelKind::transformer) {
    return 0;
  }
  // The distinct inputs of a layer's quantised matrices: the attention input
  // (q, k and v read the same tensor), the attention output (o's input), the
  // MLP input (gate and up share it) and the down projection's input; MLA adds
  // its two latents. 16-bit, per token.
  const double h = d(a.hidden);
  const double attn_out = a.mla() ? d(a.v_dim()) : d(a.q_dim());
  const double latents = a.mla() ? d(a.q_lora_rank + a.kv_lora_rank) : 0;
  const double per_layer = k::kWeight16 * (2 * h + attn_out + latents + a.active_ffn());
  // Reentrant checkpointing runs the forward without a graph: only the layer
  // recomputed in backward holds its inputs. Otherwise every layer's do, and
  // twice where the loop keeps the previous step's graph through the next
  // forward (its inputs are not freed by backward).
  const double L = d(a.layers);
  const double layers = s.checkpointing ? 1 : s.selective ? std::ceil(L / 2) : L;
  const double graphs = s.checkpointing || !s.keeps_previous_step ? 1 : 2;
  const double head = output_layer_quantised(a, s.quantize_output_layer) ? k::kWeight16 * h : 0;
  return graphs * d(s.seq) * d(s.batch) * (layers * per_layer + head);
}

}  // namespace gpuadvisor::workload::detail
