// Every megatron.sh plan writes builds the model it names: the model each
// file implies is rebuilt from Megatron-LM's documented defaults at the
// pinned commit (tests/data/megatron-defaults.json) and the arguments the
// file sets, then compared with the named model field by field and down to
// the exact parameter count, counted as Megatron-LM's modules hold them.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuadvisor/plan/emit.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "unit/workload/helpers.hpp"

using namespace gpuadvisor;
using nlohmann::json;

namespace {

const json& defaults() {
  static const json j = [] {
    std::ifstream in(test::data("megatron-defaults.json"));
    return json::parse(in);
  }();
  return j;
}

/// The arguments of PARALLEL_ARGS=( ... ): flag -> value ("" for a bare flag).
std::map<std::string, std::string> arguments(const std::string& script) {
  std::map<std::string, std::string> out;
  std::istringstream in(script);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "PARALLEL_ARGS=(") {
      inside = true;
    } else if (line == ")") {
      inside = false;
    } else if (inside) {
      const auto start = line.find("--");
      const auto space = line.find(' ', start);
      const std::string flag = line.substr(start, space - start);
      out[flag] = space == std::string::npos ? "" : line.substr(space + 1);
    }
  }
  return out;
}

/// What Megatron-LM builds: each argument the file gives, else its default.
struct Implied {
  std::map<std::string, std::string> args;
  [[nodiscard]] bool given(const std::string& f) const { return args.count(f) != 0; }
  [[nodiscard]] json value(const std::string& f) const {
    const auto& d = defaults()["defaults"].at(f);
    const auto it = args.find(f);
    if (it == args.end()) return d["default"];
    if (it->second.empty()) return d.at("set");
    if (d["default"].is_string()) return it->second;
    return json::parse(it->second);
  }
  [[nodiscard]] double number(const std::string& f) const { return value(f).get<double>(); }
  [[nodiscard]] double integer(const std::string& f) const {
    return json::parse(args.at(f)).get<double>();
  }
};

/// Parameters of the GPT model Megatron-LM builds from `m` (its modules'
/// tensors: embedding, positions, per layer two norms, QKV, projection,
/// the MLP or the MoE layer, the final norm and an untied output layer).
double megatron_parameters(const Implied& m, int tp) {
  const double h = m.integer("--hidden-size");
  const double layers = m.integer("--num-layers");
  const double heads = m.integer("--num-attention-heads");
  const double ffn = m.integer("--ffn-hidden-size");
  const double channels = m.given("--kv-channels") ? m.integer("--kv-channels") : h / heads;
  const double groups =
      m.value("--group-query-attention").get<bool>() ? m.number("--num-query-groups") : heads;
  const double vocab_in = m.integer("--vocab-size-of-tokenizer");
  const double multiple = m.number("--make-vocab-size-divisible-by") * tp;
  const double vocab = std::ceil(vocab_in / multiple) * multiple;
  const bool bias = m.value("--disable-bias-linear").get<bool>();
  const bool qkv_bias = bias || m.value("--add-qkv-bias").get<bool>();
  const bool gated = m.value("--swiglu").get<bool>();
  const double norm = m.value("--normalization") == "LayerNorm" ? 2 * h : h;
  const double q = heads * channels, kv = groups * channels;
  const double attention = h * (q + 2 * kv) + (qkv_bias ? q + 2 * kv : 0) + q * h + (bias ? h : 0);
  auto mlp = [&](double f) {
    const double up = gated ? 2 * f : f;
    return h * up + f * h + (bias ? up + h : 0);
  };
  double total = vocab * h + norm;  // embedding, final norm
  if (m.value("--position-embedding-type") == "learned_absolute")
    total += m.number("--max-position-embeddings") * h;
  if (m.value("--untie-embeddings-and-output-weights").get<bool>()) total += vocab * h;
  const bool moe = !m.value("--num-experts").is_null();
  std::vector<int> moe_layer(static_cast<std::size_t>(layers), moe ? 1 : 0);
  if (moe && m.given("--moe-layer-freq")) {
    auto pattern = m.args.at("--moe-layer-freq");  // '[1,0,...]'
    pattern = pattern.substr(1, pattern.size() - 2);
    const auto list = json::parse(pattern);
    for (std::size_t i = 0; i < moe_layer.size(); ++i) moe_layer[i] = list[i].get<int>();
  }
  for (int is_moe : moe_layer) {
    total += 2 * norm + attention;
    if (!is_moe) {
      total += mlp(ffn);
      continue;
    }
    const double experts = m.number("--num-experts");
    const double expert_ffn =
        m.given("--moe-ffn-hidden-size") ? m.number("--moe-ffn-hidden-size") : ffn;
    total += experts * h + experts * mlp(expert_ffn);  // router, experts
    if (!m.value("--moe-shared-expert-intermediate-size").is_null())
      total += mlp(m.number("--moe-shared-expert-intermediate-size"));
    if (m.value("--moe-shared-expert-gate").get<bool>()) total += h;
  }
  return total;
}

struct Emitted {
  workload::Workload w;
  plan::Plan p;
  std::string script;
};

Emitted emit_for(const workload::WorkloadInput& in) {
  Emitted e{test::make(in), {}, {}};
  plan::Query q;
  q.w = e.w;
  q.gpus = {&test::gpu("h100-sxm")};
  q.min_gpus = q.max_gpus = static_cast<int>(*in.gpus);
  auto r = plan::search(q);
  REQUIRE_FALSE(r.plans.empty());
  e.p = r.plans.front();
  e.script = plan::emit(e.w, e.p, {"megatron"}).front().content;
  return e;
}

