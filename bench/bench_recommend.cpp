// Benchmarks of catalog parsing and `recommend` on synthetic catalogs of 1k to
// 100k parts (search/synthetic.hpp). docs/performance.md has the figures.
//
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUADVISOR_BUILD_BENCH=ON
//   cmake --build build-bench -j2 --target gpuadvisor-bench
//   build-bench/bench/gpuadvisor-bench --benchmark_counters_tabular=true
#include <map>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "gpuadvisor/search/synthetic.hpp"

namespace {

using namespace gpuadvisor;

/// The synthetic catalog of `parts` parts, as JSON text and parsed (built once).
struct Fixture {
  std::string text;
  catalog::Catalog catalog;
};

const Fixture& fixture(std::size_t parts) {
  static std::map<std::size_t, Fixture> cache;
  auto it = cache.find(parts);
  if (it != cache.end()) return it->second;
  Fixture f;
  const auto c = search::synthetic_catalog(catalog::embedded_catalog(), {parts, 42});
  f.text = search::catalog_document(c);
  auto parsed = catalog::parse_catalog(f.text, "synthetic.json", false);
  if (!parsed) throw std::runtime_error("synthetic catalog rejected");
  f.catalog = std::move(*parsed);
  return cache.emplace(parts, std::move(f)).first->second;
}

/// Parsing and validating a catalog document, as `--catalog FILE` does
/// (parse_catalog + check_references), from text in memory.
void BM_ParseCatalog(benchmark::State& state) {
  const auto& f = fixture(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto c = catalog::parse_catalog(f.text, "synthetic.json", false);
    auto refs = catalog::check_references(*c, *c, "synthetic.json");
    benchmark::DoNotOptimize(refs);
  }
  state.counters["parts"] = static_cast<double>(state.range(0));
  state.counters["MB"] = static_cast<double>(f.text.size()) / 1e6;
}

search::Request request(double budget, const char* size, workload::Task task,
                        search::Objective objective) {
  search::Request r;
  r.workload.model_size = std::stod(size);
  r.workload.task = task;
  r.constraints.budget = search::to_cents(budget);
  r.constraints.objective = objective;
  r.constraints.top = 3;
  return r;
}

/// The whole library call of `recommend` on a parsed catalog: workload,
/// search, and the assembled builds (findings, power, memory, time, tips).
void run_recommend(benchmark::State& state, const search::Request& req) {
  const auto& f = fixture(static_cast<std::size_t>(state.range(0)));
  const auto& rules = rules::embedded_rule_set();
  search::SearchStats stats;
  std::size_t builds = 0;
  for (auto _ : state) {
    auto rec = search::recommend(f.catalog, rules, req);
    if (!rec) throw std::runtime_error("recommend failed");
    stats = rec->stats;
    builds = rec->builds.size();
    benchmark::DoNotOptimize(rec);
  }
  state.counters["parts"] = static_cast<double>(state.range(0));
  state.counters["builds"] = static_cast<double>(builds);
  state.counters["groups"] = static_cast<double>(stats.groups);
  state.counters["completed"] = static_cast<double>(stats.completed);
  state.counters["platforms"] = static_cast<double>(stats.platforms);
  state.counters["skus"] = static_cast<double>(stats.unique_parts);
}

/// The README's query: $20k, a 7B model (LoRA fine-tuning), fastest first.
void BM_Recommend_20k_7B_time(benchmark::State& state) {
  run_recommend(state, request(20000, "7e9", workload::Task::lora, search::Objective::time));
}

/// Cheapest builds for QLoRA of a 7B model on $8k.
void BM_Recommend_8k_7B_qlora_cost(benchmark::State& state) {
  run_recommend(state, request(8000, "7e9", workload::Task::qlora, search::Objective::cost));
}

/// Pretraining a 13B model on $400k: multi-GPU servers, throughput per dollar.
void BM_Recommend_400k_13B_pretrain_ppd(benchmark::State& state) {
  run_recommend(
      state, request(400000, "13e9", workload::Task::pretrain, search::Objective::perf_per_dollar));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (long n : {1000L, 3000L, 10000L, 30000L, 100000L}) b->Arg(n);
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_ParseCatalog)->Apply(sizes);
BENCHMARK(BM_Recommend_20k_7B_time)->Apply(sizes);
BENCHMARK(BM_Recommend_8k_7B_qlora_cost)->Apply(sizes);
BENCHMARK(BM_Recommend_400k_13B_pretrain_ppd)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
