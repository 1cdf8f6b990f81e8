// The rule set: data/rules.json (embedded) merged with --rules overlays, and the
// chosen policy's values applied; one document is read by rule_set_read.cpp.
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/core/suggest.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/param_view.hpp"
#include "gpuadvisor/rules/registry.hpp"
#include "rule_set_impl.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view rules;
}

namespace gpuadvisor::rules {
namespace {

using detail::apply_param;
using detail::defs_of;
using detail::Doc;
using detail::Kind;
using detail::ParamDef;
using detail::PolicyDoc;
using detail::read_doc;
using detail::RuleDoc;

void merge_info(RuleInfo& into, const RuleDoc& d) {
  for (const auto& f : d.set_fields) {
    if (f == "title")
      into.title = d.info.title;
    else if (f == "severity")
      into.severity = d.info.severity;
    else if (f == "enabled")
      into.enabled = d.info.enabled;
    else if (f == "rationale")
      into.rationale = d.info.rationale;
    else if (f == "source")
      into.source = d.info.source;
  }
}

}  // namespace

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    default:
      return "error";
  }
}

int efficiency_rank(std::string_view rating) {
  for (std::size_t i = 0; i < std::size(kEfficiencyRatings); ++i) {
    if (kEfficiencyRatings[i] == rating) return static_cast<int>(i);
  }
  return -1;
}

const RuleInfo* RuleSet::rule(std::string_view id) const {
  for (const auto& r : rules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const FrameworkSupport* RuleSet::framework(std::string_view id) const {
  for (const auto& f : frameworks) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const Policy* RuleSet::find_policy(std::string_view name) const {
  for (const auto& p : policies) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<ParamView> RuleSet::parameters(std::string_view rule) const {
  std::vector<ParamView> out;
  for (const ParamDef* d : defs_of(rule)) {
    ParamView v{std::string(rule), std::string(d->name), std::string(d->unit), {}};
    switch (d->kind) {
      case Kind::number:
        v.value = params.*d->number;
        break;
      case Kind::integer:
        v.value = params.*d->integer;
        break;
      case Kind::rating:
        v.value = params.*d->text;
        break;
      case Kind::rating_table: {
        v.value = nlohmann::ordered_json::object();
        // In rating order, not alphabetical.
        for (auto r : kEfficiencyRatings) {
          auto it = (params.*d->table).find(std::string(r));
          if (it != (params.*d->table).end()) v.value[std::string(r)] = it->second;
        }
        break;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

gpuadvisor::expected<RuleSet, Diagnostics> parse_rule_set(const RulesText& base,
                                                          std::span<const RulesText> overlays,
                                                          std::string_view policy) {
  Diagnostics diags;
  std::vector<Doc> docs;
  if (auto d = read_doc(base, true, diags)) docs.push_back(std::move(*d));
  for (const auto& o : overlays) {
    if (auto d = read_doc(o, false, diags)) docs.push_back(std::move(*d));
  }
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));

  RuleSet rs;
  for (const RuleDecl* def : registry()) {
    RuleInfo info;
    info.id = def->id;
    info.group = def->group;
    rs.rules.push_back(std::move(info));
  }
  std::string default_policy;
  std::unordered_map<std::string, std::size_t> framework_index;
  for (const auto& doc : docs) {
    if (!doc.default_policy.empty()) default_policy = doc.default_policy;
    for (const auto& rd : doc.rules) {
      for (auto& info : rs.rules) {
        if (info.id == rd.info.id) merge_info(info, rd);
      }
    }
    // An id index keeps merging linear in the entries (a search per entry
    // made rules files with many framework entries quadratic).
    for (const auto& f : doc.frameworks) {
      auto [it, added] = framework_index.emplace(f.id, rs.frameworks.size());
      if (added)
        rs.frameworks.push_back(f);
      else
        rs.frameworks[it->second] = f;
    }
    for (const auto& pd : doc.policies) {
      auto it = std::find_if(rs.policies.begin(), rs.policies.end(),
                             [&](const Policy& p) { return p.name == pd.policy.name; });
      if (it == rs.policies.end()) {
        rs.policies.push_back(pd.policy);
      } else {
        if (pd.has_description) it->description = pd.policy.description;
        if (pd.has_source) it->source = pd.policy.source;
        for (const auto& [rule, values] : pd.policy.parameters->items()) {
          for (const auto& [name, v] : values.items()) (*it->parameters)[rule][name] = v;
        }
      }
    }
  }
  // Policies new in an overlay need their description and source.
  for (std::size_t i = 1; i < docs.size(); ++i) {
    for (const auto& pd : docs[i].policies) {
      const bool in_base =
          std::any_of(docs[0].policies.begin(), docs[0].policies.end(),
                      [&](const PolicyDoc& b) { return b.policy.name == pd.policy.name; });
      if (!in_base && (!pd.has_description || !pd.has_source)) {
        diags.push_back({overlays[i - 1].file, "policies." + pd.policy.name,
                         "a new policy needs a \"description\" and a \"source\""});
      }
    }
  }

  // Releases in version order within a family ("pytorch-2.9" before "pytorch-2.10").
  std::stable_sort(rs.frameworks.begin(), rs.frameworks.end(),
                   [](const FrameworkSupport& a, const FrameworkSupport& b) {
                     const auto da = a.id.rfind('-');
                     const auto db = b.id.rfind('-');
                     const std::string fa = a.id.substr(0, da);
                     const std::string fb = b.id.substr(0, db);
                     if (fa != fb) return fa < fb;
                     if (da == std::string::npos || db == std::string::npos) return a.id < b.id;
                     return compare_versions(a.id.substr(da + 1), b.id.substr(db + 1)) < 0;
                   });
  rs.policy = policy.empty() ? default_policy : std::string(policy);
  if (rs.find_policy(rs.policy) == nullptr) {
    std::vector<std::string> names;
    for (const auto& p : rs.policies) names.push_back(p.name);
    std::string msg =
        fmt::format("unknown policy \"{}\"; expected {}", rs.policy, fmt::join(names, " or "));
    msg += did_you_mean(rs.policy, names);
    diags.push_back(
        {policy.empty() ? base.file : "--policy", policy.empty() ? "default_policy" : "", msg});
  }
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));

  for (const auto& doc : docs) {
    for (const auto& rd : doc.rules) {
      for (const auto& [d, v] : rd.params) apply_param(rs.params, *d, v);
    }
    for (const auto& pd : doc.policies) {
      if (pd.policy.name != rs.policy) continue;
      for (const auto& [d, v] : pd.params) apply_param(rs.params, *d, v);
    }
  }
  return rs;
}

gpuadvisor::expected<RuleSet, Diagnostics> load_rule_set(const std::string& rules_file,
                                                         std::string_view policy) {
  const RulesText base{embedded::rules, "<embedded rules>"};
  if (rules_file.empty()) return parse_rule_set(base, {}, policy);
  auto text = read_file(rules_file);
  if (!text) return gpuadvisor::unexpected(Diagnostics{text.error()});
  const RulesText overlay{*text, rules_file};
  return parse_rule_set(base, std::span<const RulesText>(&overlay, 1), policy);
}

const RuleSet& embedded_rule_set() {
  static const RuleSet rs = [] {
    auto r = load_rule_set("", "");
    if (!r) throw std::runtime_error("embedded rules are invalid:\n" + to_string(r.error()));
    return std::move(*r);
  }();
  return rs;
}

}  // namespace gpuadvisor::rules
