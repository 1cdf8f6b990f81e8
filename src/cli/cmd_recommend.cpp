// `gpuadvisor recommend --budget AMOUNT --model-size SIZE`: the best builds for
// a budget and a workload; exit 1 with the reasons when nothing fits.
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/core/number.hpp"
#include "gpuadvisor/report/recommend_report.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/search/recommend.hpp"
#include "serving_target.hpp"
#include "workload_flags.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kRecommendFormats{"text", "json", "html"};
/// Builds the HTML chart asks the search for: more than any catalog has GPU
/// models times counts within one budget.
constexpr int kConsideredBuilds = 1000;

struct RecommendOptions {
  WorkloadFlags workload;
  std::string region;
  std::optional<std::string> budget, max_gpus, vendor, form_factor, circuit, voltage, objective,
      top, electricity_price, pue, dataset_gb, checkpoints, clean_margin, horizon, utilisation,
      max_days, fx, nodes, rack_power, fabric;
  ServingTargetFlags serving;
  bool allow_used = false;
  std::string rules_file;
  std::string policy;
};

/// A plain number, optionally with a unit suffix (`unit`, case-insensitive)
/// or a leading "$".
std::optional<double> number(const std::optional<std::string>& text, std::string_view flag,
                             std::string_view unit, double min, double max, std::string_view what,
                             Diagnostics& diags) {
  if (!text) return std::nullopt;
  std::string_view s = *text;
  if (!unit.empty() && s.size() > unit.size()) {
    const auto tail = s.substr(s.size() - unit.size());
    bool same = true;
    for (std::size_t i = 0; i < unit.size(); ++i) {
      same = same && std::tolower(static_cast<unsigned char>(tail[i])) ==
                         std::tolower(static_cast<unsigned char>(unit[i]));
    }
    if (same) s.remove_suffix(unit.size());
  }
  if (s.starts_with("$")) s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(v) ||
      v < min || v > max) {
    diags.push_back({std::string(flag), "", fmt::format("expected {}, got \"{}\"", what, *text)});
    return std::nullopt;
  }
  return v;
}

std::optional<int> whole(const std::optional<std::string>& text, std::string_view flag, int min,
                         int max, Diagnostics& diags) {
  if (!text) return std::nullopt;
  int v = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (text->empty() || ec != std::errc{} || ptr != text->data() + text->size() || v < min ||
      v > max) {
    diags.push_back(
        {std::string(flag), "",
         fmt::format("expected a whole number from {} to {}, got \"{}\"", min, max, *text)});
    return std::nullopt;
  }
  return v;
}

template <std::size_t N>
std::optional<std::string> choice(const std::optional<std::string>& text, std::string_view flag,
                                  const std::string_view (&names)[N], Diagnostics& diags) {
  if (!text) return std::nullopt;
  for (auto n : names) {
    if (n == *text) return *text;
  }
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) {
    expected += i == 0 ? "" : (i + 1 == N ? " or " : ", ");
    expected += names[i];
  }
  diags.push_back(
      {std::string(flag), "", fmt::format("unknown value \"{}\"; expected {}", *text, expected)});
  return std::nullopt;
}

/// The assumption a budget in another currency than the region's adds: the
/// amount as read and the rate it is converted at; "" in the region's own.
std::string budget_note(const std::string& text, const rules::Region& region,
                        const MoneyFormat& money) {
  const auto a = parse_amount(text, region.currency);
  if (!a || a->currency == region.currency) return "";
  const double rate = rules::rate_for(a->currency, region, money.per_usd);
  const std::string read = format_money(a->value, a->currency);
  return fmt::format(
      "budget {}{} = {} at {} {} per US dollar (the dated rate of the region that uses it, "
      "data/regions.json){}",
      read, a->yuan_from_numeral ? fmt::format(" ({}: 万 and 亿 write yuan)", a->currency) : "",
      money(a->value / rate), format_decimal(rate, 4), a->currency,
      a->yuan_from_numeral && region.currency != "CNY"
          ? "; --region cn prices the build in China with yuan throughout"
          : "");
}

