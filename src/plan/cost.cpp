// The layout cost model: seconds per optimizer step of a tensor x pipeline x
// context x data parallel layout, and memory per GPU of its fullest stage.
// docs/plan.md section 2 derives each term; compute and memory come from the
// workload estimator (compute(), detail::memory()), not from copies of it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "../workload/model.hpp"
#include "cost_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/plan/constants.hpp"
#include "gpuadvisor/workload/constants.hpp"

namespace gpuadvisor::plan {
namespace wk = workload::k;
using workload::Sharding;

namespace {

/// A ring collective of `n` GPUs that moves `factor` x `bytes` per GPU, of
/// which `hops_inter` steps cross nodes.
double ring(double factor, double bytes, double bw, int steps, int steps_inter, const Network& n) {
  if (bytes <= 0) return 0;
  return factor * bytes / bw + n.base_latency + d(steps - steps_inter) * n.intra_latency +
         d(steps_inter) * n.inter_latency;
}

/// Bus bandwidth and node count of a group of `size` GPUs placed `stride`
/// ranks apart (Megatron's rank order: tp fastest, then cp, dp, pp).
struct Group {
  double bw = 0;
  int nodes = 1;  ///< nodes the group spans
};
Group group(int size, int stride, const Network& n) {
  const int per_node = std::max(1, n.gpus_per_node / std::max(1, stride));
  if (size <= per_node) return {n.intra_bw, 1};
  // Rail-optimised: each GPU has its own NIC, so the k GPUs a group has in a
  // node cross the network on k NICs at once.
  const int k = std::min(per_node, size);
  return {std::min(n.intra_bw, d(k) * n.inter_bw), (size + k - 1) / k};
}

/// Collective time of a group: a ring of 2(n-1) steps (all-reduce) or n-1.
double collective(double factor_per_step_count, double bytes, int size, int stride, bool all_reduce,
                  const Network& n) {
  if (size <= 1) return 0;
  const Group g = group(size, stride, n);
  const int phases = all_reduce ? 2 : 1;
  const double share = d(size - 1) / d(size);
  return ring(phases * share * factor_per_step_count, bytes, g.bw, phases * (size - 1),
              phases * (g.nodes - 1), n);
}

}  // namespace

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "none";
}

double goodput_at_scale(int gpus) {
  return std::max(wk::kMinGoodput, 1.0 - k::kLostShareAtReference * d(gpus) / k::kReferenceGpus);
}

Network network_of(const catalog::Gpu& g) {
  Network n;
  n.gpus_per_node = wk::kGpusPerNode;
  const auto& ic = g.interconnect;
  const bool fabric = (ic.type == "nvlink" || ic.type == "infinity-fabric") && ic.peer_to_peer;
  n.domain = fabric ? wk::kGpusPerNode : (ic.type == "nvlink-bridge" ? 2 : wk::kGpusPerNode);
  const auto intra = workload::detail::collective_link(g, wk::kGpusPerNode);
  const auto inter = workload::detail::collective_link(g, wk::kGpusPerNode + 1);
  n.intra_bw = intra.bytes_per_second;
  n.intra_text = intra.text;
  n.inter_bw = inter.bytes_per_second;
  n.inter_text = inter.text;
  n.intra_latency = fabric ? k::kNvlinkStepLatency : k::kPcieStepLatency;
  n.inter_latency = k::kNetStepLatency;
  n.base_latency = k::kBaseLatency;
  return n;
}

