#include "serving_target.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/report/serving_plan_report.hpp"
#include "gpuadvisor/search/serving_target.hpp"

namespace gpuadvisor::cli {
namespace {

/// A positive number; with `seconds`, "500ms" and "0.5s" too.
std::optional<double> positive(const std::optional<std::string>& text, std::string_view flag,
                               bool seconds, double max, Diagnostics& diags) {
  if (!text) return std::nullopt;
  std::string_view s = *text;
  double scale = 1;
  if (seconds && s.ends_with("ms")) {
    s.remove_suffix(2);
    scale = 1e-3;
  } else if (seconds && s.ends_with("s")) {
    s.remove_suffix(1);
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(v) || v <= 0 ||
      v * scale > max) {
    diags.push_back(
        {std::string(flag), "",
         fmt::format("expected {} above 0 and at most {:g}, got \"{}\"",
                     seconds ? "a time (0.5, 0.5s or 500ms)" : "a number", max, *text)});
    return std::nullopt;
  }
  return v * scale;
}

}  // namespace

void add_serving_target_flags(CLI::App* cmd, ServingTargetFlags& f) {
  auto* s = cmd->add_option_group(
      "Serving target",
      "With --task inference: the GPUs, precision and replicas that serve this on whole builds "
      "(servers with every part, every rule) at the lowest total price, within --budget if given");
  s->add_option("--users", f.users, "Concurrent users (requests in flight)")->type_name("N");
  s->add_option("--tokens-per-second-per-user", f.per_user,
                "Output tokens/s each user must see while decoding (TPOT <= 1/R)")
      ->type_name("R");
  s->add_option("--throughput", f.throughput, "Output tokens/s in all, instead of --users")
      ->type_name("TOK/S");
  s->add_option("--max-ttft", f.max_ttft, "Longest time to first token: 0.5, 0.5s or 500ms")
      ->type_name("T");
  s->add_option("--max-tpot", f.max_tpot, "Longest time per output token: 0.05 or 50ms")
      ->type_name("T");
}

ExitCode run_serving_target(const Globals& g, const WorkloadFlags& wf, const ServingTargetFlags& f,
                            const search::Request& req, const rules::RuleSet& rs,
                            const catalog::Catalog& cat) {
  Diagnostics diags;
  search::ServingTarget t;
  if (auto u = positive(f.users, "--users", false, 1e7, diags)) {
    if (*u != std::floor(*u)) {
      diags.push_back({"--users", "", fmt::format("expected a whole number, got {}", *f.users)});
    } else {
      t.users = static_cast<int>(*u);
    }
  }
  t.tokens_per_second_user =
      positive(f.per_user, "--tokens-per-second-per-user", false, 1e5, diags);
  t.throughput = positive(f.throughput, "--throughput", false, 1e12, diags);
  t.max_ttft_s = positive(f.max_ttft, "--max-ttft", true, 3600, diags);
  t.max_tpot_s = positive(f.max_tpot, "--max-tpot", true, 60, diags);
  if (!wf.task || *wf.task != "inference") {
    diags.push_back({"--task", "",
                     "a serving target (--users, --throughput, ...) needs --task "
                     "inference"});
  }
  if (f.users && f.throughput) {
    diags.push_back({"--throughput", "",
                     "give --users (with a per-user rate) or --throughput, "
                     "not both"});
  } else if (!f.users && !f.throughput) {
    diags.push_back({"--users", "",
                     "a serving target needs --users with "
                     "--tokens-per-second-per-user, or --throughput"});
  } else if (f.users && !f.per_user && !f.max_tpot) {
    diags.push_back({"--tokens-per-second-per-user", "",
                     "required with --users (or --max-tpot): the rate each user must see"});
  }
  if (wf.concurrency || wf.batch_size) {
    diags.push_back({wf.concurrency ? "--concurrency" : "--batch-size", "",
                     "the plan chooses the requests per replica; drop it"});
  }
  if (wf.request_rate || wf.num_prompts) {
    diags.push_back({wf.request_rate ? "--request-rate" : "--num-prompts", "",
                     "the plan sizes each replica for its users kept in flight (the steady "
                     "state of a closed loop); drop it"});
  }
  if (!wf.model && !wf.model_size && !wf.model_config) {
    diags.push_back(
        {"--model-size", "", "required (or --model PRESET): the model's parameters, e.g. 70B"});
  }
  auto input = to_input(wf);
  if (!diags.empty()) throw InputError(std::move(diags));
  auto w = workload::resolve(input, cat, workload::Origin::flags());
  if (!w) throw InputError(std::move(w.error()));
  if (w->arch.kind != catalog::ModelKind::transformer) {
    throw InputError(Diagnostics{{"--model", "", "a serving target applies to transformers"}});
  }
  const auto plan = search::plan_serving(*w, cat, rs, t, req);
  if (g.format == "json") {
    emit(g, report::serving_plan_json(plan, *w, req).dump(2) + "\n");
  } else {
    const auto style = text_style(g);
    emit(g, report::serving_plan_text(plan, *w, req, style));
  }
  return plan.options.empty() ? ExitCode::no : ExitCode::ok;
}

}  // namespace gpuadvisor::cli
