// `recommend`: the search's builds turned into answers (bill of materials,
// power, memory, time, electricity, findings, tips), and the explanation when
// nothing fits.
#include "gpuadvisor/search/recommend.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/rules/engine.hpp"
#include "gpuadvisor/rules/region.hpp"
#include "gpuadvisor/workload/fit_words.hpp"

namespace gpuadvisor::search {
namespace {

const rules::Region& region_of(const Request& r) {
  const rules::Region* g = rules::find_region(r.region);
  if (g == nullptr) throw std::invalid_argument("unknown region: " + r.region);
  return *g;
}

/// The site towers run at: the stated circuit, else the region's outlet.
rules::Site site_of(const Request& r, catalog::PlatformKind kind) {
  const rules::Region& region = region_of(r);
  if (r.circuit_w <= 0) {
    rules::Site s = rules::default_site(region, kind);
    if (r.voltage > 0) s.voltage = r.voltage;
    return s;
  }
  rules::Site s;
  s.region = region.id;
  s.circuit_w = r.circuit_w;
  if (r.voltage > 0) {
    s.voltage = r.voltage;
  } else {
    // As a spec's site.circuit_w alone: read in the region (a US 1,800 W
    // circuit is 120 V, a 3,680 W one 240 V).
    s.voltage = rules::circuit_voltage(region, r.circuit_w);
    s.voltage_assumed = true;
  }
  return s;
}

/// Tokens the dataset holds: one epoch's, or all training tokens.
double unique_tokens(const workload::WorkloadInput& in, const workload::Workload& w) {
  return in.dataset_tokens ? *in.dataset_tokens : w.tokens;
}

struct DataChoice {
  rules::DataPlan plan;
  bool assumed = false;
  std::string assumption;
};

DataChoice data_of(const Request& r, const workload::Workload& w) {
  DataChoice d;
  if (r.checkpoints) d.plan.checkpoints = *r.checkpoints;
  if (r.dataset_gb) {
    d.plan.dataset_gb = *r.dataset_gb;
  } else if (w.training() && w.arch.kind == catalog::ModelKind::transformer) {
    d.plan.dataset_gb = unique_tokens(r.workload, w) * kDatasetBytesPerToken / 1e9;
    d.assumed = true;
    d.assumption =
        fmt::format("dataset of {} GB on disk: {} tokens at {} bytes per token (no --dataset-gb)",
                    d.plan.dataset_gb < 10 ? fmt::format("{:.1f}", d.plan.dataset_gb)
                                           : format_usd(d.plan.dataset_gb).substr(1),
                    format_count(unique_tokens(r.workload, w)), kDatasetBytesPerToken);
  } else {
    d.assumption = "no dataset storage counted (no --dataset-gb)";
  }
  return d;
}

std::string gpu_label(const Candidate& c) {
  return fmt::format("{}x {}", c.choice.gpus, c.choice.gpu->name);
}

std::vector<BomLine> bill(const Choice& c) {
  std::vector<BomLine> out;
  auto add = [&](std::string_view cat, const catalog::PartBase* p, int count, bool included) {
    if (p == nullptr || count <= 0) return;
    BomLine l;
    l.category = cat;
    l.id = p->id;
    l.name = p->name;
    l.count = count;
    l.unit_usd = included ? 0 : to_usd(to_cents(p->price.usd));
    l.total_usd = included ? 0 : to_usd(count * to_cents(p->price.usd));
    if (included) l.note = "included with the platform";
    out.push_back(std::move(l));
  };
  add("gpu", c.gpu, c.gpus, false);
  add("platform", c.platform, 1, false);
  add("cpu", c.cpu, c.cpus, false);
  add("memory", c.memory, c.memory_count, false);
  add("storage", c.storage, c.storage_count, false);
  add("psu", c.psu, c.psu_count, c.psu_from_platform);
  add("cpu_cooler", c.cpu_cooler, c.cpu_coolers, false);
  add("cooling", c.cooling, c.cooling_count, false);
  return out;
}

std::vector<std::string> tips_for(const RecommendedBuild& b, const GpuPlan& plan) {
  std::vector<std::string> tips;
  const auto& w = plan.workload;
  const auto& g = *b.candidate.choice.gpu;
  const int n = b.candidate.choice.gpus;
  const bool fits = (plan.violations & bit(rules::vram_fit_rule())) == 0;
  for (const auto& ch : fits ? plan.changes : std::vector<workload::FitChange>{}) {
    switch (ch.kind) {
      case workload::FitChangeKind::grad_checkpointing:
        tips.push_back(
            "gradient checkpointing (activation recomputation) is on so that the job fits: "
            "about a third more compute, included in the time");
        break;
      case workload::FitChangeKind::micro_batch:
        tips.push_back(fmt::format("{}: the global batch stays {} sequences per optimizer step",
                                   workload::change_clause(ch),
                                   w.batch_size * w.grad_accumulation * n));
        break;
      case workload::FitChangeKind::sharding:
        tips.push_back(
            fmt::format("{} (DeepSpeed ZeRO or PyTorch FSDP) so that the model states "
                        "fit",
                        workload::change_clause(ch)));
        break;
      default:  // recommend's adaptation makes only the changes above
        break;
    }
  }
  if (w.training() && w.precision == workload::Precision::fp32 && g.tensor_tflops_16bit > 0) {
    tips.push_back(
        fmt::format("train in bf16 mixed precision (--precision bf16): {:.0f} TFLOPS "
                    "of 16-bit tensor math per GPU against {:.0f} in FP32, and half "
                    "the activation memory",
                    g.tensor_tflops_16bit, std::max(g.tf32_tflops, g.fp32_tflops)));
  } else if (w.training() && w.precision == workload::Precision::bf16 && g.tensor_tflops_fp8 > 0 &&
             w.arch.kind == catalog::ModelKind::transformer && w.task != workload::Task::qlora) {
    // Not for QLoRA: its base is NF4, and the 16-bit adapters are too small
    // for FP8 matmuls to pay.
    tips.push_back(fmt::format(
        "these GPUs have FP8 tensor cores ({:.0f} TFLOPS dense): FP8 training with "
        "{} (--precision fp8) can shorten the run",
        g.tensor_tflops_fp8,
        g.vendor == "amd" ? "AMD's port of Transformer Engine (ROCm/TransformerEngine; NVIDIA's "
                            "does not run on ROCm)"
                          : "Transformer Engine"));
  }
  if (w.training() && n > 1 && w.batch_size * w.grad_accumulation * n < 8 &&
      w.arch.kind == catalog::ModelKind::transformer) {
    tips.push_back(
        fmt::format("a global batch of {} sequences is small: accumulate gradients "
                    "over more micro-batches for a stable optimizer step",
                    w.batch_size * w.grad_accumulation * n));
  }
  if (w.training() && b.candidate.choice.cpu != nullptr) {
    const int cores = b.candidate.choice.cpu->cores * b.candidate.choice.cpus;
    const int workers = std::max(1, cores / n - 1);
    tips.push_back(
        fmt::format("data loading: up to {} DataLoader worker{} per GPU ({} CPU cores "
                    "for {} GPU{}), with pinned memory",
                    workers, workers == 1 ? "" : "s", cores, n, n == 1 ? "" : "s"));
  }
  return tips;
}

class Assembler {
 public:
  Assembler(const Context& ctx, const Request& req) : ctx_(ctx), req_(req) {}

