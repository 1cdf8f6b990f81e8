// Mixture-of-experts serving layouts: expert parallelism and data-parallel
// attention (docs/serving.md section 2.1). Each memory and decode-step term
// by its own arithmetic, the imbalance bound, the layouts each engine
// accepts and the error for each kind that it refuses.
#include <cmath>

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

WorkloadInput moe(const std::string& model, int gpus, int conc, int ep, int dp) {
  WorkloadInput in;
  in.model = model;
  in.task = Task::inference;
  in.gpu = "h200-sxm";
  in.gpus = gpus;
  in.concurrency = conc;
  in.prompt_len = 1024;
  in.output_len = 1024;
  if (ep > 0) in.expert_parallel = ep;
  if (dp > 0) in.attention_dp = dp;
  return in;
}

/// Bytes of all routed experts at `bits` per weight.
double routed_bytes(const Workload& w, double bits) {
  const double e = w.arch.experts, k = w.arch.experts_per_token;
  return (w.counts.total - w.counts.active) * e / (e - k) * bits / 8;
}

}  // namespace

TEST_CASE("moe layout: the largest of m binomial loads, Gaussian bound", "[workload][serving]") {
  // One expert-parallel GPU: the mean.
  CHECK(detail::expected_max_binomial(32, 0.25, 1) == 8);
  // DeepSeek-V3 at one request on 8 GPUs: 32 experts each, each touched
  // with p = 8/256; the busiest of 8 expects 1 + sqrt(2 ln 8 · 31/32).
  CHECK(detail::expected_max_binomial(32, 1.0 / 32, 8) ==
        Approx(1 + std::sqrt(2 * std::log(8.0) * 31 / 32)).epsilon(kExact));
  // Never more than every expert of the GPU.
  CHECK(detail::expected_max_binomial(1, 0.25, 8) == 1);
}

TEST_CASE("moe layout: DP attention splits the requests' KV, replicates the rest",
          "[workload][serving]") {
  // DeepSeek-V3, fp8 on 8 H200, vLLM EP 8 x DP 8: each GPU keeps 32 whole
  // experts (1/8 of them) and a whole copy of everything else; its KV is
  // its rank's 64 / 8 = 8 requests of 2,048 tokens (multiple of 16) at
  // 61 x (512 + 64) x 2 = 70,272 bytes per token.
  auto in = moe("deepseek-v3", 8, 64, 8, 8);
  in.precision = Precision::fp8;
  const auto w = make(in);
  const auto m = memory_per_gpu(w, gpu("h200-sxm"), 8);
  const double routed = routed_bytes(w, 8);
  const double all = w.counts.linear * 1 + (w.counts.embedding + w.counts.norms) * 2;
  CHECK(m.weights == Approx(routed / 8 + (all - routed)).epsilon(kExact));
  CHECK(m.kv_cache == Approx(70272.0 * 8 * 2048).epsilon(kExact));
  CHECK(m.kv_cache_average == Approx(70272.0 * 8 * 1536).epsilon(kExact));
  // Tensor parallel over 8: the same expert bytes per GPU, the rest / 8,
  // and every request's latent on every GPU.
  const auto tp = memory_per_gpu(make(moe("deepseek-v3", 8, 64, 0, 0)), gpu("h200-sxm"), 8);
  const double routed16 = routed_bytes(w, 16);
  CHECK(tp.weights == Approx(w.counts.total * 2 / 8).epsilon(kExact));
  CHECK(tp.kv_cache == Approx(70272.0 * 64 * 2048).epsilon(kExact));
  // EP alone changes no byte of memory: E/ep whole experts = every expert / N.
  const auto ep = memory_per_gpu(make(moe("deepseek-v3", 8, 64, 8, 0)), gpu("h200-sxm"), 8);
  CHECK(ep.weights == Approx(tp.weights).epsilon(kExact));
  CHECK(ep.kv_cache == tp.kv_cache);
  CHECK(routed16 / 8 < tp.weights);
}

