#pragma once
// Catalog parts with one JSON field changed: the part's own JSON (the
// catalog's writer) with a leaf, key or array element changed, read back by
// the catalog's reader, for tests that ask what a change of one field does.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/part_readers.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::test {

/// The values each JSON field takes over a category ("price.usd"; an array's
/// elements as "sockets[]"): at most kFieldPoolSize, spread over their order.
/// Text with more values than that (ids, names, dates, sources) gets two: a
/// rule could only single out a few of them.
using FieldPools = std::map<std::string, std::vector<nlohmann::json>>;
inline constexpr std::size_t kFieldPoolSize = 8;

inline std::string field_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

inline void collect_fields(const nlohmann::json& v, const std::string& path,
                           std::map<std::string, std::set<nlohmann::json>>& seen) {
  if (!path.empty()) seen[path].insert(v);
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) collect_fields(x, field_path(path, k), seen);
  } else if (v.is_array()) {
    for (const auto& x : v) collect_fields(x, path + "[]", seen);
  }
}

template <typename T>
FieldPools field_pools(const std::vector<T>& parts) {
  std::map<std::string, std::set<nlohmann::json>> seen;
  for (const auto& p : parts) collect_fields(nlohmann::json(catalog::to_json(p)), "", seen);
  FieldPools out;
  for (const auto& [path, values] : seen) {
    const std::vector<nlohmann::json> all(values.begin(), values.end());
    const bool text = all.size() > kFieldPoolSize && all.back().is_string();
    const std::size_t n = std::min(all.size(), text ? 2 : kFieldPoolSize);
    auto& pool = out[path];
    for (std::size_t i = 0; i < n; ++i) {
      pool.push_back(all[n < 2 ? 0 : i * (all.size() - 1) / (n - 1)]);
    }
  }
  return out;
}

/// What to put in place of `v`: off by one, doubled, halved, zero, ten
/// times, the other truth value, a new string, and the values other parts
/// have (the reader rejects what is out of its range).
inline std::vector<nlohmann::json> field_variants(const nlohmann::json& v, const FieldPools& pools,
                                                  const std::string& path) {
  std::vector<nlohmann::json> out;
  if (v.is_number_integer()) {
    const auto x = v.get<std::int64_t>();
    out = {x * 2 + 1, x / 2, 0, x + 1, x - 1, x * 10 + 10};
  } else if (v.is_number()) {
    const double x = v.get<double>();
    out = {x * 2 + 1, x / 2, 0.0, x + 1, x - 1, x * 10 + 10};
  } else if (v.is_boolean()) {
    out = {!v.get<bool>()};
  } else if (v.is_string()) {
    out = {"tripwire-new"};
  }
  if (auto it = pools.find(path); it != pools.end()) {
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
  std::erase(out, v);
  return out;
}

inline std::string brief_json(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

/// Calls each(field, change, mutant) for every mutant of `root` that differs
/// from it in the field `v` (at `at`, named `path`) or below it: a leaf
/// changed, a key removed or added (one other parts have), an array's element
/// changed, removed or added. Fields in `skip` are left alone.
template <typename F>
void for_each_mutant(const nlohmann::json& root, const nlohmann::json& v,
                     const nlohmann::json::json_pointer& at, const std::string& path,
                     const FieldPools& pools, const std::set<std::string>& skip, F& each) {
  using nlohmann::json;
  auto edit = [&](const std::string& field, const std::string& change, auto&& how) {
    if (skip.contains(field)) return;
    json m = root;
    how(m[at]);
    each(field, change, m);
  };
  if (v.is_object()) {
    for (const auto& item : v.items()) {
      // Not a structured binding: clang 14 cannot capture one in a lambda.
      const std::string k = item.key();
      const auto& x = item.value();
      const std::string child = field_path(path, k);
      for_each_mutant(root, x, at / k, child, pools, skip, each);
      edit(child, brief_json(x) + " -> absent", [&](json& o) { o.erase(k); });
    }
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& [p, values] : pools) {
      if (!p.starts_with(prefix)) continue;
      const std::string k = p.substr(prefix.size());
      if (k.find_first_of(".[") != std::string::npos || v.contains(k)) continue;
      for (const auto& x : values) {
        edit(p, "absent -> " + brief_json(x), [&](json& o) { o[k] = x; });
      }
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      for_each_mutant(root, v[i], at / i, path + "[]", pools, skip, each);
      edit(path, fmt::format("{} without [{}]", brief_json(v), i), [&](json& a) { a.erase(i); });
    }
    for (const auto& x : field_variants(v.empty() ? json() : v.back(), pools, path + "[]")) {
      edit(path, fmt::format("{} + {}", brief_json(v), brief_json(x)),
           [&](json& a) { a.push_back(x); });
    }
  } else {
    for (const auto& x : field_variants(v, pools, path)) {
      edit(path, brief_json(v) + " -> " + brief_json(x), [&](json& leaf) { leaf = x; });
    }
  }
}

/// The part the catalog's reader makes of `j`; nullopt when it rejects it.
template <typename T>
std::optional<T> read_back(const nlohmann::json& j) {
  static const std::string file = "<mutant>";
  Diagnostics diags;
  ObjectReader r(j, "part", file, diags);
  T part = catalog::read_part<T>(r, file, diags);
  r.finish();
  if (!diags.empty()) return std::nullopt;
  return part;
}

}  // namespace gpuadvisor::test
