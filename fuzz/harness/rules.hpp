#pragma once
// Body of the rules-file fuzz target, shared with the regression tests.
//
// Two modes, chosen by the first byte:
// - '{' (the JSON seeds, and any JSON text): the bytes are a --rules overlay;
// - anything else: the bytes drive a generator that writes an overlay from
//   the embedded rules' own vocabulary (rule ids, parameter names, policies,
//   frameworks) with hostile values, and that repeats entries up to
//   kMaxRepeat times, so a few bytes reach large, deep-in-the-parser inputs
//   (the JSON-only target never grew past 184 bytes).
// Each input is parsed once, under a policy the input picks, instead of once
// per policy.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::embedded {
extern const std::string_view rules;
}

namespace gpuadvisor::fuzz {

namespace rules_detail {

/// Names found in the embedded rules, read once.
struct Vocabulary {
  std::vector<std::string> rules, policies, frameworks;
  std::vector<std::vector<std::string>> params;  ///< per rule
};

inline const Vocabulary& vocabulary() {
  static const Vocabulary v = [] {
    Vocabulary out;
    const auto doc = nlohmann::json::parse(embedded::rules);
    for (const auto& [id, rule] : doc["rules"].items()) {
      out.rules.push_back(id);
      out.params.emplace_back();
      if (rule.contains("parameters")) {
        for (const auto& [name, value] : rule["parameters"].items()) {
          out.params.back().push_back(name);
        }
      }
    }
    for (const auto& [name, p] : doc["policies"].items()) out.policies.push_back(name);
    for (const auto& [name, f] : doc["frameworks"].items()) out.frameworks.push_back(name);
    return out;
  }();
  return v;
}

/// Reads the input a byte at a time; zeros once it runs out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  [[nodiscard]] bool done() const { return i_ >= n_; }
  std::uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() << 8 | u8()); }
  template <typename T>
  const T& pick(const std::vector<T>& from) {
    return from[u8() % from.size()];
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

/// A value for a parameter or field: mostly numbers at the edges.
inline nlohmann::json value(Bytes& b) {
  static const std::vector<double> edges = {0,      1,      -1,  0.5, 1.2,   1e308, -1e308,
                                            5e-324, 1e-300, 2e9, 64,  65536, 1e15,  3.5};
  switch (b.u8() % 8) {
    case 0:
      return b.pick(edges);
    case 1:
      return static_cast<int>(b.u16()) - 1000;
    case 2:
      return std::string(b.u8() % 4 == 0 ? "" : "four");
    case 3:
      return b.u8() % 2 == 0;
    case 4:
      return nullptr;
    case 5:
      return nlohmann::json::array({b.pick(edges)});
    case 6:
      return nlohmann::json::object();
    default:
      return static_cast<double>(b.u16()) / 100;
  }
}

/// Most repetitions of one entry. Framework merging is still quadratic
/// (issue 16, item 6): 4096 keeps one input under a second with sanitizers,
/// where the per-input timeout is 5 s; raise it once the merge is linear.
inline constexpr std::size_t kMaxRepeat = 4096;

/// How many times to repeat an entry: usually a few, sometimes thousands.
inline std::size_t count(Bytes& b) {
  const std::uint8_t c = b.u8();
  return c < 0xF0 ? c % 8 : static_cast<std::size_t>(b.u16()) % kMaxRepeat + 1;
}

/// doc[key] as an object (case 4 below may have made it something else).
inline nlohmann::json& object_at(nlohmann::json& doc, const char* key) {
  auto& v = doc[key];
  if (!v.is_object()) v = nlohmann::json::object();
  return v;
}

inline nlohmann::json overlay(Bytes& b) {
  const auto& v = vocabulary();
  nlohmann::json doc = nlohmann::json::object();
  doc["schema_version"] = b.u8() % 16 == 0 ? value(b) : nlohmann::json(1);
  while (!b.done()) {
    switch (b.u8() % 6) {
      case 0: {  // a rule: severity, enabled, parameters (known and unknown)
        const std::size_t r = b.u8() % v.rules.size();
        auto& rule = object_at(doc, "rules")[b.u8() % 32 == 0 ? "X" + v.rules[r] : v.rules[r]];
        if (b.u8() % 2 == 0) {
          static const std::vector<std::string> sev = {"error", "warning", "note", "fatal", ""};
          rule["severity"] = b.pick(sev);
        }
        if (b.u8() % 4 == 0) rule["enabled"] = value(b);
        for (std::size_t k = 0, n = b.u8() % 4; k < n && !v.params[r].empty(); ++k) {
          rule["parameters"][b.pick(v.params[r])] = value(b);
        }
        if (b.u8() % 16 == 0) rule["parameters"]["no_such_parameter"] = value(b);
        break;
      }
      case 1: {  // frameworks: existing names or many new ones
        const std::size_t n = count(b);
        const bool fresh = b.u8() % 2 == 0;
        for (std::size_t k = 0; k < n; ++k) {
          auto& f = object_at(
              doc, "frameworks")[fresh ? "fw-" + std::to_string(k) : b.pick(v.frameworks)];
          f["cuda"] = nlohmann::json::array({"12." + std::to_string(k % 10)});
          if (k % 3 == 0) f["rocm"] = nlohmann::json::array({"6.0"});
          f["source"] = b.u8() % 8 == 0 ? value(b) : nlohmann::json("fuzz");
        }
        break;
      }
      case 2: {  // a policy setting parameters
        const std::string name =
            b.u8() % 2 == 0 ? b.pick(v.policies) : "p" + std::to_string(b.u8());
        auto& p = object_at(doc, "policies")[name];
        p["description"] = "fuzz";
        p["source"] = "fuzz";
        const std::size_t r = b.u8() % v.rules.size();
        if (!v.params[r].empty()) p["parameters"][v.rules[r]][b.pick(v.params[r])] = value(b);
        break;
      }
      case 3:
        doc["default_policy"] = b.u8() % 4 == 0 ? value(b) : nlohmann::json(b.pick(v.policies));
        break;
      case 4:  // a wrong type where an object belongs
        doc[b.u8() % 2 == 0 ? "rules" : "frameworks"] = value(b);
        break;
      default:  // an unknown top-level key
        doc["unknown-" + std::to_string(b.u8())] = value(b);
        break;
    }
  }
  return doc;
}

}  // namespace rules_detail

/// Bytes as a --rules overlay (raw JSON, or generated; see above) on the
/// embedded rules, under the default, the conservative or an unknown policy.
inline void rules_one(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  std::string generated;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (data[0] != '{') {
    rules_detail::Bytes b(data + 1, size - 1);
    generated = rules_detail::overlay(b).dump();
    text = generated;
  }
  static constexpr std::string_view kPolicies[] = {"", "conservative", "no-such-policy"};
  const std::string_view policy = kPolicies[(size + data[size - 1]) % 3];
  const rules::RulesText base{embedded::rules, "<embedded rules>"};
  const rules::RulesText overlay[] = {{text, "fuzz.json"}};
  auto rs = rules::parse_rule_set(base, overlay, policy);
  if (!rs && rs.error().empty()) __builtin_trap();  // a rejection always says why
}

}  // namespace gpuadvisor::fuzz
