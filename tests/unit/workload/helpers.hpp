#pragma once
// Shared fixtures of the workload tests: the embedded catalog with the
// calibration models of tests/data/workload-models.json layered on top.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/workload/hf_config.hpp"
#include "gpuadvisor/workload/workload.hpp"
#include "support/run.hpp"

namespace gpuadvisor::test {

/// Tolerance of values that are exact arithmetic on the model's numbers.
inline constexpr double kExact = 1e-12;

/// The single message reading HF config `j` produces, as the CLI prints it.
inline std::string rejected(const nlohmann::json& j) {
  auto d = workload::read_hf_config(j, "config.json");
  if (d) FAIL("accepted");
  REQUIRE(d.error().size() == 1);
  return d.error().front().str();
}

inline const catalog::Catalog& workload_catalog() {
  static const catalog::Catalog c = [] {
    const std::vector<std::string> files{data("workload-models.json")};
    auto r = catalog::load_catalog(files);
    if (!r) throw std::runtime_error(to_string(r.error()));
    return std::move(*r);
  }();
  return c;
}

/// The model read from tests/data/model-configs/NAME/config.json.
inline workload::ModelDefinition hf_fixture(const std::string& name) {
  auto d = workload::load_hf_config(data("model-configs/" + name + "/config.json"));
  if (!d) FAIL(to_string(d.error()));
  return std::move(*d);
}

inline const catalog::Gpu& gpu(const std::string& id) {
  const auto* g = workload_catalog().gpu(id);
  if (g == nullptr) throw std::runtime_error("no GPU " + id);
  return *g;
}

/// Model FLOPs per token as the papers count them for MFU (Megatron-LM,
/// LLM Foundry): the estimator's training FLOPs without recompute.
inline double model_flops_per_token(const workload::Workload& w) {
  auto plain = w;
  plain.grad_checkpointing = plain.selective_checkpointing = false;
  return workload::compute(plain, gpu(*w.gpu), w.gpus).flops_per_token;
}

/// Resolves `in` (from flags) or fails the test with the diagnostics.
inline workload::Workload make(const workload::WorkloadInput& in) {
  auto w = workload::resolve(in, workload_catalog(), workload::Origin::flags());
  if (!w) FAIL(to_string(w.error()));
  return std::move(*w);
}

/// The messages of an input that must be rejected.
inline std::string reject(const workload::WorkloadInput& in,
                          const workload::Origin& o = workload::Origin::flags()) {
  auto w = workload::resolve(in, workload_catalog(), o);
  if (w) FAIL("accepted");
  return to_string(w.error());
}

/// Relative error of a model value against a published figure.
inline double rel(double model, double figure) { return (model - figure) / figure; }

}  // namespace gpuadvisor::test