search::Request to_request(const RecommendOptions& o) {
  Diagnostics diags;
  search::Request req;
  // The workload flags report their own problems; collect them with ours.
  try {
    req.workload = to_input(o.workload);
  } catch (const InputError& e) {
    diags = e.diags;
  }
  auto& c = req.constraints;
  req.region = checked_region(o.region);
  const rules::Region& region = *rules::find_region(req.region);
  req.money = rules::money_format(region, checked_fx(o.region, o.fx));
  if (!o.budget && o.serving.given()) {
    // A serving target is planned at the lowest total price; --budget caps it.
  } else if (!o.budget) {
    diags.push_back({"--budget", "", "required: the most the build may cost, e.g. 20000 or 20k"});
  } else if (auto usd = rules::amount_to_usd(*o.budget, region, req.money.per_usd); !usd) {
    diags.push_back({"--budget", "", usd.error()});
  } else if (!(*usd >= 1) || *usd > 1e9) {
    diags.push_back({"--budget", "",
                     fmt::format("expected an amount from {} to {}, got \"{}\"", req.money(1),
                                 req.money(1e9), *o.budget)});
  } else {
    c.budget = search::to_cents(*usd);
    req.budget_note = budget_note(*o.budget, region, req.money);
  }
  if (!o.workload.model && !o.workload.model_size && !o.workload.model_config &&
      !o.serving.given()) {
    diags.push_back(
        {"--model-size", "", "required (or --model PRESET): the model's parameters, e.g. 7B"});
  }
  if (auto n = whole(o.max_gpus, "--max-gpus", 1, 64, diags)) c.max_gpus = *n;
  if (auto v = choice(o.vendor, "--vendor", catalog::kGpuVendors, diags)) c.vendor = *v;
  c.allow_used = o.allow_used;
  if (auto f = choice(o.form_factor, "--form-factor", catalog::kPlatformKindNames, diags)) {
    c.kind = *f == catalog::to_string(catalog::PlatformKind::rack) ? catalog::PlatformKind::rack
                                                                   : catalog::PlatformKind::tower;
  }
  if (auto v = choice(o.objective, "--objective", search::kObjectiveNames, diags)) {
    c.objective = *search::parse_objective(*v);
  }
  if (auto n = whole(o.top, "--top", 1, 20, diags)) c.top = *n;
  if (auto w = number(o.circuit, "--circuit", "W", 100, 1e6,
                      "the circuit's rating in watts (volts x amps), e.g. 1800 or 3680", diags)) {
    req.circuit_w = *w;
  }
  if (auto v = number(o.voltage, "--voltage", "V", 90, 480, "a supply voltage from 90 to 480 V",
                      diags)) {
    req.voltage = *v;
  }
  // The region's price (data/regions.json) unless --electricity-price, which
  // is US dollars in every region.
  req.electricity_usd_per_kwh = rules::electricity_usd_per_kwh(region, req.money.per_usd);
  req.electricity_note = region.electricity.note;
  if (auto p = number(o.electricity_price, "--electricity-price", "/kWh", 0, 10,
                      "a price in USD per kWh from 0 to 10, e.g. 0.12", diags)) {
    req.electricity_usd_per_kwh = *p;
    req.electricity_note = region.currency == "USD"
                               ? ""
                               : fmt::format("--electricity-price {} USD", *o.electricity_price);
  }
  if (o.clean_margin) {
    const bool pct = o.clean_margin->ends_with('%');
    if (auto m = number(o.clean_margin, "--clean-margin", "%", 0, pct ? 100 : 1,
                        "a share of the build's price: 0 to 1 or 0% to 100%, e.g. 10%", diags)) {
      req.clean_margin = pct ? *m / 100 : *m;
    }
  }
  if (auto h = number(o.horizon, "--horizon", "months", 1, 240,
                      "a horizon in months from 1 to 240, e.g. 36", diags)) {
    req.horizon_months = *h;
  }
  if (o.utilisation) {
    const bool pct = o.utilisation->ends_with('%');
    if (auto u = number(o.utilisation, "--utilisation", "%", pct ? 1 : 0.01, pct ? 100 : 1,
                        "a share of the time the build trains: 0.01 to 1 or 1% to 100%", diags)) {
      req.utilisation = pct ? *u / 100 : *u;
    }
  }
  if (auto d = number(o.max_days, "--max-days", "", 1, 36500,
                      "a number of days from 1 to 36500, e.g. 90", diags)) {
    req.max_days = *d;
  }
  if (auto p = number(o.pue, "--pue", "", 1, 3, "a PUE from 1.0 to 3.0, e.g. 1.4", diags)) {
    req.pue = *p;
  }
  if (auto gb = number(o.dataset_gb, "--dataset-gb", "GB", 0, 1e9,
                       "the dataset's size in GB, e.g. 500", diags)) {
    req.dataset_gb = *gb;
  }
  if (auto n = whole(o.checkpoints, "--checkpoints", 0, 1000, diags)) req.checkpoints = *n;
  if (auto n = whole(o.nodes, "--nodes", 2, search::kMaxClusterNodes, diags)) {
    req.cluster.nodes = *n;
  }
  if (auto w = number(o.rack_power, "--rack-power", "kW", 1, 1000,
                      "a rack's power in kW from 1 to 1000, e.g. 17 or 40kW", diags)) {
    req.cluster.rack_power_w = *w * 1000;
  }
  static constexpr std::string_view kFabrics[] = {"infiniband", "ethernet"};
  if (auto f = choice(o.fabric, "--fabric", kFabrics, diags)) req.cluster.fabric = *f;
  if (!diags.empty()) throw InputError(std::move(diags));
  return req;
}

