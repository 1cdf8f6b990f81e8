#pragma once
// The builds a serving option runs on: recommend's build search, with every
// rule, at the request's site, over servers that hold whole replicas
// (Context::set_replica_gpus); one server, or identical servers when one
// cannot hold every replica. docs/serving.md section 5.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuadvisor/search/serving_target.hpp"

namespace gpuadvisor::search {

/// The cheapest option of one GPU model on builds, or why it has none.
struct Composed {
  std::optional<ServingOption> option;
  std::string why;
};

class ServerBuilder {
 public:
  /// `cat`, `rules` and `req` must outlive the builder.
  ServerBuilder(const catalog::Catalog& cat, const rules::RuleSet& rules, const Request& req);

  /// What the builds assume: where the weights are stored, the mains.
  [[nodiscard]] std::string assumption() const;

  /// The cheapest (total price) of `meeting`, each an option that meets the
  /// target with its workload (one replica at its concurrency), on servers of
  /// GPU model `g` within --max-gpus and the budget.
  [[nodiscard]] Composed cheapest(
      const catalog::Gpu& g,
      std::vector<std::pair<ServingOption, workload::Workload>>& meeting) const;

 private:
  [[nodiscard]] rules::DataPlan data(const workload::Workload& w, const catalog::Gpu& g) const;
  /// The search context of an option's servers: its replica at its concurrency.
  [[nodiscard]] std::unique_ptr<Context> context(const workload::Workload& w, const catalog::Gpu& g,
                                                 int replica_gpus) const;
  /// The build search's constraints for servers of `g` within `budget` (USD).
  [[nodiscard]] Constraints constraints(const catalog::Gpu& g, double budget) const;
  /// Why no build of `o` passes: the rule the cheapest build breaks when
  /// each is relaxed in turn (recommend's nothing-fits), with its finding.
  [[nodiscard]] std::string rejected_by(const ServingOption& o, const workload::Workload& w,
                                        const catalog::Gpu& g, double budget) const;

  const catalog::Catalog& cat_;
  const rules::RuleSet& rules_;
  const Request& req_;
  rules::Site tower_, rack_;
};

}  // namespace gpuadvisor::search
