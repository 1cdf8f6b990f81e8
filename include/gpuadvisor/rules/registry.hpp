#pragma once
/// The rule registry: every rule is declared once, as a RuleDecl in the file
/// of its group (src/rules/rules_<group>.cpp): id, group, the parts the search
/// must have chosen before it can decide the rule, its parameters, and one
/// function that both decides and words the rule. The engine (`check`), the
/// search (`recommend`), `gpuadvisor rules`, the rules.json reader and SARIF
/// all read these declarations. docs/rules.md says how to add a rule.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvisor/rules/build.hpp"
#include "gpuadvisor/rules/finding.hpp"
#include "gpuadvisor/rules/rule_set.hpp"

namespace gpuadvisor::rules {

/// Parts of a build, as a bit set: what a partial build has chosen so far.
/// A chosen part may be "none" (a build with no cooling part has chosen its
/// cooling).
namespace part {
inline constexpr std::uint16_t gpu = 1U << 0U;
inline constexpr std::uint16_t platform = 1U << 1U;
inline constexpr std::uint16_t cpu = 1U << 2U;
inline constexpr std::uint16_t memory = 1U << 3U;
inline constexpr std::uint16_t storage = 1U << 4U;
inline constexpr std::uint16_t psu = 1U << 5U;
inline constexpr std::uint16_t cooling = 1U << 6U;
inline constexpr std::uint16_t cpu_cooler = 1U << 7U;
inline constexpr std::uint16_t all = (1U << 8U) - 1U;
}  // namespace part
using Parts = std::uint16_t;

/// What a rule's parameter holds: a number, an integer, one 80 Plus rating,
/// or a table of 80 Plus rating -> number.
enum class ParamKind { number, integer, rating, rating_table };

/// One parameter of a rule: its key under `rules.<ID>.parameters` in
/// rules.json, its range, and the field of Parameters it sets.
struct ParamDecl {
  std::string_view name;
  std::string_view unit;
  ParamKind kind = ParamKind::number;
  double min = 0;
  double max = 0;
  double Parameters::*number = nullptr;
  int Parameters::*integer = nullptr;
  std::string Parameters::*text = nullptr;
  std::map<std::string, double> Parameters::*table = nullptr;
};

[[nodiscard]] constexpr ParamDecl number_param(std::string_view name, std::string_view unit,
                                               double min, double max, double Parameters::*m) {
  return {name, unit, ParamKind::number, min, max, m, nullptr, nullptr, nullptr};
}
[[nodiscard]] constexpr ParamDecl integer_param(std::string_view name, std::string_view unit,
                                                int min, int max, int Parameters::*m) {
  return {name,
          unit,
          ParamKind::integer,
          static_cast<double>(min),
          static_cast<double>(max),
          nullptr,
          m,
          nullptr,
          nullptr};
}
[[nodiscard]] constexpr ParamDecl rating_param(std::string_view name, std::string Parameters::*m) {
  return {name, "80 Plus rating", ParamKind::rating, 0, 0, nullptr, nullptr, m, nullptr};
}
[[nodiscard]] constexpr ParamDecl rating_table_param(std::string_view name, std::string_view unit,
                                                     double min, double max,
                                                     std::map<std::string, double> Parameters::*m) {
  return {name, unit, ParamKind::rating_table, min, max, nullptr, nullptr, nullptr, m};
}

/// What a rule decided about one build.
enum class Decision : std::uint8_t { pass, fail, not_applicable };

/// Everything a rule reads besides the build (rules/rule_context.hpp).
struct Inputs;
/// What a rule says while it runs (rules/rule_context.hpp).
class RuleContext;
/// A rule: decides (and, when the context explains, words) one build.
using RuleFn = void (*)(RuleContext&);
/// A cheaper test for partial builds that the rule's own `needs` do not
/// cover: false when no completion of `partial` (with the parts `chosen`)
/// can pass the rule. Lives beside the rule; tests prove it sound.
using BoundFn = bool (*)(const Build& partial, Parts chosen, const Inputs& in);
/// The PSU capacity, W, below which the rule fails (for the search's PSU
/// tables); the rule passes at or above it, all else equal.
using PsuFloorFn = double (*)(const Build& b, const Parameters& p);

/// One rule, declared once.
struct RuleDecl {
  std::string_view id;     ///< PWR001: the only place the id is written in code
  std::string_view group;  ///< "power", "cooling", ...
  /// Parts the search must have chosen before it decides the rule on a
  /// partial build. On a partial build that has them, a failure must mean
  /// that every completion fails too (tests/unit/rules/test_registry.cpp).
  Parts needs = 0;
  std::span<const ParamDecl> params{};
  RuleFn fn = nullptr;
  BoundFn bound = nullptr;
  PsuFloorFn psu_floor = nullptr;
};

/// Every rule, in catalogue order (groups in kGroups order, rules in their
/// file's order). Checked once: unique ids, a function, at most kMaxRules.
[[nodiscard]] std::span<const RuleDecl* const> registry();
[[nodiscard]] const RuleDecl* find_rule(std::string_view id);

/// Rule sets as bit masks over registry() positions.
using RuleMask = std::uint64_t;
inline constexpr std::size_t kMaxRules = 64;
[[nodiscard]] constexpr RuleMask rule_bit(std::size_t index) { return RuleMask{1} << index; }
/// Position of a rule in registry().
[[nodiscard]] std::optional<std::size_t> rule_index(std::string_view id);
/// Rule ids of a mask, in catalogue order.
[[nodiscard]] std::vector<std::string> rule_ids(RuleMask m);

/// Decides one rule without words: what the search calls.
[[nodiscard]] Decision decide(const RuleDecl& rule, const Build& b, const Inputs& in);

/// True when the rule's declaration lets the search decide it on a partial
/// build that has chosen `chosen`.
[[nodiscard]] constexpr bool decidable(const RuleDecl& rule, Parts chosen) {
  return (rule.needs & chosen) == rule.needs;
}

/// The rule as the search may use it on a partial build: its decision when
/// decidable, else its bound (true = some completion may pass).
[[nodiscard]] bool may_pass(const RuleDecl& rule, const Build& partial, Parts chosen,
                            const Inputs& in);

/// The rule that checks the workloads fit in GPU memory (VRAM001): the
/// search reports fit separately from the other rules.
[[nodiscard]] const RuleDecl& vram_fit_rule();
/// The rule that checks the draw at the wall against the site's circuits
/// (PWR003): recommend's "nothing fits" names the circuit that lifts it.
[[nodiscard]] const RuleDecl& wall_circuit_rule();

namespace testing {
/// Adds a rule to the registry for the lifetime of the object (tests only:
/// to prove that the agreement tests catch a rule that disagrees).
class ScopedRule {
 public:
  explicit ScopedRule(const RuleDecl& rule);
  ~ScopedRule();
  ScopedRule(const ScopedRule&) = delete;
  ScopedRule& operator=(const ScopedRule&) = delete;
};
}  // namespace testing

}  // namespace gpuadvisor::rules
