// Expert parallelism for mixture-of-experts models, as Megatron-Core lays it
// out (docs/plan.md section 2.6): which (ep, etp) a shape allows, the rules a
// layout must meet, and the cost of the token all-to-alls.
#include <algorithm>

#include <fmt/format.h>

#include "cost_internal.hpp"
#include "gpuadvisor/core/arith.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::plan::detail {
std::vector<ExpertSplit> expert_splits(const workload::Workload& w, int tp, int cp, int dp) {
  const auto& a = w.arch;
  if (!a.moe() || a.moe_layers() == 0) return {{1, 1}};
  std::vector<ExpertSplit> out;
  const int n = tp * cp * dp;
  // ep: any divisor of the experts (Megatron-LM: num_experts % ep == 0);
  // etp: a power of two up to tp, tp first (Megatron's default etp = tp).
  // Both carved out of tp x cp x dp (parallel_state: the world size divides
  // by etp x ep x pp).
  for (int ep = 1; ep <= std::min(a.experts, n); ++ep) {
    if (a.experts % ep != 0) continue;
    for (int etp = tp; etp >= 1; etp /= 2) {
      if (tp % etp != 0 || n % (ep * etp) != 0) continue;
      out.push_back({ep, etp});
    }
  }
  return out;
}

Invalid expert_invalid(const workload::Workload& w, const Layout& l, const Network& net) {
  const auto& a = w.arch;
  if (l.ep < 1 || l.etp < 1) return {"ep", "every degree is at least 1"};
  if (!a.moe() || a.moe_layers() == 0) {
    if (l.ep > 1 || l.etp > 1) return {"ep", "expert parallelism needs a mixture-of-experts model"};
    return {};
  }
  if (a.experts % l.ep != 0)
    return {"ep", fmt::format("the {} experts must divide by expert parallel (Megatron-LM: "
                              "num_experts % expert_model_parallel_size == 0)",
                              a.experts)};
  if (l.etp > net.domain)
    return {"etp", fmt::format("expert tensor parallel {} exceeds the {}-GPU NVLink domain", l.etp,
                               net.domain)};
  if (l.etp > l.tp || l.tp % l.etp != 0)
    return {"etp", "expert tensor parallel must divide tensor parallel (the plan's layouts)"};
  if ((l.tp * l.cp * l.dp) % (l.ep * l.etp) != 0)
    return {"ep",
            "expert tensor x expert parallel must divide tp x cp x dp (Megatron-Core "
            "parallel_state: the world size divides by etp x ep x pp)"};
  // Experts not split like the rest of the layer (ep > 1, or etp below tp)
  // take each tensor-parallel rank's own tokens: sequence parallel ones.
  if ((l.ep > 1 || l.etp < l.tp) && l.tp > 1 && !l.sp)
    return {"sequence_parallel",
            "expert parallelism (or expert tensor parallel below tp) with tensor parallelism "
            "needs sequence parallelism (Megatron-Core MoE)"};
  if (l.ep > 1 && l.sharding >= workload::Sharding::zero2)
    return {"sharding",
            "ZeRO-2/3 do not combine with expert parallelism (Megatron-LM: FSDP is not "
            "supported with expert parallelism; its distributed optimizer is ZeRO-1)"};
  return {};
}

double moe_layers_per_stage(const workload::Architecture& a, int stage_layers) {
  if (!a.moe() || a.layers == 0) return 0;
  return d(stage_layers) * d(a.moe_layers()) / d(a.layers);
}

double all_to_all(double bytes, int size, int stride, const Network& n) {
  if (size <= 1 || bytes <= 0) return 0;
  // Megatron's rank order puts etp fastest, then ep: the ep ranks sit `stride`
  // apart, so a node holds gpus_per_node / stride of them. Each GPU keeps 1/size
  // of its tokens, sends the rest to the peers in its node over NVLink and to
  // the others over its own NIC at the same time; the slower part sets the time.
  const int in_node = std::clamp(n.gpus_per_node / std::max(1, stride), 1, size);
  const double intra = bytes * d(in_node - 1) / d(size) / n.intra_bw;
  const double inter = size > in_node ? bytes * d(size - in_node) / d(size) / n.inter_bw : 0;
  return std::max(intra, inter) + n.base_latency +
         (size > in_node ? n.inter_latency : n.intra_latency);
}

}  // namespace gpuadvisor::plan::detail
