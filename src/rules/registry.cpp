// The rule registry: the groups' declarations joined in catalogue order.
#include "gpuadvisor/rules/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine_internal.hpp"

namespace gpuadvisor::rules {
namespace {

using Group = std::span<const RuleDecl> (*)();
/// Catalogue order: a new group file adds one line here.
constexpr Group kGroups[] = {detail::power_rules,  detail::cooling_rules,  detail::platform_rules,
                             detail::memory_rules, detail::workload_rules, detail::software_rules,
                             detail::risk_rules};

void check_rule(const RuleDecl& r, const std::vector<const RuleDecl*>& before) {
  if (r.id.empty() || r.group.empty() || r.fn == nullptr) {
    throw std::logic_error("rule declaration without an id, group or function: " +
                           std::string(r.id));
  }
  if (std::any_of(before.begin(), before.end(), [&](const RuleDecl* o) { return o->id == r.id; })) {
    throw std::logic_error("rule declared twice: " + std::string(r.id));
  }
  if (before.size() >= kMaxRules) throw std::logic_error("more rules than a RuleMask holds");
}

std::vector<const RuleDecl*>& rules_list() {
  static std::vector<const RuleDecl*> all = [] {
    std::vector<const RuleDecl*> v;
    for (Group g : kGroups) {
      for (const RuleDecl& r : g()) {
        check_rule(r, v);
        v.push_back(&r);
      }
    }
    return v;
  }();
  return all;
}

}  // namespace

std::span<const RuleDecl* const> registry() { return rules_list(); }

const RuleDecl* find_rule(std::string_view id) {
  for (const RuleDecl* r : registry()) {
    if (r->id == id) return r;
  }
  return nullptr;
}

std::optional<std::size_t> rule_index(std::string_view id) {
  const auto rs = registry();
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (rs[i]->id == id) return i;
  }
  return std::nullopt;
}

std::vector<std::string> rule_ids(RuleMask m) {
  std::vector<std::string> out;
  const auto rs = registry();
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if ((m & rule_bit(i)) != 0) out.emplace_back(rs[i]->id);
  }
  return out;
}

void RuleContext::add(Words w) {
  // Built in place: moving a local Finding into the vector trips GCC 12's
  // false -Wmaybe-uninitialized in Release builds.
  Finding& f = findings_->emplace_back();
  f.rule = info_->id;
  f.severity = info_->severity;
  f.title = info_->title;
  f.measured = std::move(w.measured);
  f.limit = std::move(w.limit);
  f.message = std::move(w.message);
  f.fix = std::move(w.fix);
  f.path = std::move(w.path);
}

Decision decide(const RuleDecl& rule, const Build& b, const Inputs& in) {
  RuleContext ctx(b, in, nullptr, nullptr);
  rule.fn(ctx);
  return ctx.decision();
}

bool may_pass(const RuleDecl& rule, const Build& partial, Parts chosen, const Inputs& in) {
  if (decidable(rule, chosen)) return decide(rule, partial, in) != Decision::fail;
  return rule.bound == nullptr || rule.bound(partial, chosen, in);
}

namespace testing {

ScopedRule::ScopedRule(const RuleDecl& rule) {
  check_rule(rule, rules_list());
  rules_list().push_back(&rule);
}

ScopedRule::~ScopedRule() { rules_list().pop_back(); }

}  // namespace testing
}  // namespace gpuadvisor::rules
