// The build spec of a recommended build: the input format `check` reads
// (docs/spec-format.md), not a rendering, so it is kept apart from the JSON.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/report/recommend_report.hpp"

namespace gpuadvisor::report {
namespace {

using nlohmann::ordered_json;
using search::RecommendedBuild;

}  // namespace

ordered_json recommend_spec(const RecommendedBuild& b, const search::Recommendation& r,
                            const search::Request& req) {
  const auto& c = b.candidate.choice;
  ordered_json spec;
  spec["schema_version"] = 1;
  spec["name"] = fmt::format("recommend-{}-{}x-{}", b.rank, c.gpus, c.gpu->id);
  spec["description"] = fmt::format("gpuadvisor recommend: {}x {} for {}", c.gpus, c.gpu->name,
                                    r.workload.model_name);
  ordered_json parts;
  parts["gpu"] = {{"id", c.gpu->id}, {"count", c.gpus}};
  parts["cpu"] = {{"id", c.cpu->id}, {"count", c.cpus}};
  parts["platform"] = {{"id", c.platform->id}};
  parts["memory"] = {{"id", c.memory->id}, {"count", c.memory_count}};
  parts["storage"] = ordered_json::array({{{"id", c.storage->id}, {"count", c.storage_count}}});
  if (!c.psu_from_platform) parts["psu"] = {{"id", c.psu->id}, {"count", c.psu_count}};
  if (c.cpu_cooler != nullptr && c.cpu_coolers > 0) {
    parts["cpu_cooler"] = {{"id", c.cpu_cooler->id}, {"count", c.cpu_coolers}};
  }
  if (c.cooling != nullptr && c.cooling_count > 0) {
    parts["cooling"] = ordered_json::array({{{"id", c.cooling->id}, {"count", c.cooling_count}}});
  }
  spec["parts"] = std::move(parts);
  if (req.circuit_w > 0 || req.voltage > 0 || req.region != "us") {
    ordered_json site;
    if (req.region != "us") site["region"] = req.region;
    if (req.circuit_w > 0) site["circuit_w"] = req.circuit_w;
    if (req.voltage > 0) site["voltage"] = req.voltage;
    spec["site"] = std::move(site);
  }
  ordered_json data;
  data["dataset_gb"] = r.dataset_gb;
  if (req.checkpoints) data["checkpoints"] = *req.checkpoints;
  spec["data"] = std::move(data);

  // The workload as given, with the changes the build needs and its GPU count.
  const auto& in = r.input;
  const auto& w = b.plan->workload;
  ordered_json wl;
  if (in.model) wl["model"] = *in.model;
  if (in.model_size) wl["model_size"] = *in.model_size;
  if (in.task) wl["task"] = workload::to_string(*in.task);
  if (in.precision) wl["precision"] = workload::to_string(*in.precision);
  if (in.optimizer) wl["optimizer"] = workload::to_string(*in.optimizer);
  if (in.batch_size || w.batch_size != r.workload.batch_size) wl["batch_size"] = w.batch_size;
  if (in.seq_len) wl["seq_len"] = *in.seq_len;
  if (in.lora_rank) wl["lora_rank"] = *in.lora_rank;
  wl["gpus"] = w.gpus;  // the build's GPUs; a serving build's copy of the model
  if (in.prompt_len) wl["prompt_len"] = *in.prompt_len;
  if (in.output_len) wl["output_len"] = *in.output_len;
  if (in.concurrency) wl["concurrency"] = *in.concurrency;
  if (in.request_rate) wl["request_rate"] = *in.request_rate;
  if (in.num_prompts) wl["num_prompts"] = *in.num_prompts;
  if (in.chunked_prefill) wl["chunked_prefill"] = *in.chunked_prefill;
  if (in.expert_parallel) wl["ep"] = *in.expert_parallel;
  if (in.attention_dp) wl["attention_dp"] = *in.attention_dp;
  if (in.engine) wl["engine"] = workload::to_string(*in.engine);
  if (in.kv_precision) wl["kv_cache_precision"] = workload::to_string(*in.kv_precision);
  if (in.quant) wl["quant"] = workload::to_string(*in.quant);
  if (in.tokens) wl["tokens"] = *in.tokens;
  if (in.epochs) wl["epochs"] = *in.epochs;
  if (in.dataset_tokens) wl["dataset_tokens"] = *in.dataset_tokens;
  if (in.grad_checkpointing || w.grad_checkpointing != r.workload.grad_checkpointing) {
    wl["grad_checkpointing"] = w.grad_checkpointing;
  }
  if (in.sharding || w.sharding != r.workload.sharding) {
    wl["sharding"] = workload::to_string(w.sharding);
  }
  if (w.selective_checkpointing && !w.grad_checkpointing) wl["grad_checkpointing"] = "selective";
  if (in.grad_accumulation) wl["grad_accumulation"] = *in.grad_accumulation;
  // The training stack and its recipe settings, as given (the spec keys of
  // parse_workload_json), so that the spec reproduces the estimate.
  if (in.framework) wl["framework"] = workload::to_string(*in.framework);
  if (in.loss) wl["loss"] = workload::to_string(*in.loss);
  if (in.master_weights) wl["master_weights"] = *in.master_weights ? "fp32" : "none";
  if (in.autocast) wl["autocast"] = *in.autocast;
  if (in.torch_version) wl["torch_version"] = *in.torch_version;
  if (in.optimizer_in_backward) wl["optimizer_in_backward"] = *in.optimizer_in_backward;
  if (in.activation_offload) wl["activation_offload"] = *in.activation_offload;
  if (in.lora_targets) wl["lora_targets"] = workload::lora_targets_text(*in.lora_targets);
  if (in.lora_fp32) wl["lora_dtype"] = *in.lora_fp32 ? "fp32" : "bf16";
  if (in.lora_dropout) wl["lora_dropout"] = *in.lora_dropout;
  if (in.nf4_double_quant) wl["nf4_double_quant"] = *in.nf4_double_quant;
  if (in.bnb_version) wl["bnb_version"] = *in.bnb_version;
  if (in.packed_doc_len) wl["packed_doc_len"] = *in.packed_doc_len;
  if (in.flash_attention) wl["flash_attention"] = *in.flash_attention;
  if (in.goodput) wl["goodput"] = *in.goodput;
  if (in.mfu) wl["mfu"] = *in.mfu;
  if (in.memory_margin) wl["memory_margin"] = *in.memory_margin;
  if (in.arch.layers) wl["layers"] = *in.arch.layers;
  if (in.arch.hidden) wl["hidden"] = *in.arch.hidden;
  if (in.arch.heads) wl["heads"] = *in.arch.heads;
  if (in.arch.kv_heads) wl["kv_heads"] = *in.arch.kv_heads;
  if (in.arch.head_dim) wl["head_dim"] = *in.arch.head_dim;
  if (in.arch.ffn) wl["ffn"] = *in.arch.ffn;
  if (in.arch.vocab) wl["vocab"] = *in.arch.vocab;
  spec["workloads"] = ordered_json::array({std::move(wl)});
  return spec;
}

}  // namespace gpuadvisor::report
