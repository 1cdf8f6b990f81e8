// Expert parallelism in the plan: the layouts Megatron-Core allows, the
// memory and all-to-all terms it changes, and the search still exact
// against brute force on small mixture-of-experts spaces.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "support/scratch.hpp"
#include "unit/workload/helpers.hpp"

using namespace gpuadvisor;
using nlohmann::json;

namespace {

/// A small model of Mixtral's form (8 experts, top-2) or Qwen2-MoE's (6
/// experts, top-2, a shared expert, MoE on every other layer).
workload::Workload small_moe(bool qwen, int seq = 2048) {
  json c = {{"hidden_size", 1024},      {"intermediate_size", 3584}, {"num_attention_heads", 8},
            {"num_key_value_heads", 8}, {"num_hidden_layers", 8},    {"vocab_size", 32000},
            {"num_experts_per_tok", 2}, {"hidden_act", "silu"},      {"tie_word_embeddings", false},
            {"rms_norm_eps", 1e-5}};
  if (qwen) {
    c["model_type"] = "qwen2_moe";
    c["architectures"] = {"Qwen2MoeForCausalLM"};
    c["num_experts"] = 6;
    c["moe_intermediate_size"] = 1024;
    c["shared_expert_intermediate_size"] = 2048;
    c["decoder_sparse_step"] = 2;
  } else {
    c["model_type"] = "mixtral";
    c["architectures"] = {"MixtralForCausalLM"};
    c["num_local_experts"] = 8;
  }
  const auto path = test::scratch_file(qwen ? "qwen-moe.json" : "mixtral.json", c.dump());
  auto d = workload::load_hf_config(path);
  if (!d) FAIL(to_string(d.error()));
  workload::WorkloadInput in;
  in.model_definition = std::move(*d);
  in.seq_len = seq;
  in.tokens = 1e10;
  return test::make(in);
}

plan::Layout base(int tp, int dp, int ep, int etp) {
  plan::Layout l;
  l.tp = tp;
  l.dp = dp;
  l.sp = tp > 1;
  l.ep = ep;
  l.etp = etp;
  l.global_batch = dp * 4;
  return l;
}

}  // namespace

TEST_CASE("plan experts: the layouts Megatron-Core allows", "[plan][experts]") {
  const auto w = small_moe(false);
  const auto net = plan::network_of(test::gpu("h100-sxm"));
  CHECK(plan::invalid_reason(w, base(1, 8, 8, 1), net).empty());
  CHECK(plan::invalid_reason(w, base(2, 4, 4, 2), net).empty());
  CHECK(plan::invalid_reason(w, base(2, 4, 8, 1), net).empty());
  // The experts divide by ep.
  CHECK(plan::invalid(w, base(1, 6, 3, 1), net).field == "ep");
  // etp x ep divides tp x cp x dp: 2 x 8 does not divide 2 x 4.
  CHECK(plan::invalid(w, base(2, 4, 8, 2), net).field == "ep");
  // etp divides tp.
  CHECK(plan::invalid(w, base(2, 4, 1, 4), net).field == "etp");
  // Sequence parallelism with ep and tp.
  auto no_sp = base(2, 4, 4, 1);
  no_sp.sp = false;
  CHECK(plan::invalid(w, no_sp, net).field == "sequence_parallel");
  // So with experts whole on each tensor-parallel rank (etp 1 below tp 2).
  auto whole = base(2, 4, 1, 1);
  whole.sp = false;
  CHECK(plan::invalid(w, whole, net).field == "sequence_parallel");
  // No FSDP / ZeRO-2 with ep; the distributed optimizer is fine.
  auto z = base(1, 8, 8, 1);
  z.sharding = workload::Sharding::zero3;
  CHECK(plan::invalid(w, z, net).field == "sharding");
  z.sharding = workload::Sharding::zero1;
  CHECK(plan::invalid_reason(w, z, net).empty());
  // A dense model has no experts to split.
  workload::WorkloadInput dense;
  dense.model = "llama-3-8b";
  dense.seq_len = 2048;
  CHECK(plan::invalid(test::make(dense), base(1, 8, 8, 1), net).field == "ep");
  // The expert-data-parallel group: tp x cp x dp / (etp x ep).
  CHECK(base(2, 4, 4, 1).expert_dp() == 2);
  CHECK(base(1, 16, 8, 1).expert_dp() == 2);
}

