// Benchmarks of the plan search (docs/plan.md section 3, docs/performance.md):
// the searches of the issue and the docs, on the embedded catalog.
//
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUADVISOR_BUILD_BENCH=ON
//   cmake --build build-bench -j2 --target gpuadvisor-bench-plan
//   build-bench/bench/gpuadvisor-bench-plan
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/plan/plan.hpp"
#include "gpuadvisor/plan/query.hpp"

namespace {

using namespace gpuadvisor;

const catalog::Catalog& cat() {
  static const catalog::Catalog c = catalog::embedded_catalog();
  return c;
}

plan::Query query(workload::WorkloadInput in, std::vector<std::string> gpus, int lo, int hi) {
  auto w = workload::resolve(in, cat(), workload::Origin::flags());
  if (!w) throw std::runtime_error("workload rejected");
  plan::Query q;
  q.w = std::move(*w);
  if (gpus.empty()) {
    for (const auto& g : cat().gpus) q.gpus.push_back(&g);
  } else {
    for (const auto& id : gpus) q.gpus.push_back(cat().gpu(id));
  }
  q.min_gpus = lo;
  q.max_gpus = hi;
  return q;
}

void run(benchmark::State& state, const plan::Query& q) {
  std::uint64_t priced = 0;
  for (auto _ : state) {
    auto r = plan::search(q);
    priced = r.evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.counters["layouts"] = static_cast<double>(priced);
}

/// Llama 3.1 405B on 16,384 H100s (the example).
void BM_PlanLlama405B(benchmark::State& state) {
  workload::WorkloadInput in;
  in.model = "llama-3.1-405b";
  in.tokens = 15e12;
  run(state, query(in, {"h100-sxm"}, 16384, 16384));
}

/// A 1T GPT (PTD-P's shape) on 3,072 A100s.
void BM_Plan1T(benchmark::State& state) {
  workload::WorkloadInput in;
  in.model_size = 1e12;
  in.arch.layers = 128;
  in.arch.hidden = 25600;
  in.arch.heads = 160;
  in.arch.vocab = 51200;
  run(state, query(in, {"a100-80gb-sxm"}, 3072, 3072));
}

/// The same 1T model over every catalog GPU and 1 to 1,024 nodes.
void BM_Plan1TEveryGpuAndNodeCount(benchmark::State& state) {
  workload::WorkloadInput in;
  in.model_size = 1e12;
  run(state, query(in, {}, 8, 8192));
}

BENCHMARK(BM_PlanLlama405B)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Plan1T)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Plan1TEveryGpuAndNodeCount)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
