// Workload objects in JSON specs: the flag names with '_' for '-'.
#include <filesystem>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/hf_config.hpp"
#include "gpuadvisor/workload/workload.hpp"

namespace gpuadvisor::workload {
namespace {

constexpr auto kIntMin = std::numeric_limits<std::int64_t>::min();
constexpr auto kIntMax = std::numeric_limits<std::int64_t>::max();
constexpr double kNumMax = std::numeric_limits<double>::max();

/// A count given as a number (7e9) or as text with a suffix ("7B").
std::optional<double> count(ObjectReader& r, std::string_view key) {
  const auto* v = r.value(key, Need::optional);
  if (v == nullptr) return std::nullopt;
  if (v->is_number()) return r.number(key, -kNumMax, kNumMax, Need::optional);
  if (v->is_string()) {
    auto parsed = parse_count(v->get<std::string>());
    if (!parsed) {
      r.error(key, parsed.error());
      return std::nullopt;
    }
    return *parsed;
  }
  r.error(key, fmt::format("expected a number or a count such as \"7B\", got {}", describe(*v)));
  return std::nullopt;
}

template <typename E>
std::optional<E> named(ObjectReader& r, std::string_view key,
                       std::span<const std::string_view> names,
                       std::optional<E> (*parse)(std::string_view)) {
  auto idx = r.choice(key, names, Need::optional);
  if (!idx) return std::nullopt;
  return parse(names[*idx]);
}

constexpr std::string_view kMasterNames[] = {"fp32", "none"};
constexpr std::string_view kLoraDtypeNames[] = {"fp32", "bf16"};

/// A two-valued choice: the first name is true.
std::optional<bool> switch_of(ObjectReader& r, std::string_view key,
                              std::span<const std::string_view> names, bool first) {
  auto idx = r.choice(key, names, Need::optional);
  if (!idx) return std::nullopt;
  return *idx == 0 ? first : !first;
}

}  // namespace

WorkloadInput parse_workload_json(const nlohmann::json& v, const std::string& path,
                                  const std::string& file, Diagnostics& out) {
  WorkloadInput in;
  ObjectReader r(v, path, file, out);
  if (!r.ok()) return in;
  in.model = r.string("model", Need::optional);
  in.model_size = count(r, "model_size");
  if (auto cfg = r.string("model_config", Need::optional)) {
    // Relative to the spec, as a spec and its config usually travel together.
    std::filesystem::path p(*cfg);
    const auto dir = std::filesystem::path(file).parent_path();
    if (p.is_relative() && !dir.empty() && file != "-") p = dir / p;
    auto def = load_hf_config(p.string());
    if (def) {
      in.model_definition = std::move(*def);
    } else {
      for (auto& d : def.error()) add(out, std::move(d));
    }
  }
  in.task = named<Task>(r, "task", kTaskNames, parse_task);
  in.precision = named<Precision>(r, "precision", kPrecisionNames, parse_precision);
  in.optimizer = named<Optimizer>(r, "optimizer", kOptimizerNames, parse_optimizer);
  in.batch_size = r.integer("batch_size", kIntMin, kIntMax, Need::optional);
  in.grad_accumulation = r.integer("grad_accumulation", kIntMin, kIntMax, Need::optional);
  in.seq_len = r.integer("seq_len", kIntMin, kIntMax, Need::optional);
  in.lora_rank = r.integer("lora_rank", kIntMin, kIntMax, Need::optional);
  in.gpus = r.integer("gpus", kIntMin, kIntMax, Need::optional);
  in.tokens = count(r, "tokens");
  in.epochs = r.number("epochs", -kNumMax, kNumMax, Need::optional);
  in.dataset_tokens = count(r, "dataset_tokens");
  if (const auto* gc = r.value("grad_checkpointing", Need::optional); gc != nullptr) {
    if (gc->is_boolean()) {
      in.grad_checkpointing = gc->get<bool>();
    } else if (auto idx = r.choice("grad_checkpointing", kCheckpointingNames, Need::optional)) {
      const auto c = parse_checkpointing(kCheckpointingNames[*idx]);
      in.grad_checkpointing = c->full;
      in.selective_checkpointing = c->selective;
    }
  }
  in.framework = named<Framework>(r, "framework", kFrameworkNames, parse_framework);
  in.loss = named<Loss>(r, "loss", kLossNames, parse_loss);
  in.master_weights = switch_of(r, "master_weights", kMasterNames, true);
  in.optimizer_in_backward = r.boolean("optimizer_in_backward", Need::optional);
  in.activation_offload = r.boolean("activation_offload", Need::optional);
  in.lora_fp32 = switch_of(r, "lora_dtype", kLoraDtypeNames, true);
  in.nf4_double_quant = r.boolean("nf4_double_quant", Need::optional);
  in.bnb_version = r.string("bnb_version", Need::optional);
  in.autocast = r.boolean("autocast", Need::optional);
  in.torch_version = r.string("torch_version", Need::optional);
  in.lora_dropout = r.number("lora_dropout", -kNumMax, kNumMax, Need::optional);
  in.packed_doc_len = r.integer("packed_doc_len", kIntMin, kIntMax, Need::optional);
  in.flash_attention = r.boolean("flash_attention", Need::optional);
  if (auto t = r.string("lora_targets", Need::optional)) {
    in.lora_targets = parse_lora_targets(*t);
    if (!in.lora_targets) {
      r.error("lora_targets", fmt::format("expected all-linear, attention, qv or a list of "
                                          "q,k,v,o,gate,up,down, got \"{}\"",
                                          *t));
    }
  }
  in.sharding = named<Sharding>(r, "sharding", kShardingNames, parse_sharding);
  in.gpu = r.string("gpu", Need::optional);
  in.mfu = r.number("mfu", -kNumMax, kNumMax, Need::optional);
  in.memory_margin = r.number("memory_margin", -kNumMax, kNumMax, Need::optional);
  in.goodput = r.number("goodput", -kNumMax, kNumMax, Need::optional);
  in.prompt_len = r.integer("prompt_len", kIntMin, kIntMax, Need::optional);
  in.output_len = r.integer("output_len", kIntMin, kIntMax, Need::optional);
  in.concurrency = r.integer("concurrency", kIntMin, kIntMax, Need::optional);
  in.request_rate = r.number("request_rate", -kNumMax, kNumMax, Need::optional);
  in.num_prompts = r.integer("num_prompts", kIntMin, kIntMax, Need::optional);
  in.chunked_prefill = r.boolean("chunked_prefill", Need::optional);
  in.expert_parallel = r.integer("ep", kIntMin, kIntMax, Need::optional);
  in.attention_dp = r.integer("attention_dp", kIntMin, kIntMax, Need::optional);
  in.engine = named<Engine>(r, "engine", kEngineNames, parse_engine);
  in.kv_precision =
      named<KvPrecision>(r, "kv_cache_precision", kKvPrecisionNames, parse_kv_precision);
  in.quant = named<Quant>(r, "quant", kQuantNames, parse_quant);
  in.arch.layers = r.integer("layers", kIntMin, kIntMax, Need::optional);
  in.arch.hidden = r.integer("hidden", kIntMin, kIntMax, Need::optional);
  in.arch.heads = r.integer("heads", kIntMin, kIntMax, Need::optional);
  in.arch.kv_heads = r.integer("kv_heads", kIntMin, kIntMax, Need::optional);
  in.arch.head_dim = r.integer("head_dim", kIntMin, kIntMax, Need::optional);
  in.arch.ffn = r.integer("ffn", kIntMin, kIntMax, Need::optional);
  in.arch.vocab = r.integer("vocab", kIntMin, kIntMax, Need::optional);
  r.finish();
  return in;
}

}  // namespace gpuadvisor::workload
