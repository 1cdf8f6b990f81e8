// Build spec parsing: the top level, site, software, data, workloads and
// waivers; "parts" is read by spec_parts.cpp.
#include "gpuadvisor/rules/spec.hpp"
#include "gpuadvisor/core/suggest.hpp"

#include "gpuadvisor/rules/region.hpp"
#include "gpuadvisor/rules/registry.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "doc_fields.hpp"
#include "gpuadvisor/catalog/parts.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/workload/workload.hpp"
#include "spec_impl.hpp"

namespace gpuadvisor::rules {
namespace {

using catalog::Catalog;
using detail::Ctx;
using detail::read_parts;
using detail::valid_version;
using nlohmann::json;

/// The region's default circuit when the spec states none.
void default_circuit(Site& s, const Region& region, const Build& b) {
  const double voltage = s.voltage;
  const int circuits = s.circuits;
  s = default_site(region, b.platform != nullptr ? b.platform->kind : catalog::PlatformKind::tower);
  if (voltage > 0) s.voltage = voltage;
  if (circuits > 1) s.circuits = circuits;
}

void read_site(ObjectReader& top, Ctx& ctx) {
  Site& s = ctx.spec.build.site;
  const Region* region = find_region(ctx.region);
  if (region == nullptr) region = find_region(kDefaultRegion);
  const json* v = top.object("site", Need::optional);
  if (v == nullptr) {
    default_circuit(s, *region, ctx.spec.build);
    return;
  }
  ObjectReader r(*v, "site", ctx.file, ctx.diags);
  if (auto id = r.string("region", Need::optional)) {
    if (const Region* g = find_region(*id)) {
      region = g;
    } else {
      r.error("region", fmt::format("unknown region \"{}\"; expected one of {}", *id,
                                    fmt::join(region_ids(), ", ")));
    }
  }
  s.region = region->id;
  auto circuit = r.number("circuit_w", 100, 1e6, Need::optional);
  auto voltage = r.number("voltage", 90, 480, Need::optional);
  auto amps = r.number("amps", 1, 1000, Need::optional);
  if (auto n = r.integer("circuits", 1, 64, Need::optional)) s.circuits = static_cast<int>(*n);
  r.finish();
  if (amps && !voltage) {
    r.error("amps", "site.amps needs site.voltage (or give site.circuit_w)");
    return;
  }
  if (voltage) s.voltage = *voltage;
  if (!circuit && !(voltage && amps)) {
    default_circuit(s, *region, ctx.spec.build);
    return;
  }
  if (voltage && amps) {
    const double w = *voltage * *amps;
    if (circuit && std::abs(*circuit - w) > 0.01 * w) {
      r.error("circuit_w", fmt::format("{} W does not match voltage x amps ({} V x {} A = {} W)",
                                       *circuit, *voltage, *amps, w));
    }
    s.circuit_w = w;
  } else if (circuit) {
    s.circuit_w = *circuit;
    if (!voltage) {
      // Read in the region: a US 1,800 W circuit is 120 V, a 3,680 W one 240 V.
      // The assumption is stated in every power finding.
      s.voltage = circuit_voltage(*region, *circuit);
      s.voltage_assumed = true;
    }
  }
}

void read_software(ObjectReader& top, Ctx& ctx) {
  const json* v = top.object("software", Need::optional);
  if (v == nullptr) return;
  ObjectReader r(*v, "software", ctx.file, ctx.diags);
  Software& s = ctx.spec.build.software;
  for (auto [key, field] : {std::pair<std::string_view, std::string*>{"cuda", &s.cuda},
                            std::pair<std::string_view, std::string*>{"rocm", &s.rocm}}) {
    if (auto ver = r.string(key, Need::optional)) {
      if (valid_version(*ver))
        *field = *ver;
      else
        r.error(key, fmt::format("expected a version such as \"12.4\", got \"{}\"", *ver));
    }
  }
  if (auto fw = r.string("framework", Need::optional)) {
    if (ctx.rs.framework(*fw) != nullptr) {
      s.framework = *fw;
    } else {
      std::vector<std::string> ids;
      for (const auto& f : ctx.rs.frameworks) ids.push_back(f.id);
      std::string msg = fmt::format("unknown framework \"{}\"", *fw);
      msg += did_you_mean(
          *fw, ids, fmt::format("; known: {} (add others with --rules)", fmt::join(ids, ", ")));
      r.error("framework", msg);
    }
  }
  r.finish();
}

void read_data(ObjectReader& top, Ctx& ctx) {
  const json* v = top.object("data", Need::optional);
  if (v == nullptr) return;
  ObjectReader r(*v, "data", ctx.file, ctx.diags);
  if (auto gb = r.number("dataset_gb", 0, 1e9, Need::optional))
    ctx.spec.build.data.dataset_gb = *gb;
  if (auto n = r.integer("checkpoints", 0, 1000, Need::optional)) {
    ctx.spec.build.data.checkpoints = static_cast<int>(*n);
  }
  r.finish();
}

void read_workloads(ObjectReader& top, Ctx& ctx) {
  const json* arr = top.array("workloads", Need::optional);
  if (arr == nullptr) return;
  const int gpus = ctx.spec.build.gpu ? ctx.spec.build.gpu.count : 0;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string path = index_path("workloads", i);
    const std::size_t before = ctx.diags.size();
    workload::WorkloadInput in =
        workload::parse_workload_json((*arr)[i], path, ctx.file, ctx.diags);
    if (ctx.diags.size() != before) continue;
    if (in.gpu) {
      ctx.diags.push_back(
          {ctx.file, path + ".gpu", "a spec's workloads run on the build's GPUs; remove \"gpu\""});
      continue;
    }
    if (in.gpus && gpus > 0 && *in.gpus > gpus) {
      ctx.diags.push_back(
          {ctx.file, path + ".gpus", fmt::format("{} GPUs, but the build has {}", *in.gpus, gpus)});
      continue;
    }
    if (!in.gpus && gpus > 0) in.gpus = gpus;
    auto w = workload::resolve(in, ctx.cat, workload::Origin::json(ctx.file, path));
    if (!w) {
      ctx.diags.insert(ctx.diags.end(), w.error().begin(), w.error().end());
      continue;
    }
    ctx.spec.workloads.push_back(std::move(*w));
  }
}

void read_waivers(ObjectReader& top, Ctx& ctx) {
  const json* arr = top.array("waivers", Need::optional);
  if (arr == nullptr) return;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string path = index_path("waivers", i);
    ObjectReader r((*arr)[i], path, ctx.file, ctx.diags);
    if (!r.ok()) continue;
    Waiver w;
    w.path = path;
    if (auto rule = r.string("rule")) {
      if (find_rule(*rule) == nullptr) {
        r.error("rule", detail::unknown_rule_message(*rule));
      } else if (std::any_of(ctx.spec.waivers.begin(), ctx.spec.waivers.end(),
                             [&](const Waiver& x) { return x.rule == *rule; })) {
        r.error("rule", fmt::format("rule {} is already waived", *rule));
      } else {
        w.rule = *rule;
      }
    }
    if (const json* reason = r.value("reason")) {
      const bool blank = !reason->is_string() || reason->get<std::string>().find_first_not_of(
                                                     " \t\r\n") == std::string::npos;
      if (blank) {
        r.error("reason", fmt::format("a waiver needs a reason (why the rule does not apply "
                                      "here), got {}",
                                      describe(*reason)));
      } else {
        w.reason = reason->get<std::string>();
      }
    }
    r.finish();
    if (!w.rule.empty() && !w.reason.empty()) ctx.spec.waivers.push_back(std::move(w));
  }
}

}  // namespace

