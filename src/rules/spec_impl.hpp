#pragma once
// Shared by the spec reader (spec.cpp) and its "parts" section reader
// (spec_parts.cpp): the state of one parse.
#include <string>
#include <string_view>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/core/diagnostic.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/rules/rule_set.hpp"
#include "gpuadvisor/rules/spec.hpp"

namespace gpuadvisor::rules::detail {

struct Ctx {
  const std::string& file;
  const catalog::Catalog& cat;
  const RuleSet& rs;
  Diagnostics& diags;
  BuildSpec& spec;
  std::string_view region;
};

/// Reads "parts" into ctx.spec.build: catalog ids or inline parts, counts, PSUs.
void read_parts(ObjectReader& top, Ctx& ctx);

}  // namespace gpuadvisor::rules::detail
