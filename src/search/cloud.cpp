// The job on cloud GPUs and buying against renting (search/cloud.hpp).
#include "gpuadvisor/search/cloud.hpp"
#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/workload/workload.hpp"

#include <algorithm>
#include <tuple>

namespace gpuadvisor::search {

namespace {
/// Eight 8-GPU nodes: past that a job needs the cluster planning of `plan`.
constexpr int kMaxCloudGpus = 64;
}  // namespace

std::vector<CloudOption> cloud_options(const catalog::Catalog& cat, const workload::Workload& w) {
  std::vector<CloudOption> out;
  for (const auto& row : cat.cloud) {
    const catalog::Gpu* g = cat.gpu(row.gpu);
    if (g == nullptr || row.usd_per_gpu_hour <= 0) continue;
    // Whole instances, doubling up to 64 GPUs: the smallest that holds the job.
    for (int n = std::max(1, row.gpus_per_instance); n <= kMaxCloudGpus; n *= 2) {
      if (!w.training() && !workload::valid_tensor_parallel(w.arch, n)) continue;
      workload::Workload at = w;
      at.gpus = n;
      const workload::FitResult fit = workload::fit(at, *g, n);
      if (fit.verdict == workload::Verdict::does_not_fit) continue;
      const workload::Workload run =
          fit.verdict == workload::Verdict::fits ? at : workload::apply_fix(at, fit);
      const workload::ComputeEstimate k = workload::compute(run, *g, run.gpus);
      CloudOption o;
      o.id = row.id;
      o.gpu = g->id;
      o.gpu_name = g->name;
      o.provider = row.provider;
      o.date = row.date;
      o.gpus = run.gpus;
      o.usd_per_gpu_hour = row.usd_per_gpu_hour;
      o.hours = k.time_hours;
      o.error_band = k.error_band;
      o.gpu_hours = k.gpu_hours;
      o.cost_usd = k.gpu_hours * row.usd_per_gpu_hour;
      o.changes = fit.changes;
      out.push_back(std::move(o));
      break;
    }
  }
  std::sort(out.begin(), out.end(), [](const CloudOption& a, const CloudOption& b) {
    return std::tie(a.cost_usd, a.hours, a.id) < std::tie(b.cost_usd, b.hours, b.id);
  });
  return out;
}

BuyVsRent buy_vs_rent(double price_usd, double hours, double electricity_usd,
                      const CloudOption& cloud, double horizon_months, double utilisation) {
  BuyVsRent r;
  r.cloud = cloud;
  r.horizon_months = horizon_months;
  r.utilisation = utilisation;
  if (hours <= 0) return r;
  const double jobs_per_month = kHoursPerMonth * utilisation / hours;
  r.jobs = jobs_per_month * horizon_months;
  r.own_usd = price_usd + r.jobs * electricity_usd;
  r.rent_usd = r.jobs * cloud.cost_usd;
  // Each month of use saves the rent less the electricity; the price is paid once.
  const double saving_per_month = jobs_per_month * (cloud.cost_usd - electricity_usd);
  if (saving_per_month > 0) r.break_even_months = price_usd / saving_per_month;
  return r;
}

}  // namespace gpuadvisor::search
