// `gpuadvisor plan`: the best way to train a model on many GPUs (nodes, GPUs
// per node, parallel layout), and launch files for the engines that run it.

#include <charconv>
#include <chrono>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/plan/constants.hpp"
#include "gpuadvisor/plan/emit.hpp"
#include "gpuadvisor/plan/query.hpp"
#include "gpuadvisor/report/plan_report.hpp"
#include "gpuadvisor/workload/constants.hpp"
#include "layout_flags.hpp"
#include "workload_flags.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kPlanFormats{"text", "json", "html"};

struct PlanFlags {
  WorkloadFlags w;
  std::vector<std::string> gpu;
  LayoutFlags layout;
  std::optional<std::string> gpus, nodes, deadline, max_batch_tokens, dp, micro_batch, recompute,
      output_dir, ep, etp;
  std::string objective = "time";
  std::vector<std::string> emit;
  int top = 10;
  bool force = false;
};

[[noreturn]] void bad(std::string_view flag, std::string message) {
  throw InputError(Diagnostic{std::string(flag), "", std::move(message)});
}

/// "N" or "MIN-MAX".
std::pair<int, int> range(const std::string& text, std::string_view flag, int hi) {
  const auto dash = text.find('-');
  if (dash == std::string::npos || dash == 0) {
    const int n = whole_number(text, flag, 1, hi);
    return {n, n};
  }
  const int a = whole_number(text.substr(0, dash), flag, 1, hi);
  const int b = whole_number(text.substr(dash + 1), flag, 1, hi);
  if (a > b) bad(flag, fmt::format("expected MIN-MAX with MIN <= MAX, got \"{}\"", text));
  return {a, b};
}

/// "2000h", "90d", "12w" (a bare number is hours).
double duration_hours(const std::string& text) {
  std::string_view s = text;
  double unit = 1;
  if (!s.empty() && (s.back() == 'h' || s.back() == 'd' || s.back() == 'w')) {
    unit = s.back() == 'd' ? 24 : s.back() == 'w' ? 168 : 1;
    s.remove_suffix(1);
  }
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || !(v > 0) || v > 1e6)
    bad("--deadline",
        fmt::format("expected a duration such as 2000h, 90d or 12w, got \"{}\"", text));
  return v * unit;
}