  /// A candidate with everything the output shows. `may_fail`: the nearest
  /// build of a "nothing fits" answer, which may break a rule.
  RecommendedBuild build(const Candidate& c, int rank, bool may_fail) const {
    RecommendedBuild r;
    r.rank = rank;
    r.candidate = c;
    // The plan lives in the context; the build keeps its own copy.
    r.plan = std::make_shared<const GpuPlan>(*c.plan);
    r.candidate.plan = r.plan.get();
    r.build = to_build(c.choice, ctx_);
    r.bom = bill(c.choice);
    const auto& p = ctx_.params();
    const auto& b = r.build;
    r.power.peak_w = rules::peak_draw_w(b);
    r.power.required_psu_w = rules::required_psu_w(b, p);
    r.power.psu_capacity_w = rules::psu_capacity_w(b);
    r.power.headroom = r.power.peak_w > 0 ? r.power.psu_capacity_w / r.power.peak_w : 0;
    r.power.voltage = rules::supply_voltage(b);
    r.power.wall_w = rules::wall_draw_w(b, p);
    r.power.heat_w = rules::heat_w(b, p);
    r.power.cooling_w = rules::cooling_capacity_w(b);
    r.power.circuit_w = b.site.circuit_w;
    r.power.circuit_cap_w = rules::circuit_capacity_w(b.site, p);

    const GpuPlan& plan = *c.plan;
    const auto& g = *c.choice.gpu;
    r.memory = workload::memory_per_gpu(plan.workload, g, plan.workload.gpus);
    r.available_bytes = workload::available_bytes(g);
    r.usable_bytes = workload::usable_bytes(plan.workload, g);
    r.changes = plan.changes;
    r.compute = plan.compute();
    // Energy at the wall: the GPUs at their training draw (the workload
    // model), the rest of the system at its nameplate draw, through the PSUs'
    // efficiency, times the site's PUE.
    const double rest_w = std::max(0.0, r.power.peak_w - rules::gpu_power_w(b));
    const double dc_kwh = r.compute.energy_kwh + rest_w * r.compute.time_hours / 1000.0;
    r.pue = req_.pue
                ? *req_.pue
                : (c.choice.platform->kind == catalog::PlatformKind::rack ? kRackPue : kTowerPue);
    r.energy_kwh = dc_kwh / rules::psu_efficiency(b, p) * r.pue;
    r.electricity_usd = r.energy_kwh * req_.electricity_usd_per_kwh;

    std::vector<workload::Workload> ws{plan.workload};
    r.findings = rules::evaluate(b, ws, ctx_.rules());
    if (!may_fail && rules::fails(r.findings, false)) {
      std::vector<std::string> ids;
      for (const auto& f : r.findings) {
        if (f.severity == rules::Severity::error) ids.push_back(f.rule);
      }
      throw std::logic_error(fmt::format("the search recommended {} on {}, which fails {}",
                                         gpu_label(c), c.choice.platform->id,
                                         fmt::join(ids, ", ")));
    }
    r.tips = tips_for(r, plan);
    r.clean_note = clean_note(r);
    return r;
  }

