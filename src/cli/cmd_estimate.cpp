// `gpuadvisor estimate [workload] [--gpu ID --gpus N]`: memory per GPU term by
// term, fit (with the smallest change that makes it fit), time and energy.
#include <memory>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "gpuadvisor/report/estimate_report.hpp"
#include "layout_flags.hpp"
#include "workload_flags.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kEstimateFormats{"text", "json", "html"};

struct EstimateFlags {
  WorkloadFlags w;
  LayoutFlags layout;
  std::optional<std::string> disaggregate, prefill_gpus;
  std::optional<std::string> emit, output_dir;
  bool force = false;
};

/// --emit ENGINE --output-dir DIR: the estimate's engine launch as files;
/// nothing without --emit. Checked before the estimate is computed where
/// the flags alone decide.
void check_emit(const workload::Workload& w, const EstimateFlags& f) {
  if (f.output_dir && !f.emit)
    throw InputError(Diagnostic{"--output-dir", "", "needs --emit ENGINE"});
  if (!f.emit) return;
  if (*f.emit != "vllm" && *f.emit != "sglang" && *f.emit != "trtllm")
    throw InputError(Diagnostic{
        "--emit", "",
        fmt::format("expected vllm, sglang or trtllm (the engines with a server), got \"{}\"",
                    *f.emit)});
  if (!f.output_dir) throw InputError(Diagnostic{"--emit", "", "needs --output-dir DIR"});
  if (w.task != workload::Task::inference || w.arch.kind != catalog::ModelKind::transformer ||
      !w.gpu)
    throw InputError(Diagnostic{
        "--emit", "", "writes a serving engine's launch: give --task inference and --gpu"});
  if (*f.emit != workload::to_string(w.engine))
    throw InputError(
        Diagnostic{"--emit", "",
                   fmt::format("the estimate is for --engine {}; give --engine {} to launch {}",
                               workload::to_string(w.engine), *f.emit, *f.emit)});
}

/// The files of the estimate's launch, written; their names.
std::string write_launch(const workload::Workload& w, const report::Estimate& e,
                         const EstimateFlags& f) {
  const auto& c = e.rows.front().compute;
  if (!c.serving || !c.serving->launch) return "";
  const auto summary = fmt::format(
      "{} on {} {}{}: {} requests in flight of {} prompt + {} output tokens", *f.emit, w.gpus,
      e.gpu->id, w.gpus > 1 ? " GPUs" : "", w.batch_size, w.prompt_len, w.output_len);
  const auto files = workload::launch_files(*c.serving->launch, *f.emit, summary);
  write_files(*f.output_dir, files, f.force);
  std::string names;
  for (const auto& file : files) names += (names.empty() ? "" : ", ") + file.name;
  return names;
}

/// --disaggregate P:D (instances) and --prefill-gpus N: the layout, on a
/// serving workload with --gpu; each decode instance has w's GPUs.
std::optional<workload::DisaggregatedLayout> disaggregate_of(const workload::Workload& w,
                                                             const EstimateFlags& f) {
  if (!f.disaggregate) {
    if (f.prefill_gpus)
      throw InputError(Diagnostic{"--prefill-gpus", "", "needs --disaggregate PREFILL:DECODE"});
    return std::nullopt;
  }
  const std::string& text = *f.disaggregate;
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw InputError(Diagnostic{"--disaggregate", "",
                                "expected PREFILL:DECODE, the instances of each (e.g. 2:3)"});
  if (w.task != workload::Task::inference || w.arch.kind != catalog::ModelKind::transformer)
    throw InputError(Diagnostic{"--disaggregate", "",
                                "serves a transformer: give --task inference and a transformer"});
  if (!w.gpu)
    throw InputError(Diagnostic{"--disaggregate", "", "is priced on one GPU type: give --gpu"});
  workload::DisaggregatedLayout l;
  l.prefill_replicas = whole_number(text.substr(0, colon), "--disaggregate", 1, 1024);
  l.decode_replicas = whole_number(text.substr(colon + 1), "--disaggregate", 1, 1024);
  l.decode_gpus = w.gpus;
  l.prefill_gpus = f.prefill_gpus ? whole_number(*f.prefill_gpus, "--prefill-gpus", 1, 64) : w.gpus;
  if (!workload::valid_tensor_parallel(w.arch, l.prefill_gpus))
    throw InputError(Diagnostic{
        "--prefill-gpus", "",
        fmt::format("tensor parallel over {} GPUs: {} heads ({} KV heads) do not split {} ways",
                    l.prefill_gpus, w.arch.heads, w.arch.kv_heads, l.prefill_gpus)});
  return l;
}

/// --tp/--pp/--cp/...: the layout on w's GPU (appending its assumptions to w).
std::optional<plan::Layout> layout_of(workload::Workload& w, const EstimateFlags& flags,
                                      const catalog::Catalog& cat) {
  const auto in = to_layout_input(flags.layout);
  if (!in.any()) return std::nullopt;
  const auto* gpu = w.gpu ? cat.gpu(*w.gpu) : nullptr;
  if (gpu == nullptr)
    throw InputError(Diagnostic{in.tp                  ? "--tp"
                                : in.pp                ? "--pp"
                                : in.vp                ? "--vp"
                                : in.cp                ? "--cp"
                                : in.sequence_parallel ? "--sequence-parallel"
                                                       : "--global-batch",
                                "", "a parallel layout is priced on one GPU type: give --gpu"});
  auto l = plan::make_layout(w, *gpu, in, workload::Origin::flags(), &w.assumptions);
  if (!l) throw InputError(std::move(l.error()));
  return *l;
}