TEST_CASE("plan experts: ep divides the experts' states, the all-to-all crosses nodes late",
          "[plan][experts]") {
  const auto w = small_moe(false);
  const auto& g = test::gpu("h100-sxm");
  const auto net = plan::network_of(g);
  auto one = base(1, 16, 1, 1), eight = base(1, 16, 8, 1);
  for (auto* l : {&one, &eight}) l->sharding = workload::Sharding::zero1;
  const auto a = plan::evaluate(w, g, one, net);
  const auto b = plan::evaluate(w, g, eight, net);
  // Weights: the routed experts are 8 x 3 x 1024 x 3584 per layer, 8 layers,
  // 2 bytes each; EP 8 keeps one expert of each layer: 7/8 of them go.
  const double routed = 8.0 * 8 * 3 * 1024 * 3584;
  CHECK(a.memory.weights - b.memory.weights == Approx(routed * 7 / 8 * 2));
  // ZeRO-1 over the expert-data-parallel group (2 ranks) instead of 16: the
  // experts' optimizer states per GPU stay routed x 12 B / 16 either way.
  CHECK(a.memory.optimizer == Approx(b.memory.optimizer));
  CHECK(a.ep_comm == 0);
  CHECK(b.ep_comm > 0);
  // Within a node the all-to-all runs over NVLink; EP 8 at stride 2 (etp 2)
  // spans two nodes and pays the NIC.
  auto cross = base(2, 8, 8, 2);
  cross.sharding = workload::Sharding::zero1;
  auto inside = base(2, 8, 4, 2);
  inside.sharding = workload::Sharding::zero1;
  const auto c = plan::evaluate(w, g, cross, net);
  const auto d = plan::evaluate(w, g, inside, net);
  CHECK(c.ep_comm > 2 * d.ep_comm);
}

TEST_CASE("plan experts: branch-and-bound equals brute force on small MoE spaces",
          "[plan][experts][search]") {
  // Qwen's form also with EP 3 pinned: an expert split that is no power of two.
  for (int variant = 0; variant < 3; ++variant) {
    const bool qwen = variant > 0;
    plan::Query q;
    q.w = small_moe(qwen);
    if (variant == 2) q.pinned.ep = 3;
    q.gpus = {&test::gpu("h100-sxm"), &test::gpu("rtx-4090")};
    q.min_gpus = 1;
    q.max_gpus = 32;
    q.top = 0;
    q.max_batch_tokens = 128.0 * 2048;
    INFO("variant " << variant);
    const auto fast = plan::search(q);
    const auto slow = plan::brute_force(q);
    REQUIRE(fast.plans.size() == slow.plans.size());
    for (std::size_t i = 0; i < fast.plans.size(); ++i) {
      INFO("plan " << i);
      CHECK(fast.plans[i].layout == slow.plans[i].layout);
      CHECK(fast.plans[i].hours == slow.plans[i].hours);
    }
    CHECK(fast.evaluated < slow.evaluated);
    // Mixtral's form takes expert parallelism in some shapes (Qwen's, with
    // its small experts, in none unless pinned).
    const bool any_ep = std::any_of(fast.plans.begin(), fast.plans.end(),
                                    [](const plan::Plan& p) { return p.layout.ep > 1; });
    CHECK(any_ep == (variant != 1));
    if (variant == 2) CHECK(fast.plans.front().layout.ep == 3);
  }
}

TEST_CASE("plan experts: the layout summary names the expert split", "[plan][experts]") {
  auto l = base(4, 4, 1, 1);
  l.pp = 4;
  // Megatron's default etp is tp: a MoE layout says when it is not.
  CHECK(report::layout_summary(l, true) == "TP 4+SP PP 4 DP 4 ETP 1");
  CHECK(report::layout_summary(l, false) == "TP 4+SP PP 4 DP 4");
  l.ep = 4;
  l.etp = 4;
  CHECK(report::layout_summary(l, true) == "TP 4+SP PP 4 DP 4 EP 4");
}