 private:
  /// Which avoidable warnings the build accepts and what avoiding them costs,
  /// or what the clean build cost over the cheapest.
  std::string clean_note(const RecommendedBuild& r) const {
    const Candidate& c = r.candidate;
    const double margin = req_.clean_margin;
    const RuleMask avoidable = ctx_.avoidable_warnings();
    std::vector<std::string> ids;
    for (const auto& f : r.findings) {
      const auto i = rules::rule_index(f.rule);
      if (f.severity == rules::Severity::warning && !f.waived && i &&
          (avoidable & rules::rule_bit(*i)) != 0 &&
          std::find(ids.begin(), ids.end(), f.rule) == ids.end()) {
        ids.push_back(f.rule);
      }
    }
    const auto pct = [&](Cents more) {
      return 100.0 * static_cast<double>(more) / static_cast<double>(c.cheapest_price);
    };
    if (c.clean) {
      if (c.price <= c.cheapest_price) return "";
      return fmt::format(
          "chosen over the cheapest build of these GPUs ({}), which has avoidable warnings: {} "
          "more (+{:.1f} %, within the {:.0f} % clean margin)",
          req_.money(to_usd(c.cheapest_price)), req_.money(to_usd(c.price - c.cheapest_price)),
          pct(c.price - c.cheapest_price), margin * 100);
    }
    if (ids.empty()) return "";
    if (c.clean_price == 0) {
      return fmt::format("accepts {}: no build of {} in the catalog avoids {}",
                         fmt::join(ids, ", "), gpu_label(c), ids.size() == 1 ? "it" : "them");
    }
    const Cents more = c.clean_price - c.price;
    return fmt::format("accepts {}: avoiding {} costs {} more ({}, +{:.1f} %){}",
                       fmt::join(ids, ", "), ids.size() == 1 ? "it" : "them",
                       req_.money(to_usd(more)), req_.money(to_usd(c.clean_price)), pct(more),
                       c.clean_price > req_.constraints.budget
                           ? ", over the budget"
                           : fmt::format(", over the {:.0f} % clean margin", margin * 100));
  }

