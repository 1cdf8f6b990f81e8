// Software rules: SW001 (stack matches the vendor), SW002 (stack version
// supports the architecture), SW003 (framework release supports both).
#include <algorithm>

#include <fmt/format.h>

#include "engine_internal.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::rules::detail {

using Words = RuleContext::Words;
namespace {

std::string stack_name(std::string_view stack) { return stack == "rocm" ? "ROCm" : "CUDA"; }

/// The declared version of the GPU's own stack ("" when not stated).
const std::string& declared(const Build& b) {
  return b.architecture->stack == "rocm" ? b.software.rocm : b.software.cuda;
}

bool arch_supports(const catalog::Architecture& a, std::string_view version) {
  if (!a.min_stack_version.empty() && compare_versions(version, a.min_stack_version) < 0) {
    return false;
  }
  return a.max_stack_version.empty() || compare_versions(version, a.max_stack_version) <= 0;
}

bool excluded(const FrameworkSupport& fw, std::string_view version, std::string_view cc) {
  for (const auto& [v, ccs] : fw.cuda_excluded) {
    if (compare_versions(v, version) == 0 && std::find(ccs.begin(), ccs.end(), cc) != ccs.end()) {
      return true;
    }
  }
  return false;
}

std::string arch_label(const catalog::Architecture& a) {
  return fmt::format("{} ({} {})", a.id, a.stack == "rocm" ? "target" : "compute capability",
                     a.compute_capability);
}

/// "pytorch" for "pytorch-2.5".
std::string_view family(std::string_view id) {
  const auto dash = id.rfind('-');
  return dash == std::string_view::npos ? id : id.substr(0, dash);
}

}  // namespace

static void sw001(RuleContext& c) {
  if (c.b.architecture == nullptr || !c.b.gpu) return c.not_applicable("no GPUs");
  const auto& s = c.b.software;
  if (s.cuda.empty() && s.rocm.empty()) return c.not_applicable("no CUDA or ROCm version stated");
  const auto& a = *c.b.architecture;
  const auto& g = *c.b.gpu.part;
  if (a.stack == "rocm" && !s.cuda.empty()) {
    c.fail([&] {
      return Words{fmt::format("the spec declares CUDA {} for {}; AMD GPUs run ROCm, not CUDA",
                               s.cuda, g.name),
                   text_qty("CUDA " + s.cuda), text_qty("ROCm"),
                   fmt::format("declare software.rocm ({} or later for {}) and a ROCm build of the "
                               "framework; remove software.cuda",
                               a.min_stack_version, a.id),
                   "software.cuda"};
    });
  } else if (a.stack == "cuda" && !s.rocm.empty()) {
    c.fail([&] {
      return Words{fmt::format("the spec declares ROCm {} for {}; NVIDIA GPUs run CUDA, not ROCm",
                               s.rocm, g.name),
                   text_qty("ROCm " + s.rocm), text_qty("CUDA"),
                   fmt::format("declare software.cuda ({} or later for {}); remove software.rocm",
                               a.min_stack_version, a.id),
                   "software.rocm"};
    });
  }
}

static void sw002(RuleContext& c) {
  if (c.b.architecture == nullptr || !c.b.gpu) return c.not_applicable("no GPUs");
  const auto& a = *c.b.architecture;
  const std::string& v = declared(c.b);
  const std::string stack = stack_name(a.stack);
  if (v.empty()) return c.not_applicable(fmt::format("no {} version stated", stack));
  const std::string path = a.stack == "rocm" ? "software.rocm" : "software.cuda";
  const std::string& gpu = c.b.gpu.part->name;
  if (!a.min_stack_version.empty() && compare_versions(v, a.min_stack_version) < 0) {
    c.fail([&] {
      return Words{fmt::format("{} is {}, first supported by {} {}; the spec declares {} {}", gpu,
                               arch_label(a), stack, a.min_stack_version, stack, v),
                   text_qty(stack + " " + v), text_qty(">= " + a.min_stack_version),
                   fmt::format("use {} {} or later", stack, a.min_stack_version), path};
    });
  } else if (!a.max_stack_version.empty() && compare_versions(v, a.max_stack_version) > 0) {
    c.fail([&] {
      return Words{fmt::format("{} is {}, last supported by {} {}; {} {} dropped it", gpu,
                               arch_label(a), stack, a.max_stack_version, stack, v),
                   text_qty(stack + " " + v), text_qty("<= " + a.max_stack_version),
                   fmt::format("stay on {} {} (and a framework build for it), or use a newer GPU",
                               stack, a.max_stack_version),
                   path};
    });
  }
}

