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
#include "gpuadvisor/catalog/packed.hpp"
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

const Fixture& fixture(std::size_t parts, bool distinct = false) {
  static std::map<std::pair<std::size_t, bool>, Fixture> cache;
  auto it = cache.find({parts, distinct});
  if (it != cache.end()) return it->second;
  Fixture f;
  const auto c = search::synthetic_catalog(catalog::embedded_catalog(), {parts, 42, distinct});
  f.text = search::catalog_document(c);
  auto parsed = catalog::parse_catalog(f.text, "synthetic.json", false);
  if (!parsed) throw std::runtime_error("synthetic catalog rejected");
  f.catalog = std::move(*parsed);
  return cache.emplace(std::make_pair(parts, distinct), std::move(f)).first->second;
}

/// Parsing a catalog document: JSON, every field validated and read into the
/// part structs (parse_catalog), from text in memory.
void BM_ParseCatalog(benchmark::State& state) {
  const auto& f = fixture(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto c = catalog::parse_catalog(f.text, "synthetic.json", false);
    benchmark::DoNotOptimize(c);
  }
  state.counters["parts"] = static_cast<double>(state.range(0));
  state.counters["MB"] = static_cast<double>(f.text.size()) / 1e6;
}

/// The loader's cross-reference check of a parsed catalog (check_references),
/// which `--catalog FILE` runs after parsing.
void BM_CheckReferences(benchmark::State& state) {
  const auto& f = fixture(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto refs = catalog::check_references(f.catalog, f.catalog, "synthetic.json");
    benchmark::DoNotOptimize(refs);
  }
  state.counters["parts"] = static_cast<double>(state.range(0));
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
void run_recommend(benchmark::State& state, const search::Request& req, bool distinct = false) {
  const auto& f = fixture(static_cast<std::size_t>(state.range(0)), distinct);
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

/// The README's query when no two listings are the same SKU (worst case).
void BM_Recommend_20k_7B_time_distinct(benchmark::State& state) {
  run_recommend(state, request(20000, "7e9", workload::Task::lora, search::Objective::time), true);
}

/// 7B pretraining on $20k: nothing fits on the smaller catalogs (the cheapest
/// build at any price, then one search per alternative: LoRA, QLoRA, ...);
/// the larger ones have listings cheap enough.
void BM_Recommend_20k_7B_pretrain(benchmark::State& state) {
  run_recommend(state, request(20000, "7e9", workload::Task::pretrain, search::Objective::time));
}

/// The README's query on the embedded catalog (already parsed), and parsing
/// the embedded catalog itself: together, the work of one process.
void BM_Recommend_embedded(benchmark::State& state) {
  const auto& cat = catalog::embedded_catalog();
  const auto& rules = rules::embedded_rule_set();
  search::Request req = request(20000, "7e9", workload::Task::lora, search::Objective::time);
  for (auto _ : state) {
    auto rec = search::recommend(cat, rules, req);
    benchmark::DoNotOptimize(rec);
  }
  state.counters["parts"] = static_cast<double>(search::hardware_parts(cat));
}

void BM_ParseEmbedded(benchmark::State& state) {
  const std::string text = search::catalog_document(catalog::embedded_catalog());
  for (auto _ : state) {
    auto c = catalog::parse_catalog(text, "embedded.json", false);
    benchmark::DoNotOptimize(c);
  }
}

/// What start-up does instead: the packed form the build embeds.
void BM_UnpackEmbedded(benchmark::State& state) {
  const std::string bytes = catalog::pack_catalog(catalog::embedded_catalog());
  for (auto _ : state) {
    auto c = catalog::unpack_catalog(bytes);
    benchmark::DoNotOptimize(c);
  }
}

void sizes(benchmark::internal::Benchmark* b) {
  for (long n : {1000L, 3000L, 10000L, 30000L, 100000L}) b->Arg(n);
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_ParseEmbedded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UnpackEmbedded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Recommend_embedded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseCatalog)->Apply(sizes);
BENCHMARK(BM_CheckReferences)->Apply(sizes);
BENCHMARK(BM_Recommend_20k_7B_time)->Apply(sizes);
BENCHMARK(BM_Recommend_8k_7B_qlora_cost)->Apply(sizes);
BENCHMARK(BM_Recommend_400k_13B_pretrain_ppd)->Apply(sizes);
BENCHMARK(BM_Recommend_20k_7B_pretrain)->Apply(sizes);
BENCHMARK(BM_Recommend_20k_7B_time_distinct)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