/// What to run next, as commands to copy: the first build in detail, and
/// this query's builds as JSON specs and as an HTML report.
std::string next_steps(const Globals& g, const RecommendOptions& o,
                       const search::Recommendation& rec) {
  if (rec.builds.empty()) return "";
  const auto& first = rec.builds.front().candidate.choice;
  std::vector<std::string> estimate{"gpuadvisor", "estimate"};
  for (const auto& w : workload_args(o.workload)) estimate.push_back(w);
  if (!o.workload.task && rec.input.task) {
    estimate.insert(estimate.end(), {"--task", std::string(workload::to_string(*rec.input.task))});
  }
  estimate.insert(estimate.end(), {"--gpu", first.gpu->id, "--gpus", std::to_string(first.gpus)});
  std::vector<std::string> again{"gpuadvisor"};
  for (const auto& a : args_without_output(g)) again.push_back(a);
  auto json = again;
  json.insert(json.end(), {"--format", "json", "--output", "builds.json"});
  auto html = again;
  html.insert(html.end(), {"--format", "html", "--output", "builds.html"});
  return fmt::format(
      "\nNext: build #1 term by term; each build's spec for 'gpuadvisor check'; the charts:\n"
      "  {}\n  {}\n  {}\n",
      shell_command(estimate), shell_command(json), shell_command(html));
}

