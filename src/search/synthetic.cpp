// Synthetic catalogs: SKU variants and seller listings of a template's parts.
#include "gpuadvisor/search/synthetic.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/serialize.hpp"

namespace gpuadvisor::search {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

std::size_t Rng::below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

int Rng::between(int lo, int hi) {
  return lo + static_cast<int>(below(static_cast<std::size_t>(hi - lo + 1)));
}

bool Rng::chance(double p) { return uniform() < p; }

double Rng::normal() {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

namespace {

using namespace catalog;

/// Share of each hardware category in a synthetic catalog: GPUs and the
/// commodity parts (memory, drives, PSUs) have the most listings.
struct Shares {
  double gpus = 0.22, cpus = 0.12, platforms = 0.10, memory = 0.16, storage = 0.16, psus = 0.14,
         cooling = 0.10;
};

double round_to(double v, double step) { return std::round(v / step) * step; }

/// Seller price dispersion: log-normal around the SKU's price.
double listing_price(Rng& rng, double usd) {
  return std::max(1.0, round_to(usd * std::exp(0.12 * rng.normal()), 0.01));
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng.below(v.size())];
}

// SKU variants, one function per category: what differs between real SKUs of
// the same kind of part.

void vary(Rng& rng, Gpu& g) {
  if (g.form_factor == GpuFormFactor::pcie && g.market == GpuMarket::consumer) {
    // Partner cards: longer, wider, factory overclocked, pricier.
    g.length_mm = std::clamp(round_to(g.length_mm * rng.uniform(0.9, 1.18), 1), 170.0, 360.0);
    if (rng.chance(0.35)) g.slot_width = std::min(4, g.slot_width + 1);
    const double oc = rng.uniform(1.0, 1.06);
    g.tensor_tflops_16bit = round_to(g.tensor_tflops_16bit * oc, 0.1);
    g.tensor_tflops_fp8 = round_to(g.tensor_tflops_fp8 * oc, 0.1);
    g.fp32_tflops = round_to(g.fp32_tflops * oc, 0.1);
    g.tf32_tflops = round_to(g.tf32_tflops * oc, 0.1);
    g.power_w = round_to(g.power_w * rng.uniform(1.0, 1.12), 5);
    g.price.usd = round_to(g.price.usd * rng.uniform(1.0, 1.2), 1);
  } else {
    // OEM SKUs of datacenter and workstation cards: some power-limited.
    if (rng.chance(0.3)) g.power_w = round_to(g.power_w * 0.85, 5);
    g.price.usd = round_to(g.price.usd * rng.uniform(0.95, 1.1), 1);
  }
}

void vary(Rng& rng, Cpu& c) {
  // CPU SKUs are fixed by the vendor; variants are boxed/tray offers.
  c.price.usd = round_to(c.price.usd * rng.uniform(0.95, 1.08), 1);
}

void vary(Rng& rng, Platform& p) {
  // Other chassis and board revisions around the same socket and GPU layout.
  if (p.max_gpu_length_mm > 0)
    p.max_gpu_length_mm = round_to(p.max_gpu_length_mm * rng.uniform(0.85, 1.1), 1);
  if (!p.included_psu && rng.chance(0.4)) p.psu_bays = std::min(4, p.psu_bays + 1);
  if (!p.included_psu && p.psu_form == "atx" && rng.chance(0.3)) p.max_psu_w = 1300;
  if (rng.chance(0.3)) {  // a board with two DIMMs per channel
    p.memory_slots *= 2;
    p.max_memory_gb *= 2;
  }
  p.nvme_slots = std::max(1, p.nvme_slots + rng.between(-1, 2));
  p.base_power_w = round_to(p.base_power_w * rng.uniform(0.9, 1.2), 5);
  if (p.included_cooling_w > 0)
    p.included_cooling_w = round_to(p.included_cooling_w * rng.uniform(0.95, 1.15), 50);
  p.price.usd = round_to(p.price.usd * rng.uniform(0.9, 1.3), 1);
}

void vary(Rng& rng, MemoryKit& m) {
  static constexpr std::array kModules = {1, 2, 4, 8, 12, 16, 24, 32};
  static constexpr std::array kUdimmGb = {16.0, 24.0, 32.0, 48.0};
  static constexpr std::array kRdimmGb = {16.0, 32.0, 64.0, 96.0, 128.0};
  const double per_gb = m.price.usd / m.capacity_gb;
  const double w_per_module = m.power_w / m.modules;
  m.modules = m.registered ? kModules[rng.below(kModules.size())]
                           : kModules[rng.below(3)];  // UDIMM boards: 1, 2 or 4
  const double module_gb =
      m.registered ? kRdimmGb[rng.below(kRdimmGb.size())] : kUdimmGb[rng.below(kUdimmGb.size())];
  m.capacity_gb = m.modules * module_gb;
  m.power_w = round_to(w_per_module * m.modules, 0.5);  // a kit's draw follows its modules
  // Larger modules cost more per GB.
  m.price.usd =
      round_to(per_gb * m.capacity_gb * (module_gb >= 96 ? 1.25 : 1.0) * rng.uniform(0.9, 1.15), 1);
}

void vary(Rng& rng, Storage& s) {
  static constexpr std::array kNvmeTb = {1.0, 1.92, 2.0, 3.84, 4.0, 7.68, 8.0, 15.36};
  static constexpr std::array kSataTb = {1.0, 2.0, 4.0, 8.0};
  static constexpr std::array kHddTb = {8.0, 12.0, 16.0, 20.0, 24.0};
  const double per_tb = s.price.usd / s.capacity_tb;
  const double old_tb = s.capacity_tb;
  switch (s.type) {
    case StorageType::nvme:
      s.capacity_tb = kNvmeTb[rng.below(kNvmeTb.size())];
      break;
    case StorageType::sata_ssd:
      s.capacity_tb = kSataTb[rng.below(kSataTb.size())];
      break;
    case StorageType::hdd:
      s.capacity_tb = kHddTb[rng.below(kHddTb.size())];
      break;
  }
  s.power_w = round_to(s.power_w * std::sqrt(s.capacity_tb / old_tb), 0.1);
  s.price.usd = round_to(per_tb * s.capacity_tb * rng.uniform(0.85, 1.2), 1);
}

void vary(Rng& rng, Psu& p) {
  static constexpr std::array kAtxW = {850.0, 1000.0, 1200.0, 1300.0, 1500.0, 1600.0};
  static constexpr std::array kServerW = {1600.0, 2000.0, 2200.0, 2400.0, 2700.0, 3000.0};
  const double per_w = p.price.usd / p.watts_230v;
  const double derate = p.watts_115v / p.watts_230v;
  p.watts_230v =
      p.form == "server" ? kServerW[rng.below(kServerW.size())] : kAtxW[rng.below(kAtxW.size())];
  p.watts_115v = std::max(100.0, round_to(p.watts_230v * derate, 50));
  if (p.form == "atx") {
    p.pcie_8pin = std::max(2, static_cast<int>(p.watts_230v / 200));
    p.connectors_12vhpwr = p.watts_230v >= 1200 ? rng.between(0, 2) : rng.between(0, 1);
  }
  static constexpr std::array kEff = {"80plus-bronze", "80plus-gold", "80plus-platinum",
                                      "80plus-titanium"};
  const std::size_t eff = p.form == "server" ? 2 + rng.below(2) : rng.below(kEff.size());
  p.efficiency = kEff[eff];
  p.price.usd = round_to(
      per_w * p.watts_230v * (0.8 + 0.15 * static_cast<double>(eff)) * rng.uniform(0.9, 1.15), 1);
}

void vary(Rng& rng, Cooling& c) {
  if (c.type == CoolingType::datacenter) return;  // facility airflow: no variants
  const double f = rng.uniform(0.8, 1.3);
  c.capacity_w = round_to(c.capacity_w * f, 10);
  c.power_w = round_to(c.power_w * f, 0.5);
  c.price.usd = round_to(c.price.usd * f * rng.uniform(0.9, 1.2), 1);
}

/// A unique, negligible change of a rule-relevant figure (SyntheticOptions::distinct).
void make_distinct(Gpu& g, double d) { g.power_w += d; }
// The sustained power, not the TDP: raising the TDP alone would put it above
// max_power_w, which the loader rejects.
void make_distinct(Cpu& c, double d) { c.max_power_w += d; }
void make_distinct(Platform& p, double d) { p.base_power_w += d; }
void make_distinct(MemoryKit& m, double d) { m.power_w += d; }
void make_distinct(Storage& s, double d) { s.power_w += d; }
void make_distinct(Psu& p, double d) { p.watts_115v = std::max(100.0, p.watts_115v - d); }
void make_distinct(Cooling& c, double d) { c.power_w += d; }

/// Fills `out` up to `count` parts: the template's own first, then SKU
/// variants (20 %) and seller listings (80 %) of the SKUs made so far.
template <typename T>
void generate(Rng& rng, const std::vector<T>& templates, std::size_t count, std::vector<T>& out,
              bool used_listings, bool distinct) {
  out = templates;
  if (templates.empty()) return;
  out.reserve(std::max(count, templates.size()));
  std::vector<std::size_t> skus(templates.size());
  for (std::size_t i = 0; i < skus.size(); ++i) skus[i] = i;
  std::size_t serial = 0;
  while (out.size() < count) {
    ++serial;
    T part;
    if (rng.chance(0.2)) {
      part = pick(rng, templates);
      part.notes.clear();  // the template's notes describe the template
      vary(rng, part);
      part.id = fmt::format("{}-v{}", part.id, serial);
      skus.push_back(out.size());
    } else {
      part = out[pick(rng, skus)];
      part.notes.clear();
      part.price.usd = listing_price(rng, part.price.usd);
      part.id = fmt::format("{}-l{}", part.id.substr(0, std::min<std::size_t>(part.id.size(), 40)),
                            serial);
      if constexpr (std::is_same_v<T, Gpu>) {
        if (used_listings && part.condition == Condition::new_ && rng.chance(0.25)) {
          part.condition = Condition::used;
          part.price.usd = round_to(part.price.usd * rng.uniform(0.5, 0.8), 1);
          part.id += "-used";
        }
      }
    }
    if (distinct) make_distinct(part, 1e-6 * static_cast<double>(serial));
    out.push_back(std::move(part));
  }
}

}  // namespace

std::size_t hardware_parts(const Catalog& c) {
  return c.gpus.size() + c.cpus.size() + c.platforms.size() + c.memory.size() + c.storage.size() +
         c.psus.size() + c.cooling.size();
}

Catalog synthetic_catalog(const Catalog& base, const SyntheticOptions& options) {
  Catalog c;
  c.schema_version = base.schema_version;
  c.sources = base.sources;
  c.architectures = base.architectures;
  c.models = base.models;
  Rng rng(options.seed);
  const Shares s;
  const auto n = static_cast<double>(options.parts);
  auto share = [&](double f) { return static_cast<std::size_t>(std::llround(n * f)); };
  const bool d = options.distinct;
  generate(rng, base.gpus, share(s.gpus), c.gpus, /*used_listings=*/true, d);
  generate(rng, base.cpus, share(s.cpus), c.cpus, false, d);
  generate(rng, base.platforms, share(s.platforms), c.platforms, false, d);
  generate(rng, base.memory, share(s.memory), c.memory, false, d);
  generate(rng, base.storage, share(s.storage), c.storage, false, d);
  generate(rng, base.psus, share(s.psus), c.psus, false, d);
  // Cooling takes the remainder so that the total is exact.
  const std::size_t so_far = hardware_parts(c);
  generate(rng, base.cooling, options.parts > so_far ? options.parts - so_far : 0, c.cooling, false,
           d);
  return c;
}

std::string catalog_document(const Catalog& c) {
  ojson doc;
  doc["schema_version"] = c.schema_version;
  for (auto key : kCategories) doc[std::string(key)] = category_to_json(c, key);
  return doc.dump() + "\n";
}

}  // namespace gpuadvisor::search