std::vector<const catalog::Gpu*> gpus_of(const std::vector<std::string>& ids,
                                         const catalog::Catalog& cat) {
  std::vector<const catalog::Gpu*> out;
  for (const auto& id : ids) {
    if (id == "all") {
      for (const auto& g : cat.gpus)
        if (g.tensor_tflops_16bit > 0) out.push_back(&g);
      continue;
    }
    const auto* g = cat.gpu(id);
    if (g == nullptr)
      bad("--gpu",
          fmt::format("unknown GPU \"{}\"; see gpuadvisor catalog list --category gpu", id));
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  return out;
}

plan::Query make_query(const PlanFlags& f, const catalog::Catalog& cat) {
  plan::Query q;
  auto w = workload::resolve(to_input(f.w), cat, workload::Origin::flags());
  if (!w) throw InputError(std::move(w.error()));
  if (w->task != workload::Task::pretrain && w->task != workload::Task::finetune)
    bad("--task", "plan lays out full training: expected pretrain or finetune");
  if (w->arch.kind != catalog::ModelKind::transformer)
    bad("--model", "plan lays out transformers; CNNs train data parallel (see estimate)");
  if (w->arch.mla())
    bad(f.w.model_config ? "--model-config" : "--model",
        "plan's layout model has no multi-head latent attention, which DeepSeek-V2/V3 "
        "training needs (Megatron-LM --multi-latent-attention); see gpuadvisor estimate for its "
        "memory and time");
  q.w = std::move(*w);
  q.gpus = gpus_of(f.gpu.empty() ? std::vector<std::string>{"all"} : f.gpu, cat);
  if (f.gpu.empty() && q.gpus.size() > plan::k::kMaxImplicitGpuTypes)
    bad("--gpu", fmt::format("the catalog holds {} GPU types and plan prices every layout of each; "
                             "name the ones to compare (--gpu h100-sxm,h200-sxm), or --gpu all "
                             "to search them all (at most {} are searched without --gpu)",
                             q.gpus.size(), plan::k::kMaxImplicitGpuTypes));
  const int node = workload::k::kGpusPerNode;
  if (f.gpus && f.nodes) bad("--nodes", "give --gpus or --nodes, not both");
  if (f.nodes) {
    const auto [a, b] = range(*f.nodes, "--nodes", 10000);
    q.min_gpus = a * node;
    q.max_gpus = b * node;
  } else if (f.gpus) {
    const auto [a, b] = range(*f.gpus, "--gpus", static_cast<int>(workload::k::kMaxGpus));
    if (a == b && a > node && a % node != 0)
      bad("--gpus",
          fmt::format("above one node plans use whole nodes of {} GPUs, got {}", node, a));
    q.min_gpus = a;
    q.max_gpus = b;
  } else {
    q.min_gpus = 1;
    q.max_gpus = node;
  }
  const auto obj = plan::parse_objective(f.objective);
  if (!obj)
    bad("--objective",
        fmt::format("expected time, cost or cost-under-deadline, got \"{}\"", f.objective));
  q.objective = *obj;
  if (f.deadline) q.deadline_hours = duration_hours(*f.deadline);
  if (q.objective == plan::Objective::cost_under_deadline && !q.deadline_hours)
    bad("--objective", "cost-under-deadline needs --deadline");
  const auto layout = to_layout_input(f.layout);
  if (layout.global_batch) q.global_batch = static_cast<int>(*layout.global_batch);
  if (f.max_batch_tokens) {
    const auto v = parse_count(*f.max_batch_tokens);
    if (!v || *v < 1)
      bad("--max-batch-tokens",
          fmt::format("expected a token count such as 4M, got \"{}\"", *f.max_batch_tokens));
    q.max_batch_tokens = *v;
  }
  if (f.w.goodput) q.goodput = q.w.goodput;
  auto& pin = q.pinned;
  auto narrow = [](const std::optional<std::int64_t>& v) -> std::optional<int> {
    if (!v) return std::nullopt;
    return static_cast<int>(*v);
  };
  pin.tp = narrow(layout.tp);
  pin.pp = narrow(layout.pp);
  pin.vp = narrow(layout.vp);
  pin.cp = narrow(layout.cp);
  if (f.dp) pin.dp = whole_number(*f.dp, "--dp", 1, 100'000);
  if (f.micro_batch) pin.micro_batch = whole_number(*f.micro_batch, "--micro-batch", 1, 8);
  if ((f.ep || f.etp) && !q.w.arch.moe())
    bad(f.ep ? "--ep" : "--etp", "expert parallelism needs a mixture-of-experts model");
  if (f.ep) pin.ep = whole_number(*f.ep, "--ep", 1, 1024);
  if (f.etp) pin.etp = whole_number(*f.etp, "--etp", 1, 1024);
  if (f.recompute) {
    pin.recompute = plan::parse_recompute(*f.recompute);
    if (!pin.recompute)
      bad("--recompute", fmt::format("expected none, selective or full, got \"{}\"", *f.recompute));
  }
  pin.sp = layout.sequence_parallel;
  if (f.w.sharding) pin.sharding = q.w.sharding;
  q.top = f.top;
  q.catalog = &cat;
  return q;
}

ExitCode run_plan(const Globals& g, const PlanFlags& f) {
  require_format(g, "plan", kPlanFormats);
  for (const auto& e : f.emit) {
    if (std::find(std::begin(plan::kEngineNames), std::end(plan::kEngineNames), e) ==
        std::end(plan::kEngineNames))
      bad("--emit",
          fmt::format("expected megatron, deepspeed, torchrun, torchtitan or slurm, got \"{}\"",
                      e));
  }
  if (!f.emit.empty() && !f.output_dir) bad("--emit", "needs --output-dir DIR");
  if (f.output_dir && f.emit.empty()) bad("--output-dir", "needs --emit ENGINES");
  const auto cat = load_catalog(g);
  auto q = make_query(f, cat);
  // The chart draws every GPU count: keep every shape, list the first --top.
  const int listed = q.top;
  if (g.format == "html") q.top = 0;
  const auto t0 = std::chrono::steady_clock::now();
  report::PlanReport r{&q, plan::search(q), 0};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string written;
  if (!f.emit.empty() && !r.result.plans.empty()) {
    const auto files = plan::emit(q.w, r.result.plans.front(), f.emit);
    write_files(*f.output_dir, files, f.force);
    for (const auto& file : files) written += (written.empty() ? "" : ", ") + file.name;
  }
  if (g.format == "json") {
    auto j = report::plan_json(r);
    emit(g, j.dump(2) + "\n");
  } else if (g.format == "html") {
    emit(g, report::plan_html(r, listed));
  } else {
    std::string text = report::plan_text(r, g.width);
    if (!written.empty()) text += fmt::format("Wrote {} in {}\n", written, *f.output_dir);
    emit(g, text);
  }
  return r.result.plans.empty() ? ExitCode::no : ExitCode::ok;
}

}  // namespace

void register_plan(CLI::App& app, Globals& g, Registry& r) {
  auto f = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Cluster plan: nodes, GPUs per node and the parallel layout to train a model");
  cmd->footer(R"(
Searches every layout (tensor, pipeline with interleaving, context and data
parallel, ZeRO stage, sequence parallelism, recompute, micro-batch) of every
GPU count given, on each GPU type, and ranks them by the objective.
docs/plan.md explains the cost model and shows it against published runs.
--format html writes one self-contained page: time to train against cost at
every GPU count searched (one line per GPU type), the ranked layouts, their
step time by term and memory per GPU.

Examples:
  gpuadvisor plan --model llama-3.1-405b --tokens 15T --gpu h100-sxm --gpus 16384
  gpuadvisor plan --model-size 70B --tokens 2T --gpu h100-sxm,a100-80gb-sxm --nodes 8-128 --objective cost
  gpuadvisor plan --model llama-3.1-70b --tokens 15T --gpu h100-sxm --nodes 16-512 --deadline 60d --objective cost-under-deadline
  gpuadvisor plan --model llama-3.1-8b --gpu h100-sxm --gpus 64 --emit slurm,megatron --output-dir run/
  gpuadvisor plan --model llama-3.1-70b --tokens 15T --gpu h100-sxm,a100-80gb-sxm --nodes 1-256 --format html --output plans.html

Exit codes: 0 a plan, 1 no layout fits (or meets the deadline), 2 bad input.)");
  add_workload_flags(cmd, f->w, /*with_gpu=*/false, "pretrain");
  auto* c = cmd->add_option_group("Cluster", "Where to train and what to optimise");
  set_choices(
      c->add_option("--gpu", f->gpu,
                    "GPU types to consider (catalog ids, comma-separated, or all; default all, "
                    "when the catalog holds at most 100)")
          ->delimiter(',')
          ->type_name("ID[,ID...]"),
      [] { return std::vector<std::string>{"all"}; });
  c->add_option("--gpus", f->gpus, "Total GPUs, N or MIN-MAX (whole nodes above 8; default 1-8)")
      ->type_name("N|MIN-MAX");
  c->add_option("--nodes", f->nodes, "Nodes of 8 GPUs, N or MIN-MAX (instead of --gpus)")
      ->type_name("N|MIN-MAX");
  set_choices(
      c->add_option("--objective", f->objective, "time (default), cost, or cost-under-deadline")
          ->type_name("OBJ"),
      {"time", "cost", "cost-under-deadline"});
  c->add_option("--deadline", f->deadline, "Wall-clock limit: 2000h, 90d, 12w")->type_name("TIME");
  c->add_option("--max-batch-tokens", f->max_batch_tokens,
                "Largest global batch in tokens (default 16M, Llama 3 405B's)")
      ->type_name("N");
  c->add_option("--top", f->top, "Layouts listed (0: all that fit)")
      ->type_name("N")
      ->check(CLI::Range(0, 100000));
  auto* p = cmd->add_option_group("Layout", "Pin a dimension; the search varies the rest");
  add_layout_flags(p, f->layout, LayoutUse::pin);
  p->add_option("--dp", f->dp, "Data parallel degree")->type_name("N");
  p->add_option("--ep", f->ep,
                "Expert parallel degree (mixture of experts: the experts split over N GPUs of "
                "tp x cp x dp)")
      ->type_name("N");
  p->add_option("--etp", f->etp,
                "Expert tensor parallel degree (each expert's matrices over N GPUs; at most --tp)")
      ->type_name("N");
  p->add_option("--micro-batch", f->micro_batch, "Sequences per micro-batch: 1, 2, 4 or 8")
      ->type_name("N");
  set_choices(p->add_option("--recompute", f->recompute, "none, selective or full")->type_name("R"),
              {"none", "selective", "full"});
  auto* e = cmd->add_option_group("Launch files", "What to run the best plan with");
  set_choices(e->add_option(
                   "--emit", f->emit,
                   "megatron, deepspeed, torchrun (torchtitan), torchtitan, slurm; comma-separated")
                  ->delimiter(',')
                  ->type_name("ENGINES"),
              {"megatron", "deepspeed", "torchrun", "torchtitan", "slurm"});
  e->add_option("--output-dir", f->output_dir,
                "Directory for the launch files (created if missing)")
      ->type_name("DIR");
  e->add_flag("--force", f->force, "Replace launch files that exist");
  r.add(cmd, kPlanFormats, [&g, f] { return run_plan(g, *f); });
}

}  // namespace gpuadvisor::cli
