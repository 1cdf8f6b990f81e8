// Serving: the memory terms term by term (exact arithmetic), the resolution
// of the serving flags with their errors, the decode-step parts, the
// concurrency the engines' pools hold and the weight precisions that fit.
#include <cmath>
#include <set>

#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "helpers.hpp"
#include "src/workload/model.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::kExact;
using gpuadvisor::test::make;
using gpuadvisor::test::reject;

namespace {

WorkloadInput serve(const std::string& model, int conc, int prompt, int output) {
  WorkloadInput in;
  in.model = model;
  in.task = Task::inference;
  in.concurrency = conc;
  in.prompt_len = prompt;
  in.output_len = output;
  return in;
}

}  // namespace

TEST_CASE("serving: KV cache at the final and the average context, blocks rounded up",
          "[workload][serving]") {
  // Llama 2 70B: 80 layers, 8 KV heads of 128: 2·80·8·128·2 = 327,680 B per token.
  auto in = serve("llama-2-70b", 10, 1000, 100);
  const auto w = make(in);
  CHECK(w.engine == Engine::vllm);
  const auto m = memory_per_gpu(w, gpu("h100-sxm"), 1);
  // vLLM blocks of 16: 1,100 -> 1,104 tokens; the average 1,050 -> 1,056.
  CHECK(m.kv_cache == Approx(327680.0 * 10 * 1104).epsilon(kExact));
  CHECK(m.kv_cache_average == Approx(327680.0 * 10 * 1056).epsilon(kExact));
  // TP 16 replicates the 8 KV heads: one per GPU, not half of one.
  const auto s = detail::settings_of(w);
  CHECK(detail::kv_bytes_per_token(w.arch, s, 16) == Approx(2.0 * 80 * 1 * 128 * 2));
  CHECK(detail::kv_bytes_per_token(w.arch, s, 4) == Approx(2.0 * 80 * 2 * 128 * 2));
  in.kv_precision = KvPrecision::fp8;
  CHECK(memory_per_gpu(make(in), gpu("h100-sxm"), 1).kv_cache ==
        Approx(327680.0 / 2 * 10 * 1104).epsilon(kExact));
}

TEST_CASE("serving: quantised weights keep embeddings and norms at 16 bits",
          "[workload][serving]") {
  auto in = serve("llama-2-7b", 1, 128, 128);
  in.precision = Precision::int4;
  const auto w = make(in);
  CHECK(w.quant == Quant::awq);  // the vLLM default for int4
  const auto& c = w.counts;
  const auto m = memory_per_gpu(w, gpu("a100-80gb-sxm"), 1);
  CHECK(m.weights ==
        Approx(c.linear * (4 + 20.0 / 128) / 8 + (c.embedding + c.norms) * 2).epsilon(kExact));
  CHECK(detail::weight_bits(Precision::int8, Quant::gptq) == 8 + 24.0 / 128);
  CHECK(detail::weight_bits(Precision::int4, Quant::bnb) == 4.5);
  CHECK(detail::weight_bits(Precision::int8, Quant::bnb) == 8);
  CHECK(detail::weight_bits(Precision::fp8, Quant::fp8) == 8);
  in.engine = Engine::hf;
  CHECK(make(in).quant == Quant::bnb);
}

TEST_CASE("serving: workspace over the prompt chunk, overhead by engine", "[workload][serving]") {
  auto in = serve("llama-2-7b", 60, 128, 2048);
  in.engine = Engine::trtllm_0_6;
  in.precision = Precision::fp16;
  const auto w = make(in);
  const auto m = memory_per_gpu(w, gpu("a100-80gb-sxm"), 1);
  const double tokens = 60.0 * 128;  // no chunking: every prompt in one pass
  CHECK(m.activations == Approx(2 * tokens * (3 * 4096 + 2 * 4096 + 2 * 11008)).epsilon(kExact));
  CHECK(m.logits == Approx(4.0 * 60 * 32000).epsilon(kExact));
  // TensorRT-LLM's own allocator: no fragmentation, no graphs kept.
  CHECK(m.device == Approx(m.peak_allocated + k::kCudaContextBytes).epsilon(kExact));
  CHECK(w.memory_margin == 0);
  // Published: this configuration ran on an 80 GB A100.
  CHECK(fit(w, gpu("a100-80gb-sxm"), 1).verdict == Verdict::fits);
  // vLLM chunks prefill at 8,192 tokens and keeps its graphs.
  in.engine = Engine::vllm;
  in.concurrency = 100;
  const auto v = memory_per_gpu(make(in), gpu("a100-80gb-sxm"), 1);
  CHECK(v.activations == Approx(2 * 8192.0 * (3 * 4096 + 2 * 4096 + 2 * 11008)).epsilon(kExact));
  CHECK(v.device == Approx(v.peak_allocated + k::kFragmentation * (v.activations + v.logits) +
                           k::kCudaContextBytes + engine_profile(Engine::vllm).graph_bytes)
                        .epsilon(kExact));
}