ExitCode run_estimate(const Globals& g, const EstimateFlags& flags) {
  require_format(g, "estimate", kEstimateFormats);
  const auto input = to_input(flags.w);
  const auto cat = load_catalog(g);
  auto w = workload::resolve(input, cat, workload::Origin::flags());
  if (!w) throw InputError(std::move(w.error()));
  auto layout = layout_of(*w, flags, cat);
  std::optional<plan::PlannedLayout> planned;
  if (!layout && !flags.disaggregate) {
    planned = plan::adopt_planned_layout(input, *w, cat);
    if (planned) layout = planned->best.layout;
  }
  const auto disaggregate = disaggregate_of(*w, flags);
  check_emit(*w, flags);
  const auto e = report::make_estimate(*w, cat, layout, disaggregate, planned);
  const std::string written = flags.emit ? write_launch(*w, e, flags) : "";
  if (g.format == "json") {
    emit(g, report::estimate_json(e).dump(2) + "\n");
  } else if (g.format == "html") {
    emit(g, report::estimate_html(e));
  } else {
    std::string text = report::estimate_text(e, g.width);
    if (!written.empty()) text += fmt::format("Wrote {} in {}\n", written, *flags.output_dir);
    emit(g, text);
  }
  // With --gpu the question is "does it fit?": "no" is exit 1, as in check
  // and recommend. A fit that needs the listed changes is a "yes".
  const bool no =
      e.gpu && !e.rows.empty() && e.rows.front().fit.verdict == workload::Verdict::does_not_fit;
  return no ? ExitCode::no : ExitCode::ok;
}

}  // namespace

void register_estimate(CLI::App& app, Globals& g, Registry& r) {
  auto flags = std::make_shared<EstimateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "estimate", "Memory per GPU, fit, time and energy of a training or inference job");
  cmd->footer(R"(
Without --gpu, the fit is shown for every catalog GPU. Full training on
several GPUs in Megatron-LM, NeMo, DeepSpeed or torchtitan, given no --tp,
--pp or --cp, runs at the layout plan picks for that GPU type and count
(docs/plan.md section 2.7). docs/estimation.md explains every term.

Examples:
  gpuadvisor estimate --model llama-3-8b --task lora --gpu rtx-4090
  gpuadvisor estimate --model-size 7B --task finetune --gpu a100-80gb-sxm --gpus 8 --sharding zero3
  gpuadvisor estimate --model llama-2-70b --task inference --seq-len 4096 --batch-size 8
  gpuadvisor estimate --model llama-3.1-70b --task inference --gpu h100-sxm --gpus 4 \
      --concurrency 64 --disaggregate 1:3
  gpuadvisor estimate --model llama-3.1-8b --task inference --gpu h100-sxm --concurrency 32 \
      --emit vllm --output-dir serve/
  gpuadvisor estimate --model llama-3-70b --tokens 15T --gpu h100-sxm --gpus 1024
  gpuadvisor estimate --model resnet-50 --gpu a100-80gb-sxm --batch-size 256 --format json
  gpuadvisor estimate --model-size 175B --layers 96 --hidden 12288 --heads 96 --gpu a100-80gb-sxm \
      --gpus 64 --tp 8 --pp 8 --sequence-parallel on --global-batch 64

Exit codes: 0 an estimate (with --gpu: the job fits, as given or with the
listed changes), 1 with --gpu: it does not fit that GPU even with changes,
2 bad input.)");
  add_workload_flags(cmd, flags->w, /*with_gpu=*/true, "pretrain");
  add_layout_flags(cmd->add_option_group("Parallel layout",
                                         "The run's tensor/pipeline/context parallel layout "
                                         "(needs --gpu; priced by plan's layout cost model; "
                                         "none given: plan's fastest, for the stacks that run "
                                         "one)"),
                   flags->layout, LayoutUse::run);
  auto* dis = cmd->add_option_group(
      "Disaggregated serving",
      "Prefill and decode on separate instances (vLLM, SGLang, Dynamo), beside the same GPUs "
      "serving aggregated (needs --gpu; docs/serving.md section 3.3)");
  dis->add_option("--disaggregate", flags->disaggregate,
                  "PREFILL:DECODE instances, each decode instance on --gpus GPUs; "
                  "--concurrency or --request-rate is the load on them all")
      ->type_name("P:D");
  dis->add_option("--prefill-gpus", flags->prefill_gpus,
                  "GPUs of each prefill instance (default: --gpus)")
      ->type_name("N");
  auto* e =
      cmd->add_option_group("Launch file", "The serving engine's launch, as the estimate runs it");
  set_choices(e->add_option("--emit", flags->emit,
                            "vllm, sglang or trtllm (the --engine): serve-ENGINE.sh, and "
                            "TensorRT-LLM's YAML beside it")
                  ->type_name("ENGINE"),
              {"vllm", "sglang", "trtllm"});
  e->add_option("--output-dir", flags->output_dir, "Folder for the --emit files (created)")
      ->type_name("DIR");
  e->add_flag("--force", flags->force, "Replace files that exist in --output-dir");
  r.add(cmd, kEstimateFormats, [&g, flags] { return run_estimate(g, *flags); });
}

}  // namespace gpuadvisor::cli
