// Fields that build specs and rules documents both read (doc_fields.hpp).
#include "doc_fields.hpp"

#include <vector>

#include <fmt/format.h>

#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/rules/registry.hpp"

namespace gpuadvisor::rules::detail {

bool valid_version(std::string_view v) {
  if (v.empty() || v.size() > kMaxVersionChars || v.front() == '.' || v.back() == '.') return false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '.') {
      if (v[i - 1] == '.') return false;
    } else if (v[i] < '0' || v[i] > '9') {
      return false;
    }
  }
  return true;
}

std::string unknown_rule_message(std::string_view id) {
  std::vector<std::string> ids;
  for (const RuleDecl* d : registry()) ids.emplace_back(d->id);
  return fmt::format("unknown rule \"{}\"", id) +
         did_you_mean(id, ids, " (see 'gpuadvisor rules')");
}

}  // namespace gpuadvisor::rules::detail
