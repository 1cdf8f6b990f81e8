// Memory per GPU of a pipeline stage: the workload estimator's terms
// (detail::memory) applied to the stage's share of the model. Tensor
// parallelism with sequence parallelism splits every activation, weight and
// logit over the tp ranks (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4.2),
// which is the same model with hidden, heads, KV heads, FFN and vocabulary
// divided by tp; context parallelism splits the sequence; the 1F1B schedule
// keeps p micro-batches of activations on the first stage (sec. 4.2.3).
#include <algorithm>

#include "../workload/model.hpp"
#include "cost_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/workload/constants.hpp"

namespace gpuadvisor::plan::detail {
namespace {

/// Layer-micro-batches of activations alive on a stage at the peak.
int in_flight(const Layout& l, int stage_layers, bool first) {
  const int m = l.micro_batches();
  if (l.pp == 1) return stage_layers;
  if (l.vp == 1) return (first ? std::min(l.pp, m) : 1) * stage_layers;
  // Megatron-LM's interleaved schedule: warm-up micro-batches of the first
  // stage (p-1)*2 + (v-1)*p, of the last (v-1)*p, plus the one in progress,
  // each a chunk of L/(p*v) layers.
  const int chunk = stage_layers / l.vp;
  const int warm = first ? (l.pp - 1) * 2 + (l.vp - 1) * l.pp : (l.vp - 1) * l.pp;
  return std::min(m * l.vp, warm + 1) * chunk;
}

struct One {
  workload::MemoryBreakdown memory;
  double params = 0, expert_params = 0;
};

One stage(const workload::Workload& w, const Pre& pre, const Layout& l, bool first, bool last) {
  const auto& a = w.arch;
  const auto& c = w.counts;
  const int t = l.tp;
  const int stage_layers = (a.layers + l.pp - 1) / l.pp;
  const double h = d(a.hidden), V = d(a.vocab);
  const double per_layer = (c.total - c.embedding - h) / d(a.layers);
  // Routed experts split over etp x ep ranks (Megatron-Core's expert grid),
  // the rest of a layer over tp.
  const double routed = a.moe() ? workload::detail::count_shape(a).routed / d(a.layers) : 0;
  const double experts = d(stage_layers) * routed / d(l.ep * l.etp);
  // Megatron keeps the input embedding on the first stage and the output
  // layer (a copy when tied) on the last, both split over the vocabulary.
  double embedding = 0;
  if (first) embedding += V * h / t;
  if (last && (l.pp > 1 || !a.tied_embeddings)) embedding += V * h / t;
  const double norms = d(stage_layers) * 2 * h + (last ? h : 0);

  workload::ParamCounts s;
  s.total = d(stage_layers) * (per_layer - routed) / t + experts + embedding + (last ? h : 0);
  s.embedding = embedding;
  s.norms = norms;
  s.linear = std::max(0.0, s.total - embedding - norms);
  s.trainable = s.total;
  s.factored_state = c.factored_state * s.total / std::max(1.0, c.total);
  s.largest_matrix = c.largest_matrix / t;
  s.largest_param = std::max(s.largest_matrix, embedding > 0 ? V * h / t : 0.0);

  workload::Architecture sa = a;
  sa.hidden = a.hidden / t;
  sa.heads = a.heads / t;
  sa.kv_heads = std::max(1, (a.kv_heads > 0 ? a.kv_heads : a.heads) / t);
  sa.ffn = a.ffn / t;
  // A rank's experts see 1/tp of the tokens' k copies (etp splits the tokens'
  // widths instead of their number): the expert activations divide by tp.
  sa.expert_ffn = a.expert_ffn / t;
  sa.shared_expert_ffn = a.shared_expert_ffn / t;
  sa.vocab = a.vocab / t;
  sa.layers = in_flight(l, stage_layers, first);
  sa.flash_attention = a.flash_attention || l.recompute == Recompute::selective;

  auto set = workload::detail::settings_of(w);
  set.batch = l.micro_batch;
  set.seq = w.seq_len / l.cp;
  set.sharding = effective_sharding(l);
  set.checkpointing = l.recompute == Recompute::full;
  set.selective = false;
  set.loss_bytes = last ? w.loss_bytes : 0;
  set.expert_params = experts;
  set.expert_shards = l.expert_dp();
  One o;
  // ZeRO/FSDP shard over the data-parallel and context-parallel ranks
  // together: Megatron-LM's distributed optimizer over its "data parallel
  // group with context parallel", torchtitan's FSDP over the dp_shard x cp
  // mesh; the CP ranks hold the same weights and reduce their gradients too.
  o.memory = workload::detail::memory(sa, s, set, pre.gpu->tensor_tflops_fp8 > 0,
                                      std::max(1, l.zero_group()));
  o.params = s.total;
  o.expert_params = experts;

  // Without sequence parallelism the layer-norm inputs and dropout masks
  // (10·s·b·h of the 34, Korthikanti sec. 4.2.2) are whole on every tp rank.
  double extra = 0;
  if (t > 1 && !l.sp) {
    const double replicated = k::kActReplicatedNoSp * d(set.seq) * d(set.batch) * h * (1 - 1.0 / t);
    extra += (set.checkpointing ? 0.0 : replicated * d(sa.layers));
  }
  // NCCL buffers of the tensor/pipeline groups when there is no data parallel group.
  const double nccl = (l.dp == 1 && l.gpus() > 1) ? workload::k::kNcclBufferBytes : 0;
  auto& m = o.memory;
  m.activations += extra;
  m.peak_allocated += extra;
  m.peak_reserved += extra * (1 + workload::k::kFragmentation);
  m.device += extra * (1 + workload::k::kFragmentation) + nccl;
  m.overhead += nccl;
  m.total = m.device;
  return o;
}

}  // namespace

StageMemory stage_memory(const workload::Workload& w, const Pre& pre, const Layout& l) {
  const One f = stage(w, pre, l, true, l.pp == 1);
  StageMemory out{f.memory, f.params, f.expert_params};
  if (l.pp > 1) {
    const One last = stage(w, pre, l, false, true);
    if (last.memory.device > out.memory.device) out.memory = last.memory;
    out.params = std::max(out.params, last.params);
    out.expert_params = std::max(out.expert_params, last.expert_params);
  }
  return out;
}

}  // namespace gpuadvisor::plan::detail