TEST_CASE("moe layout: the busiest expert-parallel GPU streams its touched experts",
          "[workload][serving]") {
  // Mixtral 8x7B (2 of 8 experts) on 8 H200, one request. Tensor parallel:
  // each GPU streams 1/8 of the 2 touched experts (p = 1/4 of 8). Expert
  // parallel: one whole expert per GPU, and the step waits for a GPU whose
  // expert is touched: 4x the mean.
  const double bw = 4800e9 * k::kDecodeBandwidthEfficiency;
  const auto tp_w = make(moe("mixtral-8x7b", 8, 1, 0, 0));
  const auto tp = serving_speed(tp_w, gpu("h200-sxm"), 8);
  const auto m = memory_per_gpu(tp_w, gpu("h200-sxm"), 8);
  const double routed = routed_bytes(tp_w, 16);
  CHECK(tp.step_weights_s ==
        Approx((m.weights - routed / 8 + routed * 0.25 / 8) / bw).epsilon(kExact));
  CHECK(tp.expert_imbalance == 1);
  const auto ep = serving_speed(make(moe("mixtral-8x7b", 8, 1, 8, 0)), gpu("h200-sxm"), 8);
  CHECK(ep.step_weights_s == Approx(m.weights / bw).epsilon(kExact));
  CHECK(ep.expert_imbalance == Approx(4).epsilon(kExact));
  // The all-reduces stay those of tensor parallelism: 2 per layer over 8.
  CHECK(ep.step_comm_s == Approx(tp.step_comm_s).epsilon(kExact));
  CHECK(ep.step_moe_comm_s == 0);
}

TEST_CASE("moe layout: DP attention exchanges tokens per MoE layer", "[workload][serving]") {
  // Mixtral on 8 H200 as 8 attention ranks of one GPU, 64 requests: no
  // tensor-parallel all-reduce; each of the 32 MoE layers all-gathers the
  // 64 tokens' hidden states (4,096 x 2 bytes) and reduce-scatters the
  // results: 2 x (10 us + 7/8 x 64 x 4096 x 2 B / bus bandwidth).
  const auto w = make(moe("mixtral-8x7b", 8, 64, 8, 8));
  const auto& g = gpu("h200-sxm");
  const auto s = serving_speed(w, g, 8);
  const double bus = detail::collective_link(g, 8).bytes_per_second;
  CHECK(s.step_comm_s == 0);
  CHECK(s.step_moe_comm_s ==
        Approx(32 * 2 * (k::kAllReduceLatencyFabric + 7.0 / 8 * 64 * 4096 * 2 / bus))
            .epsilon(kExact));
  CHECK(s.step_s ==
        Approx(std::max(s.step_weights_s, s.step_compute_s) + s.step_kv_s + s.step_elementwise_s +
               s.step_comm_s + s.step_moe_comm_s + s.step_overhead_s)
            .epsilon(kExact));
  // Each rank decodes its 8 requests: norms and activations of 8 tokens.
  const auto one = serving_speed(make(moe("mixtral-8x7b", 1, 8, 0, 0)), g, 1);
  CHECK(s.step_elementwise_s == Approx(one.step_elementwise_s).epsilon(kExact));
  // The pool of each rank holds its own requests: 8 x what one rank holds.
  const auto m = memory_per_gpu(w, g, 8);
  auto single = w;
  single.batch_size = 1;
  const double per = memory_per_gpu(single, g, 8).kv_cache;
  const double pool = 0.9 * available_bytes(g) - (m.device - m.kv_cache);
  CHECK(s.max_concurrency == static_cast<int>(std::floor(pool / per)) * 8);
}

TEST_CASE("moe layout: the layouts each engine accepts", "[workload][serving]") {
  const auto& a = make(moe("deepseek-v3", 8, 1, 0, 0)).arch;
  CHECK(valid_expert_layout(a, Engine::vllm, 8, 1, 1));
  CHECK(valid_expert_layout(a, Engine::vllm, 8, 8, 8));
  CHECK(valid_expert_layout(a, Engine::vllm, 8, 1, 8));
  CHECK(valid_expert_layout(a, Engine::vllm, 8, 1, 2));
  CHECK_FALSE(valid_expert_layout(a, Engine::vllm, 8, 4, 1));  // EP = TP x DP only
  CHECK(valid_expert_layout(a, Engine::sglang, 8, 4, 2));
  CHECK(valid_expert_layout(a, Engine::trtllm, 8, 4, 8));
  CHECK_FALSE(valid_expert_layout(a, Engine::trtllm, 8, 8, 2));  // attention DP: every GPU
  CHECK_FALSE(valid_expert_layout(a, Engine::hf, 8, 8, 1));
  CHECK_FALSE(valid_expert_layout(a, Engine::trtllm_0_6, 8, 1, 8));
  CHECK_FALSE(valid_expert_layout(a, Engine::sglang, 8, 3, 1));  // 3 does not divide 8
  const auto& mixtral = make(moe("mixtral-8x7b", 8, 1, 0, 0)).arch;
  CHECK_FALSE(valid_expert_layout(mixtral, Engine::sglang, 6, 6, 1));  // 8 experts / 6
  CHECK_FALSE(valid_expert_layout(mixtral, Engine::sglang, 6, 1, 2));  // attention TP 3
  const auto& dense = make(moe("llama-3.1-70b", 8, 1, 0, 0)).arch;
  CHECK(valid_expert_layout(dense, Engine::vllm, 8, 1, 1));
  CHECK_FALSE(valid_expert_layout(dense, Engine::vllm, 8, 1, 8));
}

