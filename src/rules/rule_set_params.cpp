// Rule parameters: each value a rules file gives, checked against its rule's
// declaration (read_params) and set on Parameters (apply_param).
#include <algorithm>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "rule_set_impl.hpp"

namespace gpuadvisor::rules::detail {

std::vector<const ParamDef*> defs_of(std::string_view rule) {
  std::vector<const ParamDef*> out;
  if (const RuleDecl* r = find_rule(rule)) {
    for (const auto& d : r->params) out.push_back(&d);
  }
  return out;
}

namespace {

/// Validates one parameter value; returns false (and reports) when unusable.
bool check_param(const ParamDef& d, const json& v, const std::string& path, const std::string& file,
                 Diagnostics& out) {
  auto fail = [&](std::string msg) {
    out.push_back({file, path, std::move(msg)});
    return false;
  };
  switch (d.kind) {
    case Kind::number: {
      if (!v.is_number()) return fail(fmt::format("expected a number, got {}", describe(v)));
      const double x = v.get<double>();
      if (!(x >= d.min && x <= d.max)) {
        return fail(
            fmt::format("expected a number from {} to {}, got {}", d.min, d.max, describe(v)));
      }
      return true;
    }
    case Kind::integer: {
      if (!v.is_number_integer()) {
        return fail(fmt::format("expected an integer, got {}", describe(v)));
      }
      const bool too_big =
          v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(d.max);
      if (too_big || v.get<std::int64_t>() < static_cast<std::int64_t>(d.min) ||
          v.get<std::int64_t>() > static_cast<std::int64_t>(d.max)) {
        return fail(
            fmt::format("expected an integer from {} to {}, got {}", d.min, d.max, describe(v)));
      }
      return true;
    }
    case Kind::rating: {
      const auto* b = std::begin(kEfficiencyRatings);
      const auto* e = std::end(kEfficiencyRatings);
      if (!v.is_string() || std::find(b, e, v.get<std::string>()) == e) {
        return fail(fmt::format("expected one of {}, got {}", fmt::join(kEfficiencyRatings, ", "),
                                describe(v)));
      }
      return true;
    }
    case Kind::rating_table: {
      if (!v.is_object()) {
        return fail(
            fmt::format("expected an object of 80 Plus rating: efficiency, got {}", describe(v)));
      }
      bool ok = true;
      for (const auto& [k, x] : v.items()) {
        const std::string p = fmt::format("{}.{}", path, k);
        if (efficiency_rank(k) < 0) {
          out.push_back({file, p,
                         fmt::format("unknown 80 Plus rating; expected one of {}",
                                     fmt::join(kEfficiencyRatings, ", "))});
          ok = false;
        } else if (!x.is_number() || !(x.get<double>() >= d.min && x.get<double>() <= d.max)) {
          out.push_back(
              {file, p,
               fmt::format("expected a number from {} to {}, got {}", d.min, d.max, describe(x))});
          ok = false;
        }
      }
      return ok;
    }
  }
  return false;
}

}  // namespace

void apply_param(Parameters& p, const ParamDef& d, const json& v) {
  switch (d.kind) {
    case Kind::number:
      p.*d.number = v.get<double>();
      break;
    case Kind::integer:
      p.*d.integer = static_cast<int>(v.get<std::int64_t>());
      break;
    case Kind::rating:
      p.*d.text = v.get<std::string>();
      break;
    case Kind::rating_table:
      for (const auto& [k, x] : v.items()) (p.*d.table)[k] = x.get<double>();
      break;
  }
}

/// Reads `{"param": value, ...}` of one rule.
std::vector<std::pair<const ParamDef*, json>> read_params(const json& obj, std::string_view rule,
                                                          const std::string& path,
                                                          const std::string& file, bool base,
                                                          Diagnostics& out) {
  std::vector<std::pair<const ParamDef*, json>> result;
  const auto defs = defs_of(rule);
  std::vector<std::string> names;
  for (const auto* d : defs) names.emplace_back(d->name);
  for (const auto& [name, v] : obj.items()) {
    const std::string p = fmt::format("{}.{}", path, name);
    auto it = std::find_if(defs.begin(), defs.end(),
                           [&name = name](const ParamDef* d) { return d->name == name; });
    if (it == defs.end()) {
      std::string msg = defs.empty() ? fmt::format("rule {} has no parameters", rule)
                                     : fmt::format("unknown parameter of rule {}", rule);
      msg += did_you_mean(name, names,
                          defs.empty() ? "" : fmt::format(" (it has: {})", fmt::join(names, ", ")));
      out.push_back({file, p, msg});
      continue;
    }
    if (check_param(**it, v, p, file, out)) result.emplace_back(*it, v);
  }
  if (base) {
    for (const auto* d : defs) {
      if (!obj.contains(d->name)) {
        out.push_back({file, fmt::format("{}.{}", path, d->name), "missing required parameter"});
      } else if (d->kind == Kind::rating_table) {
        for (auto r : kEfficiencyRatings) {
          if (!obj[std::string(d->name)].contains(r)) {
            out.push_back({file, fmt::format("{}.{}.{}", path, d->name, r),
                           "missing efficiency for this rating"});
          }
        }
      }
    }
  }
  return result;
}

}  // namespace gpuadvisor::rules::detail