Invalid invalid(const workload::Workload& w, const Layout& l, const Network& net) {
  const auto& a = w.arch;
  const int kv = a.kv_heads > 0 ? a.kv_heads : a.heads;
  if (l.tp < 1 || l.pp < 1 || l.vp < 1 || l.cp < 1 || l.dp < 1 || l.micro_batch < 1)
    return {"tp", "every degree is at least 1"};
  if (l.tp > net.domain)
    return {"tp",
            fmt::format("tensor parallel {} exceeds the {}-GPU NVLink domain", l.tp, net.domain)};
  if (a.heads % l.tp != 0 || kv % l.tp != 0)
    return {"tp", "attention heads and KV heads must divide by tensor parallel (Megatron-LM)"};
  if (l.pp > a.layers) return {"pp", "more pipeline stages than layers"};
  if (l.vp > 1 && (l.pp == 1 || ((a.layers + l.pp - 1) / l.pp) % l.vp != 0))
    return {"vp",
            "interleaving needs pipeline stages and the layers of a stage divisible by chunks"};
  if (l.vp > 1 && l.micro_batches() % l.pp != 0)
    return {"vp", "the interleaved schedule needs micro-batches divisible by pipeline stages"};
  if (l.cp > 1 && (!a.flash_attention || w.seq_len % (2 * l.cp) != 0))
    return {"cp", "context parallel needs fused attention and a sequence divisible by 2 x cp"};
  if (l.sp && l.tp == 1)
    return {"sequence_parallel", "sequence parallelism needs tensor parallelism"};
  // torchtitan composes FSDP (zero3) with pipeline stages; DeepSpeed and
  // Megatron-LM refuse ZeRO-2/3 with them.
  const bool fsdp_pp =
      l.sharding == Sharding::zero3 && w.framework == workload::Framework::torchtitan;
  if (l.sharding >= Sharding::zero2 && l.pp > 1 && !fsdp_pp)
    return {"sharding",
            "ZeRO-2/3 do not combine with pipeline parallelism in DeepSpeed and Megatron-LM "
            "(torchtitan composes FSDP with it: --framework torchtitan)"};
  if (l.recompute == Recompute::selective && a.flash_attention)
    return {"recompute", "selective recompute is what flash attention already does"};
  if (auto bad = detail::expert_invalid(w, l, net); !bad.reason.empty()) return bad;
  if (l.global_batch % (l.micro_batch * l.dp) != 0 || l.micro_batches() < 1)
    return {"global_batch", "global batch must be a multiple of micro-batch x data parallel"};
  return {};
}

std::string invalid_reason(const workload::Workload& w, const Layout& l, const Network& net) {
  return invalid(w, l, net).reason;
}

namespace detail {

Sharding effective_sharding(const Layout& l) {
  return l.sharding == Sharding::zero3 && l.pp > 1 ? Sharding::zero1 : l.sharding;
}

Pre prepare(const workload::Workload& w, const catalog::Gpu& g) {
  Pre p;
  p.gpu = &g;
  p.net = network_of(g);
  for (std::size_t i = 0; i < std::size(k::kMicroBatches); ++i) {
    for (int r = 0; r < 3; ++r) p.rates[i][r] = rate(w, g, k::kMicroBatches[i], Recompute(r));
  }
  return p;
}

Rate rate(const workload::Workload& w, const catalog::Gpu& g, int micro_batch, Recompute r) {
  auto w1 = w;
  w1.batch_size = micro_batch;
  w1.gpus = 1;
  w1.grad_accumulation = 1;
  w1.sharding = Sharding::none;
  w1.mfu.reset();
  w1.selective_checkpointing = false;
  w1.grad_checkpointing = r == Recompute::full;
  const auto c = workload::compute(w1, g, 1);
  auto plain = w1;
  plain.grad_checkpointing = false;
  const auto model = workload::compute(plain, g, 1);
  Rate out;
  out.peak = c.peak_tflops * 1e12;
  out.seconds_per_token = c.flops_per_token / (out.peak * c.mfu);
  if (r == Recompute::selective) {
    // The attention core (QK^T, softmax, AV) runs once more in backward.
    const auto eff = workload::detail::matmul_efficiency(g);
    out.seconds_per_token += wk::kAttnForward * d(w.arch.layers) * d(w.arch.hidden) * d(w.seq_len) /
                             (out.peak * eff.fraction);
  }
  out.model_flops_per_token = model.flops_per_token;
  out.attention_share = model.attention_flops / std::max(1.0, model.total_flops);
  return out;
}

}  // namespace detail

StepCost evaluate(const workload::Workload& w, const catalog::Gpu& g, const Layout& l,
                  const Network& net) {
  detail::Pre p;
  p.gpu = &g;
  p.net = net;
  const auto r = detail::rate(w, g, l.micro_batch, l.recompute);
  return detail::evaluate(w, p, l, r);
}

