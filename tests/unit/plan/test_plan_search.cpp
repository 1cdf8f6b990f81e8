// The plan search against brute force: on small spaces, pricing every
// combination of every dimension with no pruning gives the same ranked
// plans, layout for layout, as the branch-and-bound search.
#include <catch2/catch.hpp>

#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "unit/workload/helpers.hpp"

using namespace gpuadvisor;

namespace {

workload::Workload small_model(bool flash, int seq) {
  workload::WorkloadInput in;
  in.model_size = 1.3e9;
  in.arch.layers = 12;
  in.arch.hidden = 2048;
  in.arch.heads = 16;
  in.arch.vocab = 32000;
  in.seq_len = seq;
  in.tokens = 1e10;
  auto w = test::make(in);
  w.arch.flash_attention = flash;
  return w;
}

void same(const plan::PlanResult& a, const plan::PlanResult& b) {
  REQUIRE(a.plans.size() == b.plans.size());
  for (std::size_t i = 0; i < a.plans.size(); ++i) {
    INFO("plan " << i);
    CHECK(a.plans[i].gpu == b.plans[i].gpu);
    CHECK(a.plans[i].layout == b.plans[i].layout);
    CHECK(a.plans[i].hours == b.plans[i].hours);
  }
}

}  // namespace

TEST_CASE("plan search: branch-and-bound equals brute force on small spaces", "[plan][search]") {
  for (bool flash : {true, false}) {
    for (int seq : {2048, 8192}) {
      plan::Query q;
      q.w = small_model(flash, seq);
      q.gpus = {&test::gpu("a100-80gb-sxm"), &test::gpu("h100-sxm"), &test::gpu("rtx-4090")};
      q.min_gpus = 1;
      q.max_gpus = 32;
      q.top = 0;
      q.max_batch_tokens = 256.0 * seq;
      INFO("flash " << flash << " seq " << seq);
      const auto fast = plan::search(q);
      const auto slow = plan::brute_force(q);
      same(fast, slow);
      CHECK(fast.plans.size() > 20);
      CHECK(fast.evaluated < slow.evaluated);
    }
  }
}

TEST_CASE("plan search: a fixed global batch and a tight memory budget", "[plan][search]") {
  // A 20B model does not fit one 24 GB card: the search needs sharding,
  // recompute or model parallelism, and still agrees with brute force.
  workload::WorkloadInput in;
  in.model_size = 20e9;
  in.arch.layers = 16;
  in.arch.hidden = 6144;
  in.arch.heads = 48;
  in.seq_len = 2048;
  plan::Query q;
  q.w = test::make(in);
  q.gpus = {&test::gpu("rtx-4090"), &test::gpu("a100-40gb-sxm")};
  q.min_gpus = 8;
  q.max_gpus = 16;
  q.global_batch = 64;
  q.top = 0;
  const auto fast = plan::search(q);
  same(fast, plan::brute_force(q));
  REQUIRE_FALSE(fast.plans.empty());
  for (const auto& p : fast.plans) CHECK(p.cost.memory.device <= p.cost.usable_bytes);
}

TEST_CASE("plan search: the GPU counts searched", "[plan][search]") {
  CHECK(plan::gpu_counts(1, 8, 8) == std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(plan::gpu_counts(16, 32, 8) == std::vector<int>{16, 24, 32});
  // Dense to 64 nodes, then 2^k and 3·2^k nodes, and the bounds.
  const auto v = plan::gpu_counts(8 * 60, 8 * 200, 8);
  CHECK(v == std::vector<int>{480, 488, 496, 504, 512, 768, 1024, 1536, 1600});
}

TEST_CASE("plan: goodput falls with the GPU count, 90 % at 16,384", "[plan]") {
  CHECK(plan::goodput_at_scale(16384) == Approx(0.90));
  CHECK(plan::goodput_at_scale(8192) == Approx(0.95));
  CHECK(plan::goodput_at_scale(8) == Approx(1 - 0.1 * 8 / 16384.0));
}
