// Reading one rules document (data/rules.json or a --rules overlay): its
// rules, policies and framework releases, checked before any merging.
#include <fmt/format.h>

#include "doc_fields.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "rule_set_impl.hpp"

namespace gpuadvisor::rules::detail {
namespace {

const RuleDecl* find_def(std::string_view id) { return find_rule(id); }

void read_rules(ObjectReader& top, Doc& doc, const std::string& file, bool base, Diagnostics& out) {
  const json* rules = top.object("rules", base ? Need::required : Need::optional);
  if (rules == nullptr) return;
  for (const auto& [id, v] : rules->items()) {
    const std::string path = top.child_path("rules") + "." + id;
    const RuleDecl* def = find_def(id);
    if (def == nullptr) {
      out.push_back({file, path, unknown_rule_message(id)});
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
          out.push_back({file, rpath, unknown_rule_message(rule)});
          continue;
        }
        if (!pv.is_object()) {
          out.push_back({file, rpath, fmt::format("expected an object, got {}", describe(pv))});
          continue;
        }
        auto values = read_params(pv, rule, rpath, file, false, out);
        for (auto& [d, val] : values)
          (*pd.policy.parameters)[std::string(rule)][std::string(d->name)] = val;
        pd.params.insert(pd.params.end(), values.begin(), values.end());
      }
    }
    r.finish();
    doc.policies.push_back(std::move(pd));
  }
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

}  // namespace

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

}  // namespace gpuadvisor::rules::detail