namespace detail {

StepCost evaluate(const workload::Workload& w, const Pre& pre, const Layout& l, const Rate& r) {
  StepCost c;
  const auto& a = w.arch;
  const Network& n = pre.net;
  const int L = a.layers;
  const int stage_layers = (L + l.pp - 1) / l.pp;  // the slowest stage sets the pace
  const double m = d(l.micro_batches());
  const double tokens_mb = d(l.micro_batch) * d(w.seq_len) / d(l.cp);  // per GPU
  const double act_bytes = w.precision == workload::Precision::fp32 ? 4 : 2;

  // Compute of one micro-batch on one GPU: its share of the model's layers,
  // split over tensor and context parallel ranks.
  const double share = l.pp > 1 ? d(stage_layers) / d(L) : 1.0;
  double t_mb = r.seconds_per_token * tokens_mb / d(l.tp) * share;
  // Without sequence parallelism the layer norms, dropouts and residual adds
  // (the 10·s·b·h of Korthikanti's 34) run whole on every tp rank: their
  // memory traffic (the estimator's kTrafficFactor x what they store) is
  // not split.
  if (l.tp > 1 && !l.sp && pre.gpu->memory_bandwidth_gbs > 0) {
    const double recomputed = l.recompute == Recompute::full ? 1.0 : 0.0;
    const double bytes = wk::kTrafficFactor * k::kActReplicatedNoSp * d(a.hidden) * tokens_mb *
                         (act_bytes / 2) * (1 - 1.0 / d(l.tp)) * d(stage_layers) *
                         (1 + recomputed / 3);
    t_mb += bytes / (pre.gpu->memory_bandwidth_gbs * 1e9);
  }

  // Tensor parallel: two all-reduces (or all-gather + reduce-scatter with
  // sequence parallelism, the same bytes) forward, two backward, two more
  // with full recompute, of the layer's activations; not overlapped.
  const int calls = 4 + (l.recompute == Recompute::full ? 2 : 0);
  const double moe_layers = detail::moe_layers_per_stage(a, stage_layers);
  double t_tp = 0;
  if (l.tp > 1) {
    const double bytes = tokens_mb * d(a.hidden) * act_bytes;
    const double one = collective(1, bytes, l.tp, 1, true, n);
    if (moe_layers == 0) {
      t_tp = d(stage_layers) * d(calls) * one;
    } else {
      // MoE layers: the attention half as before; the FFN half becomes the
      // expert-tensor-parallel all-gather / reduce-scatter of the k copies
      // of each token a rank's experts receive (none with etp 1).
      const double k = d(a.experts_per_token);
      const double expert = collective(1, bytes * k * d(l.etp) / d(l.tp), l.etp, 1, true, n);
      t_tp = d(calls) / 2 *
             (d(stage_layers) * one + (d(stage_layers) - moe_layers) * one + moe_layers * expert);
    }
  }
  // Expert parallel: per MoE layer and micro-batch a dispatch and a combine
  // all-to-all forward, the same backward, again with full recompute; each
  // moves a rank's tokens (1/tp of them with sequence parallelism) x top-k
  // x hidden. Dropless and balanced (Megatron's default: no capacity factor,
  // the router's load-balancing loss); not overlapped with compute.
  double t_ep = 0;
  if (l.ep > 1 && moe_layers > 0) {
    const double bytes =
        tokens_mb / (l.sp ? d(l.tp) : 1.0) * d(a.experts_per_token) * d(a.hidden) * act_bytes;
    t_ep = moe_layers * d(calls) * detail::all_to_all(bytes, l.ep, l.etp, n);
  }
  // Context parallel: each rank passes its KV chunk around the ring cp-1
  // times forward and twice that backward (KV and its gradient), behind the
  // attention compute.
  double t_cp = 0;
  if (l.cp > 1) {
    const double kv = 2 * tokens_mb * d(a.kv_dim()) / d(l.tp) * act_bytes;
    const Group gr = group(l.cp, l.tp, n);
    const double per_layer = 3 * d(l.cp - 1) * (kv / gr.bw + n.intra_latency);
    const double attn = t_mb / d(stage_layers) * r.attention_share;
    t_cp = d(stage_layers) * (workload::detail::overlapped(attn, per_layer) - attn);
  }
  // Pipeline: one activation forward and one gradient backward per chunk
  // and micro-batch (1/tp of it with sequence parallelism, Megatron's
  // scatter-gather), over the network once a stage fills a node.
  double t_pp = 0;
  if (l.pp > 1) {
    const double bytes = tokens_mb * d(a.hidden) * act_bytes / (l.sp ? d(l.tp) : 1.0);
    const bool inter = l.tp * l.cp * l.pp > n.gpus_per_node;
    const double bw = inter ? n.inter_bw : n.intra_bw;
    t_pp =
        2 * d(l.vp) * (bytes / bw + n.base_latency + (inter ? n.inter_latency : n.intra_latency));
  }
  const double per_mb = t_mb + t_tp + t_cp + t_pp + t_ep;
  c.compute = m * t_mb;
  c.tp_comm = m * t_tp;
  c.ep_comm = m * t_ep;
  c.cp_comm = m * t_cp;
  c.pp_comm = m * t_pp;
  c.bubble = d(l.pp - 1) / d(l.vp) * per_mb;

  // Memory of the fullest stage, from the estimator's own terms.
  const auto mem = stage_memory(w, pre, l);
  c.memory = mem.memory;
  c.usable_bytes = workload::usable_bytes(w, *pre.gpu);
  c.fits = c.memory.device <= c.usable_bytes;

  // Data parallel: gradients reduced (and with ZeRO parameters gathered)
  // over the replicas and the context-parallel ranks (they hold the same
  // weights and saw different tokens: Megatron-LM's data-parallel group with
  // context parallel, torchtitan's dp x cp FSDP mesh), behind the backward
  // (forward) of a micro-batch. Experts replicated over tensor-parallel ranks
  // (etp < tp) reduce even without dp.
  const int dpc = l.zero_group();
  if (dpc > 1 || (mem.expert_params > 0 && l.expert_dp() > 1)) {
    const double grad_bytes = act_bytes == 4 ? wk::kGrad32 : wk::kGrad16;
    const double dense = mem.params - mem.expert_params;
    const double grads = dense * grad_bytes;
    const double weights = dense * act_bytes;
    const int stride = l.tp;  // the dp x cp group: every tp-th rank
    // Forward is 2 of the 6 (8 with full recompute, which runs in backward).
    const double fwd = t_mb * (l.recompute == Recompute::full ? 0.25 : 1.0 / 3);
    const double bwd = t_mb - fwd;
    auto hidden = [](double window, double comm) {
      return workload::detail::overlapped(window, comm) - window;
    };
    // The routed experts reduce over their own, smaller group: the expert
    // data parallel ranks, etp x ep apart (0 for dense models).
    const int edp = l.expert_dp(), estride = l.ep * l.etp;
    const double egrads = mem.expert_params * grad_bytes, eweights = mem.expert_params * act_bytes;
    const double rs =
        collective(1, grads, dpc, stride, false, n) + collective(1, egrads, edp, estride, false, n);
    const double ag = collective(1, weights, dpc, stride, false, n) +
                      collective(1, eweights, edp, estride, false, n);
    const double ar =
        collective(1, grads, dpc, stride, true, n) + collective(1, egrads, edp, estride, true, n);
    switch (detail::effective_sharding(l)) {
      case Sharding::none:
        c.dp_comm = hidden(bwd, ar);
        break;
      case Sharding::zero1:
        c.dp_comm = hidden(bwd, rs) + hidden(fwd, ag);
        break;
      case Sharding::zero2:
        c.dp_comm = m * hidden(bwd, rs) + hidden(fwd, ag);
        break;
      case Sharding::zero3:
        c.dp_comm = m * (hidden(fwd, ag) + hidden(bwd, ag + rs));
        break;
    }
  }
  c.step = c.compute + c.tp_comm + c.cp_comm + c.pp_comm + c.bubble + c.dp_comm + c.ep_comm;
  c.tokens_per_second = d(l.global_batch) * d(w.seq_len) / c.step;
  c.model_tflops_per_gpu = c.tokens_per_second * r.model_flops_per_token / d(l.gpus()) / 1e12;
  c.mfu = c.model_tflops_per_gpu * 1e12 / r.peak;
  c.goodput = goodput_at_scale(l.gpus());
  return c;
}

}  // namespace detail
}  // namespace gpuadvisor::plan