/// The model the file implies equals `w`'s, to the parameter.
void check_builds(const Emitted& e, double published_params) {
  INFO(e.script);
  Implied m{arguments(e.script)};
  const auto& a = e.w.arch;
  const auto& b = a.build;
  m.args["--vocab-size-of-tokenizer"] = std::to_string(a.vocab);  // the tokenizer's tokens
  CHECK_THAT(e.script, Catch::Contains("as published"));
  CHECK(m.integer("--num-layers") == a.layers);
  CHECK(m.integer("--hidden-size") == a.hidden);
  CHECK(m.integer("--num-attention-heads") == a.heads);
  CHECK(m.value("--normalization") == (a.layernorm() ? "LayerNorm" : "RMSNorm"));
  CHECK(m.number("--norm-epsilon") == b.norm_eps);
  CHECK(m.value("--swiglu").get<bool>() == a.gated_ffn);
  CHECK(m.value("--untie-embeddings-and-output-weights").get<bool>() == !a.tied_embeddings);
  CHECK(m.number("--max-position-embeddings") == std::max(b.max_positions, e.w.seq_len));
  if (b.position == catalog::PositionEmbedding::rope) {
    CHECK(m.value("--position-embedding-type") == "rope");
    CHECK(m.number("--rotary-base") == b.rope_theta);
    CHECK(m.number("--rotary-percent") == b.rotary_fraction);
    CHECK(m.value("--rotary-interleaved").get<bool>() == b.rotary_interleaved);
    CHECK(m.value("--use-rope-scaling").get<bool>() == (b.rope_scaling > 0));
    if (b.rope_scaling > 0) CHECK(m.number("--rope-scaling-factor") == b.rope_scaling);
    // Rotary models train without dropout; Megatron-LM's default is 0.1.
    CHECK(m.number("--hidden-dropout") == 0);
    CHECK(m.number("--attention-dropout") == 0);
  } else {
    CHECK(m.value("--position-embedding-type") == "learned_absolute");
  }
  if (a.sliding_window > 0) {
    CHECK(m.args.at("--window-size") == std::to_string(a.sliding_window) + ",0");
  } else {
    CHECK(m.value("--window-size").is_null());
  }
  CHECK(megatron_parameters(m, e.p.layout.tp) == published_params);
}

}  // namespace

TEST_CASE("megatron.sh builds every preset plan lays out, or names what it cannot",
          "[plan][emit][megatron]") {
  // Megatron-LM's GPT model has no encoder, GeGLU, soft-capping, sandwich
  // norms or GPT-2's tanh GELU: these presets say so instead.
  const std::set<std::string> nearest{"gpt2", "gpt2-xl", "bert-large", "gemma-2-9b", "gemma-2-27b"};
  int exact = 0;
  for (const auto& preset : catalog::embedded_catalog().models) {
    if (preset.kind != catalog::ModelKind::transformer || preset.kv_lora_rank > 0) continue;
    INFO(preset.id);
    workload::WorkloadInput in;
    in.model = preset.id;
    in.gpu = "h100-sxm";
    in.gpus = preset.params > 100e9 ? 256 : 16;  // 405B needs more than two nodes
    in.tokens = 1e9;
    const auto e = emit_for(in);
    if (nearest.count(preset.id) != 0) {
      CHECK_THAT(e.script, Catch::Contains("# WARNING: Megatron-LM's GPT model cannot build"));
      continue;
    }
    check_builds(e, preset.params);
    ++exact;
  }
  CHECK(exact == 22);
}

TEST_CASE("megatron.sh builds a model read from a config.json", "[plan][emit][megatron]") {
  for (const char* name : {"qwen2-7b-instruct", "llama-3.2-3b", "mixtral-8x7b-v0.1"}) {
    INFO(name);
    workload::WorkloadInput in;
    in.model_definition = test::hf_fixture(name);
    in.gpu = "h100-sxm";
    in.gpus = 16;
    in.tokens = 1e9;
    const auto e = emit_for(in);
    check_builds(e, e.w.arch.params);  // counted from the file's shape
  }
}

TEST_CASE("torchtitan.sh names the config entry that builds the model, or says there is none",
          "[plan][emit][megatron]") {
  auto script = [](const char* model) {
    workload::WorkloadInput in;
    in.model = model;
    in.gpu = "h100-sxm";
    in.gpus = 16;
    in.tokens = 1e9;
    const auto w = test::make(in);
    plan::Query q;
    q.w = w;
    q.gpus = {&test::gpu("h100-sxm")};
    q.min_gpus = q.max_gpus = 16;
    const auto r = plan::search(q);
    REQUIRE_FALSE(r.plans.empty());
    return plan::emit(w, r.plans.front(), {"torchtitan"}).front().content;
  };
  // torchtitan's llama3 8B flavour is Llama 3.1 8B: theta 500,000 with scaling.
  CHECK_THAT(script("llama-3.1-8b"), Catch::Contains("\nCONFIG=${CONFIG:-llama3_8b}\n"));
  // Llama 3 8B has no rope scaling: torchtitan's entry would build another model.
  const auto llama3 = script("llama-3-8b");
  CHECK_THAT(llama3, Catch::Contains("has no config_registry entry that builds Llama 3 8B"));
  CHECK_THAT(llama3, Catch::Contains("${CONFIG:?set CONFIG"));
}