ExitCode run_recommend(const Globals& g, const RecommendOptions& o) {
  require_format(g, "recommend", kRecommendFormats);
  if (o.serving.given()) {
    if (g.format == "html") {
      throw InputError(Diagnostics{{"--format", "", "a serving plan is text or json"}});
    }
    const search::Request base = to_request(o);  // constraints, region, workload flags
    auto rs = rules::load_rule_set(o.rules_file, o.policy);
    if (!rs) throw InputError(std::move(rs.error()));
    const auto cat = rules::regional_catalog(load_catalog(g), *rules::find_region(base.region),
                                             base.money.per_usd);
    return run_serving_target(g, o.workload, o.serving, base, *rs, cat);
  }
  const search::Request req = to_request(o);
  auto rs = rules::load_rule_set(o.rules_file, o.policy);
  if (!rs) throw InputError(std::move(rs.error()));
  // Parts not sold in the region are left out; its own-currency prices used.
  const auto cat =
      rules::regional_catalog(load_catalog(g), *rules::find_region(req.region), req.money.per_usd);
  auto rec = search::recommend(cat, *rs, req);
  if (!rec) throw InputError(std::move(rec.error()));
  if (g.format == "json") {
    emit(g, report::recommend_json(*rec, req, *rs).dump(2) + "\n");
  } else if (g.format == "html") {
    // The chart shows every build considered: the same search with room for
    // every GPU model and count within the budget.
    search::Request wide = req;
    wide.constraints.top = kConsideredBuilds;
    auto all = search::recommend(cat, *rs, wide);
    emit(g, report::recommend_html(*rec, req, *rs, all ? &*all : nullptr));
  } else {
    const auto style = text_style(g);
    emit(g, report::recommend_text(*rec, req, *rs, style) + next_steps(g, o, *rec));
  }
  return rec->builds.empty() ? ExitCode::no : ExitCode::ok;
}

}  // namespace