TEST_CASE("serving: the decode step adds its parts", "[workload][serving]") {
  auto in = serve("llama-2-70b", 32, 512, 512);
  in.gpus = 4;
  in.gpu = "h100-sxm";
  const auto w = make(in);
  const auto s = serving_speed(w, gpu("h100-sxm"), 4);
  CHECK(s.step_s == Approx(std::max(s.step_weights_s, s.step_compute_s) + s.step_kv_s +
                           s.step_elementwise_s + s.step_comm_s + s.step_overhead_s)
                        .epsilon(kExact));
  const auto m = memory_per_gpu(w, gpu("h100-sxm"), 4);
  CHECK(s.step_weights_s ==
        Approx(m.weights / (3350e9 * k::kDecodeBandwidthEfficiency)).epsilon(kExact));
  CHECK(s.step_kv_s ==
        Approx(m.kv_cache_average / (3350e9 * k::kDecodeBandwidthEfficiency)).epsilon(kExact));
  CHECK(s.step_comm_s > 0);
  // Under load: the benchmark's figures, and what one request gets of them.
  CHECK(s.tpot_s == s.load.tpot.mean);
  CHECK(s.ttft_s == s.load.ttft.mean);
  CHECK(s.output_tokens_per_second == s.load.output_throughput);
  CHECK(s.per_request_tokens_per_second == Approx(512 / s.load.e2el.mean).epsilon(kExact));
  // The others' prompts share the steps: a token takes longer than a decode step alone.
  CHECK(s.tpot_s > s.step_s);
  // HF's repeat_kv reads a grouped KV head 1 + 2·8 times; its launches scale with layers.
  in.engine = Engine::hf;
  const auto h = serving_speed(make(in), gpu("h100-sxm"), 4);
  CHECK(h.step_kv_s == Approx(17 * s.step_kv_s).epsilon(1e-9));
  CHECK(h.step_overhead_s == Approx(1e-3 + 80 * 0.75e-3));
}

TEST_CASE("serving: MoE decode streams the experts its tokens touch", "[workload][serving]") {
  // Mixtral 8x7B, 2 of 8 experts per token, bf16 over 2 H100s. One request:
  // each layer streams its 2 routed experts, not all 8, so the step reads
  // the active parameters only: the weights less (total − active) x 2 B / 2.
  auto in = serve("mixtral-8x7b", 1, 512, 128);
  in.gpus = 2;
  in.gpu = "h100-sxm";
  const auto one = make(in);
  const double bw = 3350e9 * k::kDecodeBandwidthEfficiency;
  const auto m = memory_per_gpu(one, gpu("h100-sxm"), 2);
  const auto s1 = serving_speed(one, gpu("h100-sxm"), 2);
  const double idle = (one.counts.total - one.counts.active) * 2 / 2;
  CHECK(s1.step_weights_s == Approx((m.weights - idle) / bw).epsilon(kExact));
  CHECK(s1.step_weights_s == Approx(one.counts.active * 2 / 2 / bw).epsilon(1e-3));
  // Four requests: 8·(1 − (6/8)^4) = 5.46875 distinct experts of 8 touched.
  in.concurrency = 4;
  const auto s4 = serving_speed(make(in), gpu("h100-sxm"), 2);
  const double routed = (one.counts.total - one.counts.active) * 8 / 6;
  CHECK(s4.step_weights_s ==
        Approx((m.weights - routed * (1 - 5.46875 / 8) * 2 / 2) / bw).epsilon(kExact));
  // 256 requests touch every expert: the step streams all the weights.
  in.concurrency = 256;
  const auto s256 = serving_speed(make(in), gpu("h100-sxm"), 2);
  CHECK(s256.step_weights_s == Approx(m.weights / bw).epsilon(1e-12));
}

