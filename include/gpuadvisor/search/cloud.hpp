#pragma once
/// The same job on the catalog's cloud GPUs, buying against renting, and the
/// plain words `recommend` owes a job that a single server runs for months.
/// docs/recommend.md ("Cloud and time") explains every figure.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvisor/catalog/fwd.hpp"
#include "gpuadvisor/workload/estimates.hpp"
#include "gpuadvisor/workload/fwd.hpp"

namespace gpuadvisor::search {

/// Default --horizon: 36 months, the usual life of a GPU server in a lab
/// budget (the standard 3-year warranty and support term of server vendors
/// and NVIDIA enterprise support; cloud providers depreciate servers over
/// 5-6 years, GPUs go out of date sooner).
inline constexpr double kDefaultHorizonMonths = 36;
/// Default --utilisation: the share of the horizon the machine trains. 50 %
/// is a stated assumption for a shared team server, not a measurement; the
/// break-even month is printed so a reader can scale it.
inline constexpr double kDefaultUtilisation = 0.5;
/// Default --max-days: a run longer than this gets the cloud and multi-server
/// comparison spelled out. 90 days: a quarter, past which a job outlives the
/// planning cycle and the hardware's price curve (the issue tracker's own
/// threshold; a stated choice).
inline constexpr double kDefaultMaxDays = 90;
/// Hours in an average month (8,766 h per year / 12).
inline constexpr double kHoursPerMonth = 730.5;

/// The job on one cloud offer: the smallest count of its GPUs that holds the
/// workload (a serving degree for inference), with any fit changes applied.
struct CloudOption {
  std::string id, gpu, gpu_name, provider, date;
  int gpus = 0;
  double usd_per_gpu_hour = 0;
  double hours = 0;      ///< wall time
  double gpu_hours = 0;  ///< billed GPU-hours
  double cost_usd = 0;
  std::vector<workload::FitChange> changes;  ///< fit changes the job needs there
  workload::ErrorBand error_band;            ///< of the time (docs/estimation.md 8.2)
};

/// Every cloud offer of `cat` whose GPU holds `w` on at most 64 GPUs (whole
/// instances: gpus_per_instance, doubled), cheapest
/// job first (ties: the shorter, then the id).
[[nodiscard]] std::vector<CloudOption> cloud_options(const catalog::Catalog& cat,
                                                     const workload::Workload& w);

/// Owning a build against renting the same work over a horizon.
struct BuyVsRent {
  CloudOption cloud;  ///< the offer compared with (the cheapest)
  double horizon_months = 0;
  double utilisation = 0;
  double jobs = 0;                          ///< jobs the build runs in the horizon at that use
  double own_usd = 0;                       ///< price + electricity for those jobs
  double rent_usd = 0;                      ///< the same jobs on the cloud offer
  std::optional<double> break_even_months;  ///< when owning becomes cheaper; none if never
};

/// `price_usd` and `electricity_usd` (one job) of a build that runs the job
/// in `hours`, against `cloud`.
[[nodiscard]] BuyVsRent buy_vs_rent(double price_usd, double hours, double electricity_usd,
                                    const CloudOption& cloud, double horizon_months,
                                    double utilisation);

}  // namespace gpuadvisor::search