static void sw003(RuleContext& c) {
  const auto& s = c.b.software;
  if (s.framework.empty()) return c.not_applicable("no framework stated");
  if (c.b.architecture == nullptr || !c.b.gpu) return c.not_applicable("no GPUs");
  const auto& a = *c.b.architecture;
  const std::string stack = stack_name(a.stack);
  const FrameworkSupport* fw = c.rs.framework(s.framework);
  if (fw == nullptr) {
    c.fail([&] {
      return Words{fmt::format("{} is not in the rules' framework table", s.framework),
                   text_qty(s.framework), text_qty("a known framework release"),
                   "add it to a --rules file's \"frameworks\"", "software.framework"};
    });
    return;
  }
  const auto& versions = a.stack == "rocm" ? fw->rocm : fw->cuda;
  const std::string list = fmt::format("{}", fmt::join(versions, ", "));
  if (versions.empty()) {
    c.fail([&] {
      return Words{fmt::format("{} ships no {} builds; {} needs {}", fw->id, stack,
                               c.b.gpu.part->name, stack),
                   text_qty(fw->id), text_qty(stack + " builds"),
                   fmt::format("use a {} release with {} builds", family(fw->id), stack),
                   "software.framework"};
    });
    return;
  }
  const std::string& v = declared(c.b);
  const std::string cc = a.compute_capability;
  if (!v.empty()) {
    auto match = std::find_if(versions.begin(), versions.end(),
                              [&](const std::string& x) { return compare_versions(x, v) == 0; });
    if (match == versions.end()) {
      std::vector<std::string> others;
      for (const auto& f : c.rs.frameworks) {
        if (family(f.id) != family(fw->id)) continue;
        const auto& fv = a.stack == "rocm" ? f.rocm : f.cuda;
        if (std::any_of(fv.begin(), fv.end(),
                        [&](const std::string& x) { return compare_versions(x, v) == 0; })) {
          others.push_back(f.id);
        }
      }
      std::string fix = fmt::format("use {} {} with {}", stack, list, fw->id);
      if (!others.empty()) {
        fix +=
            fmt::format(", or a release with {} {} builds ({})", stack, v, fmt::join(others, ", "));
      }
      c.fail([&] {
        return Words{fmt::format("{} ships builds for {} {}; the spec declares {} {}", fw->id,
                                 stack, list, stack, v),
                     text_qty(stack + " " + v), text_qty(stack + " " + list), fix,
                     "software.framework"};
      });
      return;
    }
    if (a.stack == "cuda" && excluded(*fw, *match, cc)) {
      std::vector<std::string> alt;
      for (const auto& x : versions) {
        if (arch_supports(a, x) && !excluded(*fw, x, cc)) alt.push_back(x);
      }
      c.fail([&] {
        return Words{
            fmt::format("{}'s CUDA {} builds leave out {}", fw->id, *match, arch_label(a)),
            text_qty("CUDA " + v), text_qty(fmt::format("a build for compute capability {}", cc)),
            alt.empty() ? std::string("use an older framework release, or a newer GPU")
                        : fmt::format("use {}'s CUDA {} build", fw->id, fmt::join(alt, " or ")),
            "software.framework"};
      });
    }
    return;
  }
  // No stack version declared: some build of the release must run on the GPU.
  for (const auto& x : versions) {
    if (arch_supports(a, x) && (a.stack != "cuda" || !excluded(*fw, x, cc))) return;
  }
  c.fail([&] {
    return Words{
        fmt::format("no {} build ({} {}) supports {}", fw->id, stack, list, arch_label(a)),
        text_qty(fw->id),
        text_qty(fmt::format("{} {}-{}", stack, a.min_stack_version,
                             a.max_stack_version.empty() ? std::string("") : a.max_stack_version)),
        fmt::format("use a {} release with a {} build that supports {}", family(fw->id), stack,
                    a.id),
        "software.framework"};
  });
}

