#include "layout_flags.hpp"

#include <cmath>

#include <fmt/format.h>

#include "cli.hpp"
#include "gpuadvisor/core/quantity.hpp"

namespace gpuadvisor::cli {

int whole_number(const std::string& text, std::string_view flag, long long lo, long long hi) {
  const auto v = parse_count(text);
  if (!v || *v != std::floor(*v) || *v < static_cast<double>(lo) || *v > static_cast<double>(hi))
    throw InputError(
        Diagnostic{std::string(flag), "",
                   fmt::format("expected a whole number from {} to {}, got \"{}\"", lo, hi, text)});
  return static_cast<int>(*v);
}

void add_layout_flags(CLI::App* g, LayoutFlags& f, LayoutUse use) {
  const bool pin = use == LayoutUse::pin;
  g->add_option("--tp", f.tp, pin ? "Tensor parallel degree" : "Tensor parallel degree of the run")
      ->type_name("N");
  g->add_option("--pp", f.pp, "Pipeline stages")->type_name("N");
  g->add_option("--vp", f.vp, "Interleaved chunks per pipeline stage")->type_name("N");
  g->add_option("--cp", f.cp, "Context parallel degree")->type_name("N");
  set_choices(g->add_option("--sequence-parallel", f.sequence_parallel,
                            pin ? "on or off" : "on or off (default off, as Megatron-LM)")
                  ->type_name("on|off"),
              {"on", "off"});
  g->add_option("--global-batch", f.global_batch,
                pin ? "Sequences per optimizer step (default: the largest within "
                      "--max-batch-tokens)"
                    : "Sequences per optimizer step (default: micro-batch x data parallel, "
                      "Megatron-LM's)")
      ->type_name("N");
}

plan::LayoutInput to_layout_input(const LayoutFlags& f) {
  plan::LayoutInput in;
  if (f.tp) in.tp = whole_number(*f.tp, "--tp", 1, 1024);
  if (f.pp) in.pp = whole_number(*f.pp, "--pp", 1, 1024);
  if (f.vp) in.vp = whole_number(*f.vp, "--vp", 1, 1024);
  if (f.cp) in.cp = whole_number(*f.cp, "--cp", 1, 1024);
  if (f.global_batch)
    in.global_batch = whole_number(*f.global_batch, "--global-batch", 1, 100'000'000);
  if (f.sequence_parallel) {
    in.sequence_parallel = workload::parse_switch(*f.sequence_parallel);
    if (!in.sequence_parallel)
      throw InputError(
          Diagnostic{"--sequence-parallel", "",
                     fmt::format("expected on or off, got \"{}\"", *f.sequence_parallel)});
  }
  return in;
}

}  // namespace gpuadvisor::cli