TEST_CASE("serving: the concurrency the engine's pool holds", "[workload][serving]") {
  auto in = serve("llama-3.1-8b", 1, 1024, 1024);
  const auto w = make(in);
  const auto& g = gpu("h100-sxm");
  const auto m = memory_per_gpu(w, g, 1);
  const double fixed = m.device - m.kv_cache;
  const double pool = 0.90 * available_bytes(g) - fixed;
  CHECK(max_concurrency(w, g, 1) == static_cast<int>(std::floor(pool / m.kv_cache)));
  in.concurrency = max_concurrency(w, g, 1) + 1;
  CHECK(engine_fraction_needed(make(in), g, 1) > 0.90);
}

TEST_CASE("serving: weight precisions that fit", "[workload][serving]") {
  // Llama 3.1 70B at 16 bits (141 GB) cannot fit one 80 GB GPU; FP8 (~71 GB) and below do.
  const auto w = make(serve("llama-3.1-70b", 1, 1024, 128));
  const auto p = fitting_weight_precisions(w, gpu("h100-sxm"), 1);
  CHECK(p == std::vector<Precision>{Precision::fp8, Precision::int8, Precision::int4});
  CHECK(fitting_weight_precisions(w, gpu("h100-sxm"), 2).front() == Precision::bf16);
  // The fit suggests a quantised precision before more GPUs.
  const auto f = fit(w, gpu("h100-sxm"), 1);
  REQUIRE(f.verdict == Verdict::fits_with_changes);
  CHECK(f.fixed.precision == Precision::fp8);
}

TEST_CASE("serving: lengths, concurrency and formats resolve or are rejected",
          "[workload][serving]") {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.task = Task::inference;
  in.seq_len = 4096;
  auto w = make(in);
  CHECK(w.prompt_len == 3968);
  CHECK(w.output_len == 128);
  in.prompt_len = 4000;
  in.output_len = 200;
  CHECK(reject(in) == "--seq-len: --seq-len is 4096 but --prompt-len + --output-len is 4200\n");
  in = serve("llama-2-7b", 4, 100, 100);
  in.batch_size = 8;
  CHECK(reject(in) ==
        "--concurrency: --concurrency and --batch-size differ; for inference they are the "
        "same (requests in flight)\n");
  in = serve("llama-2-7b", 4, 100, 100);
  in.precision = Precision::int8;
  in.quant = Quant::awq;
  CHECK(reject(in) ==
        "--quant: awq does not go with --precision int8 (awq: int4; gptq, bnb: int8 or int4; "
        "fp8: fp8; none: 16-bit)\n");
  in.precision = Precision::int4;
  in.quant = Quant::bnb;
  in.engine = Engine::trtllm;
  CHECK(reject(in) == "--quant: trtllm does not load bnb weights\n");
  in = serve("llama-2-7b", 4, 100, 100);
  in.kv_precision = KvPrecision::int8;
  CHECK(reject(in) == "--kv-cache-precision: vllm has no int8 KV cache\n");
  WorkloadInput t;
  t.model = "llama-2-7b";
  t.task = Task::lora;
  t.precision = Precision::int4;
  CHECK(reject(t) ==
        "--precision: int4 weights are for serving (task inference); to train on a 4-bit base "
        "use task qlora\n");
  t.precision.reset();
  t.engine = Engine::vllm;
  CHECK(reject(t) == "--engine: applies to serving a transformer (task inference)\n");
}

TEST_CASE("serving: every engine name has its own profile row; no row is refused",
          "[workload][serving]") {
  // Each name the flags accept reads back as that engine, with its own row.
  std::set<std::string_view> rows;
  for (std::string_view name : kEngineNames) {
    const auto e = parse_engine(name);
    REQUIRE(e);
    CHECK(engine_profile(*e).engine == *e);
    CHECK(engine_profile(*e).name == name);
    rows.insert(engine_profile(*e).source);
  }
  CHECK(rows.size() == std::size(kEngineNames));
  // An engine without a row is an error, not vLLM's profile.
  CHECK_THROWS_WITH(engine_profile(static_cast<Engine>(99)),
                    "no serving-engine profile for engine 99");
}