  const Context& ctx_;
  const Request& req_;
};

/// The rules that fail for a build, as an engine finding of error severity.

/// Plain words for a best build that trains for longer than --max-days: what
/// the cloud and more servers of the same kind would take.
std::optional<std::string> long_run_note(const Recommendation& out, const Request& req) {
  const RecommendedBuild& best = out.builds.front();
  const double days = best.compute.time_hours / 24;
  if (days <= req.max_days) return std::nullopt;
  const double price = to_usd(best.candidate.price);
  const double budget = to_usd(req.constraints.budget);
  std::string s = fmt::format(
      "the best build takes {} (over --max-days {}): a single server of this budget is the "
      "wrong tool for this job",
      format_duration_hours(best.compute.time_hours), fmt::format("{:g}", req.max_days));
  if (!out.cloud.empty()) {
    // Enough whole instances of the cheapest offer to finish within
    // --max-days, at its GPU-hours (linear scaling: an estimate).
    const CloudOption& c = out.cloud.front();
    const double deadline_h = req.max_days * 24;
    int n = c.gpus;
    while (c.gpu_hours / n > deadline_h && n < (1 << 20)) n += c.gpus;
    s += fmt::format(
        "; the cheapest cloud offer, {} ({}, ${:.2f}/GPU-h, {}), needs {} GPU-hours ({}): "
        "{}x would finish in about {} (an estimate: linear data-parallel scaling)",
        c.gpu_name, c.provider, c.usd_per_gpu_hour, c.date, format_usd(c.gpu_hours).substr(1),
        req.money(c.cost_usd), n, format_duration_hours(c.gpu_hours / n));
  }
  const int servers = static_cast<int>(budget / price);
  if (out.cluster) {
    s += fmt::format("; the multi-node build below: {} servers like #{} in {}", out.cluster->nodes,
                     out.cluster->build_rank, format_duration_hours(out.cluster->hours));
  } else if (servers >= 2) {
    s += fmt::format(
        "; the budget buys {} servers like #1 ({} of {} used by one), which would take about {} "
        "(an estimate: linear data-parallel scaling over a cluster network, not modelled)",
        servers, req.money(price), req.money(budget),
        format_duration_hours(best.compute.time_hours / servers));
  }
  // The cluster answer with its network and parallel layout: `plan`, for the
  // same model and tokens on #1's GPU, cheapest within --max-days.
  std::string model;
  if (!out.workload.model_id.empty()) {
    model = "--model " + out.workload.model_id;
  } else if (out.input.model_size) {
    model = "--model-size " + format_count(*out.input.model_size);
  }
  // plan refuses latent attention (DeepSeek): no command it would reject.
  if (!model.empty() && out.workload.training() && !out.workload.arch.mla()) {
    s += fmt::format(
        "; for a cluster layout with its network: gpuadvisor plan {} --tokens {} --gpu {} "
        "--nodes 1-512 --deadline {:g}d --objective cost-under-deadline",
        model, format_count(out.workload.tokens), best.candidate.choice.gpu->id, req.max_days);
  }
  return s;
}

/// A constraint a trial lifts is named after what the build found under it
/// ("--max-gpus 8", "--form-factor rack"): the flag value a user would type.
enum class Lifted { none, max_gpus, vendor, form_factor };

struct Trial {
  std::string change, why;
  workload::WorkloadInput input;
  Constraints constraints;
  Lifted lifted = Lifted::none;
};

std::string change_text(const Trial& t, const Candidate& c) {
  switch (t.lifted) {
    case Lifted::none:
      return t.change;
    case Lifted::max_gpus:
      return fmt::format("--max-gpus {}", c.choice.gpus);
    case Lifted::vendor:
      return fmt::format("--vendor {}", c.choice.gpu->vendor);
    case Lifted::form_factor:
      return fmt::format("--form-factor {}", catalog::to_string(c.choice.platform->kind));
  }
  return t.change;
}

std::vector<Trial> trials(const Request& req, const workload::Workload& w) {
  std::vector<Trial> out;
  auto add = [&](std::string change, std::string why, auto edit) {
    Trial t{std::move(change), std::move(why), req.workload, req.constraints};
    edit(t);
    out.push_back(std::move(t));
  };
  using workload::Task;
  if (w.task == Task::pretrain || w.task == Task::finetune) {
    add("--task lora",
        "trains low-rank adapters on a frozen 16-bit base: no optimizer states "
        "or gradients for the base weights",
        [](Trial& t) { t.input.task = Task::lora; });
  }
  if (w.task == Task::pretrain || w.task == Task::finetune || w.task == Task::lora) {
    add("--task qlora",
        "adapters on a frozen 4-bit (NF4) base: about a quarter of the weight "
        "memory of LoRA",
        [](Trial& t) { t.input.task = Task::qlora; });
  }
  if (w.precision == workload::Precision::fp32) {
    add("--precision bf16", "mixed precision: 16-bit activations and tensor-core speed",
        [](Trial& t) { t.input.precision = workload::Precision::bf16; });
  }
  if (w.arch.kind == catalog::ModelKind::transformer && w.seq_len >= 1024) {
    for (int div : {2, 4}) {
      const int s = w.seq_len / div;
      add(fmt::format("--seq-len {}", s),
          fmt::format("activations grow with the sequence: {} instead of {} tokens", s, w.seq_len),
          [s](Trial& t) { t.input.seq_len = s; });
    }
  }
  if (w.training() && !req.dataset_gb && !req.workload.dataset_tokens && w.tokens > 1e9) {
    const double tokens = w.tokens / 10;
    add(fmt::format("--tokens {}", format_count(tokens)),
        "a tenth of the training tokens: a smaller dataset to store and a shorter run",
        [tokens](Trial& t) {
          t.input.tokens = tokens;
          t.input.epochs.reset();
        });
  }
  // FP8 matmuls need FP8 tensor cores (the search keeps to GPUs that have
  // them: SW004); not on a QLoRA base, whose 4-bit weights are dequantised to
  // 16 bits for every matmul.
  const bool sixteen_bit =
      w.precision == workload::Precision::bf16 || w.precision == workload::Precision::fp16;
  if (w.arch.kind == catalog::ModelKind::transformer && sixteen_bit && w.task != Task::qlora) {
    add("--precision fp8",
        w.task == Task::inference
            ? "8-bit weights: half the weight memory and bandwidth per token of 16-bit, on GPUs "
              "with FP8 tensor cores"
            : "FP8 matmuls (Transformer Engine) on GPUs with FP8 tensor cores: faster steps; "
              "master weights and optimizer states stay as they are",
        [](Trial& t) { t.input.precision = workload::Precision::fp8; });
  }
  // Weight-only integer formats for serving, on any GPU (the workload model's
  // default layouts: GPTQ int8 and AWQ int4, groups of 128).
  if (w.arch.kind == catalog::ModelKind::transformer && w.task == Task::inference &&
      (sixteen_bit || w.precision == workload::Precision::fp8 ||
       w.precision == workload::Precision::fp32)) {
    add("--precision int8",
        "8-bit integer weights (GPTQ, groups of 128): about half the weight memory of 16-bit, "
        "on any GPU",
        [](Trial& t) { t.input.precision = workload::Precision::int8; });
  }
  if (w.arch.kind == catalog::ModelKind::transformer && w.task == Task::inference &&
      w.precision != workload::Precision::int4) {
    add("--precision int4",
        "4-bit integer weights (AWQ, groups of 128): about a quarter of the weight memory of "
        "16-bit, with a small accuracy cost",
        [](Trial& t) { t.input.precision = workload::Precision::int4; });
  }
  if (!req.constraints.allow_used) {
    add("--allow-used", "used GPUs cost a fraction of new ones (with RISK001's warnings)",
        [](Trial& t) { t.constraints.allow_used = true; });
  }
  // Constraints the user set: each lifted on its own.
  auto lift = [&](Lifted what, std::string why, auto edit) {
    add("", std::move(why), edit);
    out.back().lifted = what;
  };
  if (req.constraints.max_gpus > 0) {
    lift(Lifted::max_gpus,
         fmt::format("more GPUs than --max-gpus {} allows", req.constraints.max_gpus),
         [](Trial& t) { t.constraints.max_gpus = 0; });
  }
  if (!req.constraints.vendor.empty()) {
    lift(Lifted::vendor, fmt::format("GPUs of any vendor, not only {}", req.constraints.vendor),
         [](Trial& t) { t.constraints.vendor.clear(); });
  }
  if (req.constraints.kind) {
    lift(Lifted::form_factor,
         fmt::format("any form factor, not only {}s", catalog::to_string(*req.constraints.kind)),
         [](Trial& t) { t.constraints.kind.reset(); });
  }
  return out;
}

}  // namespace

const rules::Finding* first_error(const RecommendedBuild& b) {
  for (const auto& f : b.findings) {
    if (f.severity == rules::Severity::error && !f.waived) return &f;
  }
  return nullptr;
}

std::optional<NearestBuild> nearest_breaking_one(
    const std::function<std::unique_ptr<Context>()>& make, RuleMask candidates,
    const Constraints& cons) {
  std::optional<NearestBuild> best;
  for (const rules::RuleDecl* r : rules::registry()) {
    if ((candidates & bit(*r)) == 0) continue;
    auto relaxed = make();
    relaxed->relax(bit(*r));
    auto c = Searcher(*relaxed, cons).cheapest();
    if (c && (!best || c->price < best->candidate.price)) {
      best = NearestBuild{*c, r, std::move(relaxed)};
    }
  }
  return best;
}

rules::Site request_site(const Request& r, catalog::PlatformKind kind) { return site_of(r, kind); }

std::optional<std::string> mains_assumption(const Request& req, const rules::RuleSet& rules) {
  if (req.circuit_w <= 0) {
    const rules::Region& g = region_of(req);
    const double frac = rules.params.circuit_continuous_fraction;
    return fmt::format(
        "mains ({}, --region {}): towers on one {} ({} W continuous), rack servers on {} x {} "
        "({} W continuous each); give --circuit for the real one",
        g.name, g.id, g.outlet.name, format_usd(g.outlet.watts() * frac).substr(1), g.feed.circuits,
        g.feed.name, format_usd(g.feed.watts() * frac).substr(1));
  }
  const rules::Site site = site_of(req, catalog::PlatformKind::tower);
  if (!site.voltage_assumed) return std::nullopt;
  return fmt::format("supply voltage {} V, assumed from the {} W circuit (give --voltage)",
                     site.voltage, site.circuit_w);
}

RecommendedBuild assemble_build(const Context& ctx, const Request& req, const Candidate& c,
                                int rank, bool may_fail) {
  return Assembler(ctx, req).build(c, rank, may_fail);
}

expected<Recommendation, Diagnostics> recommend(const catalog::Catalog& cat,
                                                const rules::RuleSet& rules,
                                                const Request& request) {
  // Without --task, recommend sizes a machine for LoRA fine-tuning: the job a
  // workstation or single-server budget is usually spent on (pretraining a
  // 7B model from scratch takes years of such a machine). CNN presets keep
  // the workload model's default, since LoRA applies to transformers.
  Request req = request;
  req.constraints.clean_margin = req.clean_margin;
  bool task_assumed = false;
  if (!req.workload.task) {
    const catalog::ModelPreset* preset =
        req.workload.model ? cat.model(*req.workload.model) : nullptr;
    if (preset == nullptr || preset->kind == catalog::ModelKind::transformer) {
      req.workload.task = workload::Task::lora;
      task_assumed = true;
    }
  }
  auto resolved = workload::resolve(req.workload, cat, workload::Origin::flags());
  if (!resolved) return unexpected(std::move(resolved.error()));
  Recommendation out;
  out.input = req.workload;
  out.workload = std::move(*resolved);
  out.site = site_of(req, catalog::PlatformKind::tower);
  const rules::Site rack_site = site_of(req, catalog::PlatformKind::rack);
  const DataChoice data = data_of(req, out.workload);
  out.dataset_gb = data.plan.dataset_gb;
  out.dataset_assumed = data.assumed;
  if (task_assumed) {
    out.assumptions.push_back(
        "task: LoRA fine-tuning (recommend's default without --task; --task pretrain or "
        "finetune sizes a machine for full training)");
  }
  out.assumptions.insert(out.assumptions.end(), out.workload.assumptions.begin(),
                         out.workload.assumptions.end());
  if (!data.assumption.empty()) out.assumptions.push_back(data.assumption);
  if (auto mains = mains_assumption(req, rules)) out.assumptions.push_back(*mains);
  if (req.money.currency != "USD") {
    const rules::Region& g = region_of(req);
    out.assumptions.push_back(
        req.money.per_usd == g.fx.per_usd
            ? fmt::format("amounts in {} at {} per US dollar ({}, {}; --fx to change); prices "
                          "the catalog has in {} are used as listed",
                          req.money.currency, g.fx.per_usd, g.fx.kind, g.fx.date,
                          req.money.currency)
            : fmt::format("amounts in {} at {} per US dollar (--fx)", req.money.currency,
                          req.money.per_usd));
  }
  out.assumptions.push_back(
      req.pue ? fmt::format("PUE {} (--pue)", *req.pue)
              : fmt::format("PUE {} for rack servers (data-center average, Uptime Institute 2023), "
                            "{} for towers",
                            kRackPue, kTowerPue));
  out.assumptions.push_back(
      fmt::format("electricity at {}/kWh{}", req.money(req.electricity_usd_per_kwh, 3),
                  req.electricity_note.empty() ? "" : fmt::format(" ({})", req.electricity_note)));

  Context ctx(cat, rules, out.workload, out.site, data.plan);
  ctx.set_rack_site(rack_site);
  const Assembler assemble(ctx, req);
  Searcher searcher(ctx, req.constraints);
  const SearchResult result = searcher.top();
  out.stats = result.stats;
  out.cloud = cloud_options(cat, out.workload);
  for (std::size_t i = 0; i < result.builds.size(); ++i) {
    out.builds.push_back(assemble.build(result.builds[i], static_cast<int>(i) + 1, false));
    auto& b = out.builds.back();
    if (!out.cloud.empty()) {
      b.rent = buy_vs_rent(to_usd(b.candidate.price), b.compute.time_hours, b.electricity_usd,
                           out.cloud.front(), req.horizon_months, req.utilisation);
    }
  }
  if (!out.builds.empty()) {
    auto cluster = compose_cluster(cat, out, req);
    out.cluster = std::move(cluster.cluster);
    if (!cluster.note.empty()) out.notes.push_back(cluster.note);
    if (auto note = long_run_note(out, req)) out.notes.push_back(*note);
    if (static_cast<int>(out.builds.size()) < req.constraints.top) {
      out.notes.push_back(
          fmt::format("only {} build{} fit{} the budget of {} (asked for {})", out.builds.size(),
                      out.builds.size() == 1 ? "" : "s", out.builds.size() == 1 ? "s" : "",
                      req.money(to_usd(req.constraints.budget)), req.constraints.top));
    }
    return out;
  }

  // Nothing fits: the nearest build, the smallest budget, and what would fit.
  NoFit nf;
  const std::string budget = req.money(to_usd(req.constraints.budget));
  if (auto cheapest = searcher.cheapest()) {
    nf.nearest = assemble.build(*cheapest, 0, false);
    nf.broken = "budget";
    nf.smallest_budget_usd = to_usd(cheapest->price);
    nf.broken_message =
        fmt::format("{} costs {}, {} over the budget of {}", gpu_label(*cheapest),
                    req.money(to_usd(cheapest->price)),
                    req.money(to_usd(cheapest->price - req.constraints.budget)), budget);
    nf.reason = fmt::format(
        "no build fits the budget of {}: the cheapest build that passes "
        "every rule costs {}",
        budget, req.money(to_usd(cheapest->price)));
  } else {
    // No build passes the rules at any price.
    bool any_gpu = false, any_fit = false;
    const int max_n = max_gpu_count(cat, req.constraints);
    // The (GPU, count) closest to holding the workload: least memory needed
    // per GPU relative to what the GPU has.
    const catalog::Gpu* closest = nullptr;
    int closest_n = 0;
    double closest_ratio = 0;
    for (const auto& g : cat.gpus) {
      if (!allowed(g, req.constraints)) continue;
      any_gpu = true;
      for (int n = 1; n <= max_n; ++n) {
        if (!count_allowed(ctx, req.constraints, n)) continue;
        const GpuPlan& plan = ctx.plan(g, n);
        if ((plan.violations & bit(rules::vram_fit_rule())) == 0) any_fit = true;
        const double ratio = workload::memory_per_gpu(plan.workload, g, n).total /
                             workload::usable_bytes(plan.workload, g);
        if (closest == nullptr || ratio < closest_ratio) {
          closest = &g;
          closest_n = n;
          closest_ratio = ratio;
        }
      }
    }
    // The nearest build: the cheapest that breaks one rule (when the workload
    // fits no GPU, the cheapest build of the closest GPU and count).
    const auto make = [&] {
      auto relaxed = std::make_unique<Context>(cat, rules, out.workload, out.site, data.plan);
      relaxed->set_rack_site(rack_site);
      return relaxed;
    };
    std::optional<NearestBuild> best;
    if (any_gpu && !any_fit && (ctx.errors() & bit(rules::vram_fit_rule())) != 0) {
      Constraints only = req.constraints;
      only.gpu_id = closest->id;
      only.gpus = closest_n;
      best = nearest_breaking_one(make, bit(rules::vram_fit_rule()), only);
    }
    if (!best) best = nearest_breaking_one(make, ctx.errors(), req.constraints);
    if (!any_gpu) {
      nf.reason = "no GPU in the catalog matches the constraints (--vendor, --allow-used)";
    } else if (!any_fit) {
      nf.reason = fmt::format(
          "the workload does not fit in the memory of any allowed GPU, even with gradient "
          "checkpointing, micro-batch 1 and ZeRO-3 over up to {} GPUs",
          max_n);
    } else if (best) {
      nf.reason = fmt::format("no build passes every rule at any price; the nearest breaks {}",
                              best->rule->id);
    } else {
      nf.reason = "no build passes every rule at any price, nor with any one rule relaxed";
    }
    if (best) {
      // Assembled with the context that ignores the broken rule (its plan is
      // the one the search used); the findings still show the failure.
      const Assembler relaxed_assemble(*best->ctx, req);
      nf.nearest = relaxed_assemble.build(best->candidate, 0, true);
      nf.broken = std::string(best->rule->id);
      const rules::Finding* f = first_error(*nf.nearest);
      nf.broken_message = f != nullptr ? f->message : std::string(best->rule->id);
    }
  }
  // Workload and constraint changes that would fit the budget.
  for (const Trial& t : trials(req, out.workload)) {
    auto w = workload::resolve(t.input, cat, workload::Origin::flags());
    if (!w) continue;
    Request r2 = req;
    r2.workload = t.input;
    const DataChoice d2 = data_of(r2, *w);
    Constraints c2 = t.constraints;
    c2.top = 1;
    Context ctx2(cat, rules, *w, out.site, d2.plan);
    ctx2.set_rack_site(rack_site);
    Searcher s2(ctx2, c2);
    const auto found = s2.top();
    if (!found.builds.empty()) {
      const Candidate& c = found.builds.front();
      nf.alternatives.push_back({change_text(t, c), t.why, c.choice.gpu->id, c.choice.gpu->name,
                                 c.choice.gpus, to_usd(c.price), c.hours(), true});
      continue;
    }
    // Over the budget, but a smaller raise than the workload as given needs.
    const auto c = s2.cheapest();
    if (c && (!nf.smallest_budget_usd || to_usd(c->price) < *nf.smallest_budget_usd)) {
      nf.alternatives.push_back({change_text(t, *c), t.why, c->choice.gpu->id, c->choice.gpu->name,
                                 c->choice.gpus, to_usd(c->price), c->hours(), false});
    }
  }
  // Those within the budget first (in the order tried), then the others by price.
  std::stable_sort(nf.alternatives.begin(), nf.alternatives.end(),
                   [](const Alternative& a, const Alternative& b) {
                     if (a.within_budget != b.within_budget) return a.within_budget;
                     return !a.within_budget && a.price_usd < b.price_usd;
                   });
  out.no_fit = std::move(nf);
  return out;
}

}  // namespace gpuadvisor::search
