// estimate's JSON (data/schema/estimate.schema.json): the workload as
// resolved, memory per GPU, compute and the fit of every GPU.
#include <cmath>

#include <nlohmann/json.hpp>

#include "error_band.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/report/estimate_report.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/workload/fit_words.hpp"
#include "memory_terms.hpp"
#include "serving_report.hpp"

namespace gpuadvisor::report {
namespace {

using ojson = nlohmann::ordered_json;
using namespace workload;

double whole(double v) { return std::round(v); }

ojson memory_json(const MemoryBreakdown& m) {
  ojson j = detail::memory_terms_json(m);
  j["peak_allocated_bytes"] = whole(m.peak_allocated);
  j["peak_reserved_bytes"] = whole(m.peak_reserved);
  j["device_bytes"] = whole(m.device);
  j["total"] = whole(m.total);
  j["kv_cache_average"] = whole(m.kv_cache_average);
  return j;
}

ojson compute_json(const ComputeEstimate& c) {
  ojson j = {{"total_flops", round_significant(c.total_flops)},
             {"flops_per_token", round_significant(c.flops_per_token)},
             {"dense_flops", round_significant(c.dense_flops)},
             {"attention_flops", round_significant(c.attention_flops)},
             {"peak_tflops", round_significant(c.peak_tflops)},
             {"mfu", round_significant(c.mfu, 3)},
             {"mfu_basis", c.mfu_basis},
             {"goodput", c.goodput},
             {"tokens_per_second", round_significant(c.tokens_per_second)},
             {"samples_per_second", round_significant(c.samples_per_second)},
             {"achieved_tflops_per_gpu", round_significant(c.achieved_tflops_per_gpu)},
             {"time_hours", round_significant(c.time_hours)},
             {"gpu_hours", round_significant(c.gpu_hours)},
             {"energy_kwh", round_significant(c.energy_kwh)},
             {"power_fraction", c.power_fraction},
             {"notes", c.notes},
             {"error_band", detail::error_band_json(c.error_band)},
             {"latency_error_band",
              c.serving ? detail::error_band_json(c.latency_band) : nlohmann::ordered_json()}};
  add_serving_compute_json(j, c);
  return j;
}

}  // namespace

ojson estimate_json(const Estimate& e) {
  const auto& w = e.workload;
  const auto& a = w.arch;
  ojson j;
  j["schema_version"] = kEstimateSchemaVersion;
  ojson arch{{"origin", std::string(to_string(a.origin))},
             {"description", a.origin_text},
             {"kind", catalog::to_string(a.kind)},
             {"params", a.params}};
  if (a.kind == catalog::ModelKind::transformer) {
    arch["layers"] = a.layers;
    arch["hidden"] = a.hidden;
    arch["heads"] = a.heads;
    arch["kv_heads"] = a.kv_heads;
    arch["ffn"] = a.ffn;
    arch["vocab"] = a.vocab;
    arch["gated_ffn"] = a.gated_ffn;
    arch["flash_attention"] = a.flash_attention;
    arch["head_dim"] = a.head_dim();
    arch["tied_embeddings"] = a.tied_embeddings;
    arch["experts"] = a.experts;
    arch["experts_per_token"] = a.experts_per_token;
    arch["expert_ffn"] = a.expert_ffn;
    arch["shared_expert_ffn"] = a.shared_expert_ffn;
    arch["moe_layers"] = a.moe_layers();
    arch["sliding_window"] = a.sliding_window;
    arch["sliding_window_layers"] = a.sliding_window_layers;
    if (a.mla()) {
      arch["latent_attention"] = {{"q_lora_rank", a.q_lora_rank},
                                  {"kv_lora_rank", a.kv_lora_rank},
                                  {"qk_nope_head_dim", a.qk_nope_head_dim},
                                  {"qk_rope_head_dim", a.qk_rope_head_dim},
                                  {"v_head_dim", a.v_head_dim}};
    }
  } else {
    arch["flops_per_sample"] = a.flops_per_sample;
    arch["activation_bytes_per_sample"] = a.activation_bytes_per_sample;
  }
  j["workload"] = {
      {"model", w.model_id.empty() ? ojson(nullptr) : ojson(w.model_id)},
      {"model_name", w.model_name},
      {"task", std::string(to_string(w.task))},
      {"precision", std::string(to_string(w.precision))},
      {"optimizer", w.training() ? ojson(std::string(to_string(w.optimizer))) : ojson(nullptr)},
      {"sharding", std::string(to_string(w.sharding))},
      {"batch_size", w.batch_size},
      {"seq_len", w.seq_len},
      {"lora_rank", w.lora_rank},
      {"gpus", w.gpus},
      {"grad_checkpointing", w.grad_checkpointing || w.selective_checkpointing},
      {"checkpointing", w.grad_checkpointing        ? "full"
                        : w.selective_checkpointing ? "selective"
                                                    : "off"},
      {"framework", std::string(to_string(w.framework))},
      {"loss", std::string(to_string(w.loss))},
      {"loss_bytes_per_logit", w.loss_bytes},
      {"master_weights", w.master_weights},
      {"optimizer_in_backward", w.optimizer_in_backward},
      {"activation_offload", w.activation_offload},
      {"lora_targets", w.adapters() ? ojson(lora_targets_text(w.lora_targets)) : ojson(nullptr)},
      {"goodput", w.goodput},
      {"tokens", w.tokens},
      {"serving", serving_workload_json(w)},
      {"architecture", arch},
      {"parameters",
       {{"total", w.counts.total},
        {"active", w.counts.active},
        {"trainable", whole(w.counts.trainable)},
        {"adapters", whole(w.counts.adapters)}}}};
  if (e.layout) {
    j["layout"] = layout_json(w, e.layout->layout);
    j["layout"]["step_seconds"] = step_json(e.layout->cost);
    j["layout"]["chosen_by"] = e.planned ? "plan" : "flags";
    j["layout"]["measured"] = measured_json(e.measured, e.layout->cost.mfu);
    if (e.planned) {
      const auto& p = *e.planned;
      j["layout"]["search"] = {{"layouts_priced", p.evaluated},
                               {"shapes_fit", p.shapes},
                               {"slowest_time_ratio", round_significant(p.slowest)},
                               {"batch_tokens_bound", p.batch_tokens},
                               {"published_batch_tokens", p.published_tokens}};
    } else {
      j["layout"]["search"] = nullptr;
    }
  } else {
    j["layout"] = nullptr;
  }
  j["disaggregated"] = e.disaggregated ? disaggregated_json(*e.disaggregated) : ojson(nullptr);
  j["memory"] = {{"gpu", e.gpu ? ojson(e.gpu->id) : ojson(nullptr)},
                 {"gpus", w.gpus},
                 {"per_gpu_bytes", memory_json(e.memory)}};
  if (e.gpu && !e.rows.empty()) {
    j["compute"] = compute_json(e.rows.front().compute);
    j["compute"]["gpu"] = e.gpu->id;
  } else {
    j["compute"] = {{"gpu", nullptr},
                    {"total_flops",
                     e.rows.empty() ? 0.0 : round_significant(e.rows.front().compute.total_flops)},
                    {"tokens_per_second", nullptr},
                    {"time_hours", nullptr},
                    {"gpu_hours", nullptr},
                    {"mfu", nullptr},
                    {"energy_kwh", nullptr}};
  }
  ojson fit = ojson::array();
  for (const auto& row : e.rows) {
    const auto& f = row.fit;
    const std::string reason = workload::shortfall_sentence(f);
    ojson changes = ojson::array();
    for (const auto& c : f.changes) {
      changes.push_back({{"kind", std::string(to_string(c.kind))},
                         {"description", workload::change_sentence(c)},
                         {"per_gpu_bytes", whole(c.memory.total)}});
    }
    ojson entry{{"gpu", f.gpu},
                {"verdict", std::string(to_string(f.verdict))},
                {"fits", f.verdict == Verdict::fits},
                {"gpus", f.gpus},
                {"per_gpu_bytes", whole(f.per_gpu_bytes)},
                {"available_bytes", whole(f.available_bytes)},
                {"usable_bytes", whole(f.usable_bytes)},
                {"changes", changes},
                {"reason", reason.empty() ? ojson(nullptr) : ojson(reason)},
                {"compute", compute_json(row.compute)},
                {"compute_with_changes",
                 row.with_changes ? compute_json(*row.with_changes) : ojson(nullptr)}};
    fit.push_back(std::move(entry));
  }
  j["fit"] = std::move(fit);
  j["assumptions"] = w.assumptions;
  return j;
}

}  // namespace gpuadvisor::report