BuildSpec::BuildSpec() = default;
BuildSpec::BuildSpec(const BuildSpec&) = default;
BuildSpec::BuildSpec(BuildSpec&&) noexcept = default;
BuildSpec& BuildSpec::operator=(const BuildSpec&) = default;
BuildSpec& BuildSpec::operator=(BuildSpec&&) noexcept = default;
BuildSpec::~BuildSpec() = default;

gpuadvisor::expected<BuildSpec, Diagnostics> parse_spec(std::string_view text,
                                                        const std::string& file, const Catalog& cat,
                                                        const RuleSet& rs,
                                                        std::string_view region) {
  auto doc = parse_json(text, file);
  if (!doc) return gpuadvisor::unexpected(Diagnostics{doc.error()});
  Diagnostics diags;
  BuildSpec spec;
  spec.file = file;
  Ctx ctx{file, cat, rs, diags, spec, region};
  ObjectReader top(*doc, "", file, diags);
  if (!top.ok()) return gpuadvisor::unexpected(std::move(diags));
  if (auto v = top.integer("schema_version", 0, 1000000)) {
    if (*v != kSpecSchemaVersion) {
      top.error("schema_version", fmt::format("unsupported spec version {}; this gpuadvisor reads "
                                              "version {}",
                                              *v, kSpecSchemaVersion));
    }
  }
  spec.name =
      top.string("name", Need::optional).value_or(std::filesystem::path(file).filename().string());
  (void)top.string("description", Need::optional);
  read_parts(top, ctx);
  read_site(top, ctx);
  read_software(top, ctx);
  read_data(top, ctx);
  read_workloads(top, ctx);
  read_waivers(top, ctx);
  top.finish();
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));
  spec.build.name = spec.name;
  return spec;
}

}  // namespace gpuadvisor::rules