void register_recommend(CLI::App& app, Globals& g, Registry& r) {
  auto o = std::make_shared<RecommendOptions>();
  CLI::App* cmd = app.add_subcommand(
      "recommend", "The best builds for a budget and a model: exit 0 with builds, 1 if none fits");
  cmd->footer(R"(
Builds are searched exactly over the catalog: one GPU model x count, the platform,
CPU, memory, drives, PSUs and cooling that pass every error rule at the lowest price,
ranked by --objective. Each build shows its parts and prices, power budget, memory
per GPU, time to train, electricity and the warnings it accepts; --format json adds
a spec for 'gpuadvisor check'. When nothing fits: the nearest build, the smallest
budget that works and the workload changes that would fit. docs/recommend.md.

Examples:
  gpuadvisor recommend --budget 20000 --model-size 7B
  gpuadvisor recommend --budget 8k --model llama-3-8b --task qlora --objective cost
  gpuadvisor recommend --budget 300k --model-size 13B --task pretrain --form-factor rack
  gpuadvisor recommend --budget 15000 --model mistral-7b --task lora --circuit 1800
  gpuadvisor recommend --budget 20000 --model-size 7B --format json --output builds.json
  gpuadvisor recommend --region cn --budget 15万 --model-size 7B --task lora
  gpuadvisor recommend --task inference --model llama-3.1-70b --users 50 \
      --tokens-per-second-per-user 20 --max-ttft 2s

Exit codes: 0 builds found, 1 nothing fits (the output says why), 2 bad input.)");
  add_workload_flags(cmd, o->workload, /*with_gpu=*/false, "lora; CNN presets: pretrain");
  add_serving_target_flags(cmd, o->serving);
  auto* k = cmd->add_option_group("Constraints", "What the build may be");
  k->add_option("--budget", o->budget,
                "Most the build may cost, in the --region currency: 20000, 20k, $20,000; in cn "
                "also \u00a5150000, 15\u4e07, 150k CNY (an explicit currency converts)")
      ->type_name("AMOUNT");
  k->add_option("--max-gpus", o->max_gpus, "At most N GPUs")->type_name("N");
  set_choices(
      k->add_option("--vendor", o->vendor, "GPU vendor: nvidia or amd (default any)")
          ->type_name("V"),
      std::vector<std::string>(std::begin(catalog::kGpuVendors), std::end(catalog::kGpuVendors)));
  k->add_flag("--allow-used", o->allow_used, "Consider used GPU listings too");
  set_choices(
      k->add_option("--form-factor", o->form_factor, "tower or rack (default any)")->type_name("F"),
      std::vector<std::string>(std::begin(catalog::kPlatformKindNames),
                               std::end(catalog::kPlatformKindNames)));
  k->add_option("--circuit", o->circuit,
                "Circuit rating, W (volts x amps), read in --region: 1800 = 15 A/120 V, 3680 = "
                "16 A/230 V (default: the region's outlet for towers, feed for racks)")
      ->type_name("W");
  k->add_option("--voltage", o->voltage,
                "Supply voltage (default: the region's, for the --circuit given)")
      ->type_name("V");
  add_region_option(k, o->region);
  add_fx_option(k, o->fx);
  k->add_option("--rules", o->rules_file, "Rules file layered over the embedded rules")
      ->type_name("FILE")
      ->check(non_empty("a rules file"));
  add_policy_option(k, o->policy);
  auto* out = cmd->add_option_group("Ranking and costs", "How builds are ranked and costed");
  set_choices(out->add_option("--objective", o->objective,
                              "time (default), cost or perf-per-dollar (throughput per dollar)")
                  ->type_name("O"),
              std::vector<std::string>{std::begin(search::kObjectiveNames),
                                       std::end(search::kObjectiveNames)});
  out->add_option("--clean-margin", o->clean_margin,
                  "A build without avoidable warnings (PSU rating, NVMe, memory channels, RAM) "
                  "is chosen when it costs at most this much more than the cheapest: 10% "
                  "(default); 0 takes the cheapest")
      ->type_name("PCT");
  out->add_option("--horizon", o->horizon,
                  "Months over which owning is compared with renting the same work (default 36)")
      ->type_name("MONTHS");
  out->add_option("--utilisation", o->utilisation,
                  "Share of the horizon the build trains, for buy vs rent: 50% (default) or 0.5")
      ->type_name("PCT");
  out->add_option("--max-days", o->max_days,
                  "A best build that trains longer than this gets the cloud and multi-server "
                  "comparison spelled out (default 90)")
      ->type_name("DAYS");
  out->add_option("--top", o->top, "Builds to show, one per GPU model and count (default 3)")
      ->type_name("N");
  auto* cl = cmd->add_option_group("Cluster", "Multi-node builds (docs/recommend.md, Clusters)");
  cl->add_option("--nodes", o->nodes,
                 "Compose a cluster of N identical servers with its network (default: only when "
                 "one server trains longer than --max-days and the budget buys two or more)")
      ->type_name("N");
  cl->add_option("--rack-power", o->rack_power,
                 "Power one rack may draw, kW (default 40.8: the DGX H100 SuperPOD rack of four "
                 "10.2 kW servers)")
      ->type_name("KW");
  set_choices(cl->add_option("--fabric", o->fabric,
                             "Cluster network: infiniband or ethernet (default the cheaper)")
                  ->type_name("F"),
              std::vector<std::string>{"infiniband", "ethernet"});
  std::vector<std::string> prices;
  for (const auto& reg : rules::regions()) {
    prices.push_back(
        fmt::format("{} {} {}", reg.id, reg.electricity.price, reg.electricity.currency));
  }
  out->add_option("--electricity-price", o->electricity_price,
                  fmt::format("USD per kWh, in every region (default the --region's price in "
                              "data/regions.json: {})",
                              fmt::join(prices, ", ")))
      ->type_name("USD");
  out->add_option("--pue", o->pue, "Facility PUE (default 1.58 for racks, 1.0 for towers)")
      ->type_name("X");
  out->add_option("--dataset-gb", o->dataset_gb,
                  "Dataset size on disk (default: 4 bytes per training token)")
      ->type_name("GB");
  out->add_option("--checkpoints", o->checkpoints, "Checkpoints kept on disk (default 3)")
      ->type_name("N");
  r.add(cmd, kRecommendFormats, [&g, o] { return run_recommend(g, *o); });
}

}  // namespace gpuadvisor::cli