static void sw004(RuleContext& c) {
  if (c.workloads.empty()) return c.not_applicable("no workloads declared");
  if (c.b.architecture == nullptr || !c.b.gpu) return c.not_applicable("no GPUs");
  const auto& a = *c.b.architecture;
  for (std::size_t i = 0; i < c.workloads.size(); ++i) {
    const auto p = c.workloads[i].precision;
    const bool bf16 = p == workload::Precision::bf16;
    const bool fp8 = p == workload::Precision::fp8;
    if (!c.workloads[i].precision_stated || ((!bf16 || a.bf16) && (!fp8 || a.fp8))) continue;
    c.fail([&] {
      return Words{
          fmt::format("{} runs {}; {} ({}) has no {} tensor cores", c.workloads[i].model_name,
                      workload::to_string(p), c.b.gpu.part->name, a.id, bf16 ? "BF16" : "FP8"),
          text_qty(std::string(workload::to_string(p))),
          text_qty(bf16 ? "fp16 or fp32" : "bf16, fp16 or fp32"),
          bf16 ? "train in fp16 with loss scaling, or use a GPU with BF16 (Ampere or "
                 "newer, CDNA2 or newer)"
               : "train in bf16, or use a GPU with FP8 (Ada, Hopper, Blackwell, CDNA3)",
          index_path("workloads", i)};
    });
  }
}

/// The training libraries a workload needs that ROCm gets late or as ports:
/// bitsandbytes' 4-bit kernels (QLoRA) and an FP8 training library.
static void sw005(RuleContext& c) {
  if (c.workloads.empty()) return c.not_applicable("no workloads declared");
  if (c.b.architecture == nullptr || !c.b.gpu) return c.not_applicable("no GPUs");
  if (c.b.architecture->stack != "rocm") return c.not_applicable("not a ROCm GPU");
  for (std::size_t i = 0; i < c.workloads.size(); ++i) {
    const auto& w = c.workloads[i];
    const bool qlora = w.task == workload::Task::qlora;
    const bool fp8 = w.training() && w.precision == workload::Precision::fp8;
    if (!qlora && !fp8) continue;
    c.fail([&] {
      return qlora ? Words{fmt::format("{} QLoRA on {} needs bitsandbytes' 4-bit kernels for ROCm: "
                                       "experimental up to bitsandbytes 0.49, supported from 0.50",
                                       w.model_name, c.b.gpu.part->name),
                           text_qty("QLoRA on ROCm"), text_qty("bitsandbytes >= 0.50 (ROCm)"),
                           "install bitsandbytes 0.50 or later built for ROCm (check its "
                           "installation guide for your ROCm version), or train LoRA on a 16-bit "
                           "base",
                           index_path("workloads", i)}
                   : Words{fmt::format("{} trains in FP8 on {}: NVIDIA's Transformer Engine does "
                                       "not run on ROCm; FP8 training needs AMD's port",
                                       w.model_name, c.b.gpu.part->name),
                           text_qty("FP8 training on ROCm"), text_qty("ROCm Transformer Engine"),
                           "use AMD's Transformer Engine build (ROCm/TransformerEngine) or a "
                           "framework release with ROCm FP8 support, or train in bf16",
                           index_path("workloads", i)};
    });
  }
}

namespace {

// The software rules read the GPU, its architecture and the declared stack:
// the search decides them once per GPU model and count.
const RuleDecl kSoftwareRules[] = {
    {.id = "SW001", .group = "software", .needs = part::gpu, .fn = sw001},
    {.id = "SW002", .group = "software", .needs = part::gpu, .fn = sw002},
    {.id = "SW003", .group = "software", .needs = part::gpu, .fn = sw003},
    {.id = "SW004", .group = "software", .needs = part::gpu, .fn = sw004},
    {.id = "SW005", .group = "software", .needs = part::gpu, .fn = sw005},
};

}  // namespace

std::span<const RuleDecl> software_rules() { return kSoftwareRules; }

}  // namespace gpuadvisor::rules::detail
