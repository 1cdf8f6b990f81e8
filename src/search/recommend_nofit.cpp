// recommend's "nothing fits" searches: the cheapest build that breaks one
// rule, and the workload and constraint changes (trials) that would fit.
// Separate from the command: they run only when no build fits.
#include <fmt/format.h>

#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "recommend_impl.hpp"

namespace gpuadvisor::search {
namespace detail {

std::string change_text(const Trial& t, const Candidate& c) {
  switch (t.lifted) {
    case Lifted::none:
      return t.change;
    case Lifted::max_gpus:
      return fmt::format("--max-gpus {}", c.choice.gpus);
    case Lifted::vendor:
      return fmt::format("--vendor {}", c.choice.gpu->vendor);
    case Lifted::form_factor:
      return fmt::format("--form-factor {}", catalog::to_string(c.choice.platform->kind));
  }
  return t.change;
}

std::vector<Trial> trials(const Request& req, const workload::Workload& w) {
  std::vector<Trial> out;
  auto add = [&](std::string change, std::string why, auto edit) {
    Trial t{std::move(change), std::move(why), req.workload, req.constraints};
    edit(t);
    out.push_back(std::move(t));
  };
  using workload::Task;
  if (w.task == Task::pretrain || w.task == Task::finetune) {
    add("--task lora",
        "trains low-rank adapters on a frozen 16-bit base: no optimizer states "
        "or gradients for the base weights",
        [](Trial& t) { t.input.task = Task::lora; });
  }
  if (w.task == Task::pretrain || w.task == Task::finetune || w.task == Task::lora) {
    add("--task qlora",
        "adapters on a frozen 4-bit (NF4) base: about a quarter of the weight "
        "memory of LoRA",
        [](Trial& t) { t.input.task = Task::qlora; });
  }
  if (w.precision == workload::Precision::fp32) {
    add("--precision bf16", "mixed precision: 16-bit activations and tensor-core speed",
        [](Trial& t) { t.input.precision = workload::Precision::bf16; });
  }
  if (w.arch.kind == catalog::ModelKind::transformer && w.seq_len >= 1024) {
    for (int div : {2, 4}) {
      const int s = w.seq_len / div;
      add(fmt::format("--seq-len {}", s),
          fmt::format("activations grow with the sequence: {} instead of {} tokens", s, w.seq_len),
          [s](Trial& t) { t.input.seq_len = s; });
    }
  }
  if (w.training() && !req.dataset_gb && !req.workload.dataset_tokens && w.tokens > 1e9) {
    const double tokens = w.tokens / 10;
    add(fmt::format("--tokens {}", format_count(tokens)),
        "a tenth of the training tokens: a smaller dataset to store and a shorter run",
        [tokens](Trial& t) {
          t.input.tokens = tokens;
          t.input.epochs.reset();
        });
  }
  // FP8 matmuls need FP8 tensor cores (the search keeps to GPUs that have
  // them: SW004); not on a QLoRA base, whose 4-bit weights are dequantised to
  // 16 bits for every matmul.
  const bool sixteen_bit =
      w.precision == workload::Precision::bf16 || w.precision == workload::Precision::fp16;
  if (w.arch.kind == catalog::ModelKind::transformer && sixteen_bit && w.task != Task::qlora) {
    add("--precision fp8",
        w.task == Task::inference
            ? "8-bit weights: half the weight memory and bandwidth per token of 16-bit, on GPUs "
              "with FP8 tensor cores"
            : "FP8 matmuls (Transformer Engine) on GPUs with FP8 tensor cores: faster steps; "
              "master weights and optimizer states stay as they are",
        [](Trial& t) { t.input.precision = workload::Precision::fp8; });
  }
  // Weight-only integer formats for serving, on any GPU (the workload model's
  // default layouts: GPTQ int8 and AWQ int4, groups of 128).
  if (w.arch.kind == catalog::ModelKind::transformer && w.task == Task::inference &&
      (sixteen_bit || w.precision == workload::Precision::fp8 ||
       w.precision == workload::Precision::fp32)) {
    add("--precision int8",
        "8-bit integer weights (GPTQ, groups of 128): about half the weight memory of 16-bit, "
        "on any GPU",
        [](Trial& t) { t.input.precision = workload::Precision::int8; });
  }
  if (w.arch.kind == catalog::ModelKind::transformer && w.task == Task::inference &&
      w.precision != workload::Precision::int4) {
    add("--precision int4",
        "4-bit integer weights (AWQ, groups of 128): about a quarter of the weight memory of "
        "16-bit, with a small accuracy cost",
        [](Trial& t) { t.input.precision = workload::Precision::int4; });
  }
  if (!req.constraints.allow_used) {
    add("--allow-used", "used GPUs cost a fraction of new ones (with RISK001's warnings)",
        [](Trial& t) { t.constraints.allow_used = true; });
  }
  // Constraints the user set: each lifted on its own.
  auto lift = [&](Lifted what, std::string why, auto edit) {
    add("", std::move(why), edit);
    out.back().lifted = what;
  };
  if (req.constraints.max_gpus > 0) {
    lift(Lifted::max_gpus,
         fmt::format("more GPUs than --max-gpus {} allows", req.constraints.max_gpus),
         [](Trial& t) { t.constraints.max_gpus = 0; });
  }
  if (!req.constraints.vendor.empty()) {
    lift(Lifted::vendor, fmt::format("GPUs of any vendor, not only {}", req.constraints.vendor),
         [](Trial& t) { t.constraints.vendor.clear(); });
  }
  if (req.constraints.kind) {
    lift(Lifted::form_factor,
         fmt::format("any form factor, not only {}s", catalog::to_string(*req.constraints.kind)),
         [](Trial& t) { t.constraints.kind.reset(); });
  }
  return out;
}

}  // namespace detail

const rules::Finding* first_error(const RecommendedBuild& b) {
  for (const auto& f : b.findings) {
    if (f.severity == rules::Severity::error && !f.waived) return &f;
  }
  return nullptr;
}

std::optional<NearestBuild> nearest_breaking_one(
    const std::function<std::unique_ptr<Context>()>& make, RuleMask candidates,
    const Constraints& cons) {
  // A build that breaks the memory rule cannot run the job at all; one that
  // breaks another (the feed, the outlet, the slots) runs it once that is
  // changed: those come first, the cheapest of them, and the memory rule's
  // build only when no other rule's relaxation finds one.
  const auto memory = bit(rules::vram_fit_rule());
  std::optional<NearestBuild> best;
  for (const rules::RuleDecl* r : rules::registry()) {
    if ((candidates & bit(*r)) == 0) continue;
    auto relaxed = make();
    relaxed->relax(bit(*r));
    auto c = Searcher(*relaxed, cons).cheapest();
    if (!c) continue;
    const bool runs = bit(*r) != memory;
    const bool best_runs = best && bit(*best->rule) != memory;
    if (!best || (runs && !best_runs) || (runs == best_runs && c->price < best->candidate.price)) {
      best = NearestBuild{*c, r, std::move(relaxed)};
    }
  }
  return best;
}

}  // namespace gpuadvisor::search
