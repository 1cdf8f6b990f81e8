// Rule parameters: data/rules.json (embedded), --rules overlays, policies.
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/core/suggest.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/registry.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view rules;
}

namespace gpuadvisor::rules {
namespace {

using nlohmann::json;

using Kind = ParamKind;
using ParamDef = ParamDecl;

std::vector<const ParamDef*> defs_of(std::string_view rule) {
  std::vector<const ParamDef*> out;
  if (const RuleDecl* r = find_rule(rule)) {
    for (const auto& d : r->params) out.push_back(&d);
  }
  return out;
}

/// What one document says; merged in order afterwards.
struct RuleDoc {
  RuleInfo info;
  std::vector<std::string> set_fields;                   ///< fields this document set
  std::vector<std::pair<const ParamDef*, json>> params;  ///< validated values
};

struct PolicyDoc {
  Policy policy;
  bool has_description = false;
  bool has_source = false;
  std::vector<std::pair<const ParamDef*, json>> params;
};

struct Doc {
  std::string default_policy;
  std::vector<RuleDoc> rules;
  std::vector<PolicyDoc> policies;
  std::vector<FrameworkSupport> frameworks;
};

std::vector<std::string> known_rule_ids() {
  std::vector<std::string> ids;
  for (const RuleDecl* d : registry()) ids.emplace_back(d->id);
  return ids;
}

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

const RuleDecl* find_def(std::string_view id) { return find_rule(id); }

void unknown_rule(const std::string& id, const std::string& path, const std::string& file,
                  Diagnostics& out) {
  std::string msg = fmt::format("unknown rule \"{}\"", id);
  msg += did_you_mean(id, known_rule_ids(), " (see 'gpuadvisor rules')");
  out.push_back({file, path, msg});
}

void read_rules(ObjectReader& top, Doc& doc, const std::string& file, bool base, Diagnostics& out) {
  const json* rules = top.object("rules", base ? Need::required : Need::optional);
  if (rules == nullptr) return;
  for (const auto& [id, v] : rules->items()) {
    const std::string path = top.child_path("rules") + "." + id;
    const RuleDecl* def = find_def(id);
    if (def == nullptr) {
      unknown_rule(id, path, file, out);
      continue;
    }
    ObjectReader r(v, path, file, out);
    if (!r.ok()) continue;
    const Need need = base ? Need::required : Need::optional;
    RuleDoc rd;
    rd.info.id = id;
    rd.info.group = def->group;
    auto note = [&](std::string_view f) {
      if (r.has(f)) rd.set_fields.emplace_back(f);
    };
    if (auto t = r.string("title", need)) rd.info.title = *t;
    if (auto s =
            r.choice("severity", std::vector<std::string_view>{"info", "warning", "error"}, need)) {
      rd.info.severity = static_cast<Severity>(*s);
    }
    if (auto e = r.boolean("enabled", Need::optional)) rd.info.enabled = *e;
    if (auto t = r.string("rationale", need)) rd.info.rationale = *t;
    if (auto t = r.string("source", need)) rd.info.source = *t;
    for (auto f : {"title", "severity", "enabled", "rationale", "source"}) note(f);
    const bool has_params = !defs_of(id).empty();
    if (const json* p =
            r.object("parameters", base && has_params ? Need::required : Need::optional)) {
      rd.params = read_params(*p, id, r.child_path("parameters"), file, base, out);
    }
    r.finish();
    doc.rules.push_back(std::move(rd));
  }
  if (base) {
    for (const RuleDecl* d : registry()) {
      if (!rules->contains(d->id)) {
        out.push_back({file, fmt::format("rules.{}", d->id),
                       "missing rule: every rule needs its "
                       "title, severity, rationale and source"});
      }
    }
  }
}

void read_policies(ObjectReader& top, Doc& doc, const std::string& file, bool base,
                   Diagnostics& out) {
  const json* pols = top.object("policies", base ? Need::required : Need::optional);
  if (pols == nullptr) return;
  for (const auto& [name, v] : pols->items()) {
    const std::string path = top.child_path("policies") + "." + name;
    ObjectReader r(v, path, file, out);
    if (!r.ok()) continue;
    PolicyDoc pd;
    pd.policy.name = name;
    const Need need = base ? Need::required : Need::optional;
    if (auto d = r.string("description", need)) {
      pd.policy.description = *d;
      pd.has_description = true;
    }
    if (auto s = r.string("source", need)) {
      pd.policy.source = *s;
      pd.has_source = true;
    }
    if (const json* params = r.object("parameters", need)) {
      for (const auto& [rule, pv] : params->items()) {
        const std::string rpath = r.child_path("parameters") + "." + rule;
        if (find_def(rule) == nullptr) {
          unknown_rule(rule, rpath, file, out);
          continue;
        }
        if (!pv.is_object()) {
          out.push_back({file, rpath, fmt::format("expected an object, got {}", describe(pv))});
          continue;
        }
        auto values = read_params(pv, rule, rpath, file, false, out);
        for (auto& [d, val] : values)
          pd.policy.parameters[std::string(rule)][std::string(d->name)] = val;
        pd.params.insert(pd.params.end(), values.begin(), values.end());
      }
    }
    r.finish();
    doc.policies.push_back(std::move(pd));
  }
}

bool valid_version(std::string_view v) {
  if (v.empty() || v.front() == '.' || v.back() == '.') return false;
  bool prev_dot = false;
  for (char c : v) {
    if (c == '.') {
      if (prev_dot) return false;
      prev_dot = true;
    } else if (c < '0' || c > '9') {
      return false;
    } else {
      prev_dot = false;
    }
  }
  return true;
}

std::vector<std::string> read_versions(const json& arr, const std::string& path,
                                       const std::string& file, Diagnostics& out) {
  std::vector<std::string> result;
  if (!arr.is_array()) {
    out.push_back(
        {file, path, fmt::format("expected an array of versions, got {}", describe(arr))});
    return result;
  }
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& v = arr[i];
    if (!v.is_string() || !valid_version(v.get<std::string>())) {
      out.push_back({file, index_path(path, i),
                     fmt::format("expected a version such as \"12.4\", got {}", describe(v))});
    } else {
      result.push_back(v.get<std::string>());
    }
  }
  return result;
}

void read_frameworks(ObjectReader& top, Doc& doc, const std::string& file, bool base,
                     Diagnostics& out) {
  const json* fws = top.object("frameworks", base ? Need::required : Need::optional);
  if (fws == nullptr) return;
  for (const auto& [id, v] : fws->items()) {
    const std::string path = top.child_path("frameworks") + "." + id;
    ObjectReader r(v, path, file, out);
    if (!r.ok()) continue;
    FrameworkSupport f;
    f.id = id;
    if (const json* c = r.value("cuda", Need::optional)) {
      f.cuda = read_versions(*c, r.child_path("cuda"), file, out);
    }
    if (const json* c = r.value("rocm", Need::optional)) {
      f.rocm = read_versions(*c, r.child_path("rocm"), file, out);
    }
    if (const json* ex = r.object("cuda_excluded", Need::optional)) {
      for (const auto& [ver, ccs] : ex->items()) {
        const std::string p = r.child_path("cuda_excluded") + "." + ver;
        if (!valid_version(ver)) {
          out.push_back({file, p, "expected a CUDA version such as \"12.8\" as the key"});
          continue;
        }
        f.cuda_excluded[ver] = read_versions(ccs, p, file, out);
      }
    }
    f.source = r.string("source").value_or("");
    if (!r.has("cuda") && !r.has("rocm")) {
      out.push_back({file, path, "expected \"cuda\" or \"rocm\" versions (or both)"});
    }
    r.finish();
    doc.frameworks.push_back(std::move(f));
  }
}

std::optional<Doc> read_doc(const RulesText& t, bool base, Diagnostics& out) {
  auto parsed = parse_json(t.text, t.file);
  if (!parsed) {
    out.push_back(parsed.error());
    return std::nullopt;
  }
  const std::size_t before = out.size();
  ObjectReader top(*parsed, "", t.file, out);
  if (!top.ok()) return std::nullopt;
  Doc doc;
  if (auto v = top.integer("schema_version", 0, 1000000)) {
    if (*v != kRulesSchemaVersion) {
      top.error("schema_version", fmt::format("unsupported rules version {}; this gpuadvisor reads "
                                              "version {}",
                                              *v, kRulesSchemaVersion));
    }
  }
  (void)top.string("description", Need::optional);
  doc.default_policy =
      top.string("default_policy", base ? Need::required : Need::optional).value_or("");
  read_rules(top, doc, t.file, base, out);
  read_policies(top, doc, t.file, base, out);
  read_frameworks(top, doc, t.file, base, out);
  top.finish();
  if (out.size() != before) return std::nullopt;
  return doc;
}

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
        for (const auto& [rule, values] : pd.policy.parameters.items()) {
          for (const auto& [name, v] : values.items()) it->parameters[rule][name] = v;
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