TEST_CASE("moe layout: --ep and --attention-dp are checked", "[workload][serving]") {
  CHECK(reject(moe("llama-3.1-70b", 8, 1, 8, 0)) ==
        "--ep: applies to a mixture-of-experts model; Llama 3.1 70B is dense (data-parallel "
        "copies of a dense model are replicas)\n");
  CHECK(reject(moe("deepseek-v3", 8, 1, 3, 0)) == "--ep: expected a divisor of --gpus 8, got 3\n");
  CHECK(reject(moe("deepseek-v3", 8, 1, 4, 0)) ==
        "--ep: vllm's --enable-expert-parallel spreads the experts over every GPU (EP = TP x DP "
        "= 8); got 4\n");
  auto sg = moe("mixtral-8x7b", 6, 1, 6, 0);
  sg.engine = Engine::sglang;
  CHECK(reject(sg) == "--ep: 8 experts do not divide into 6 equal shares\n");
  sg.expert_parallel.reset();
  sg.attention_dp = 2;
  CHECK(reject(sg) ==
        "--attention-dp: attention over 3 GPUs per rank: 32 heads (8 KV heads) do not split 3 "
        "ways\n");
  auto trt = moe("deepseek-v3", 8, 1, 0, 2);
  trt.engine = Engine::trtllm;
  CHECK(reject(trt) ==
        "--attention-dp: trtllm's enable_attention_dp makes every GPU a rank (8); got 2\n");
  auto hf = moe("deepseek-v3", 8, 1, 8, 0);
  hf.engine = Engine::hf;
  CHECK(reject(hf) == "--ep: hf has no expert parallelism\n");
  auto train = moe("mixtral-8x7b", 8, 0, 8, 0);
  train.task = Task::lora;
  train.concurrency.reset();
  train.prompt_len.reset();
  train.output_len.reset();
  CHECK(reject(train) == "--ep: applies to serving a transformer (task inference)\n");
  // From a spec: located at its JSON path.
  CHECK(reject(moe("deepseek-v3", 8, 1, 3, 0), Origin::json("spec.json", "workloads[0]")) ==
        "spec.json: workloads[0].ep: expected a divisor of gpus 8, got 3\n");
}

TEST_CASE("moe layout: the assumptions state the layout", "[workload][serving]") {
  const auto w = make(moe("deepseek-v3", 8, 64, 8, 8));
  const auto has = [&](const std::string& text) {
    return std::find(w.assumptions.begin(), w.assumptions.end(), text) != w.assumptions.end();
  };
  CHECK(
      has("MoE layout: routed experts spread over 8 GPUs, 32 whole experts each (vllm "
          "--enable-expert-parallel); attention as 8 data-parallel ranks of 1 GPU, each with "
          "its share of the requests (vllm --data-parallel-size); MoE layers gather the ranks' "
          "tokens and reduce-scatter the results (the engines' default all-gather / "
          "reduce-scatter exchange)"));
  CHECK(
      has("expert parallel load: routing spread evenly, the step waits for the busiest GPU "
          "(the Gaussian bound on the largest of its GPUs' expert and token loads); no "
          "redundant experts (EPLB)"));
  const auto tp = make(moe("mixtral-8x7b", 2, 1, 0, 0));
  CHECK(std::find(tp.assumptions.begin(), tp.assumptions.end(),
                  "MoE layout: routed experts split by tensor parallelism over 2 GPUs (no --ep); "
                  "attention tensor parallel over 2 GPUs (no --attention-dp)") !=
        tp.assumptions.end());
}
