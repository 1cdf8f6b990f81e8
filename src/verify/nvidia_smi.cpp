// `nvidia-smi -q -x` into a GpuInventory. Tag names differ between driver
// generations (clocks_throttle_reasons became clocks_event_reasons in 535,
// power_readings became gpu_power_readings); both are read. A value that is
// present but malformed is an error with its element path and line; "N/A"
// and absent optional elements are simply unknown.
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "gpuadvisor/verify/machine.hpp"
#include "gpuadvisor/verify/xml.hpp"

namespace gpuadvisor::verify {
namespace {

struct NvidiaSmiFailure {
  Diagnostic d;
};

bool unknown(std::string_view v) {
  return v.empty() || v == "N/A" || v == "[N/A]" || v == "Unknown Error" ||
         v == "[Unknown Error]" || v == "Not Supported" || v == "[Not Supported]" || v == "None";
}

class Reader {
 public:
  Reader(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(const XmlElement& e, const std::string& path,
                         const std::string& msg) const {
    throw NvidiaSmiFailure{
        Diagnostic{file_, fmt::format("{} ({})", path, text_location(e.line, e.column)), msg}};
  }

  /// Element at `rel` ("pci/pci_gpu_link_info/pcie_gen/max_link_gen") under `e`.
  static const XmlElement* find(const XmlElement& e, std::string_view rel) {
    const XmlElement* cur = &e;
    while (cur != nullptr && !rel.empty()) {
      const auto slash = rel.find('/');
      cur = cur->child(rel.substr(0, slash));
      rel = slash == std::string_view::npos ? std::string_view() : rel.substr(slash + 1);
    }
    return cur;
  }

  /// A number with an optional unit suffix ("81559 MiB", "700.00 W", "41 C",
  /// "16x", "7 %"), within [0, max]. nullopt for N/A or absent.
  std::optional<double> number(const XmlElement& e, const std::string& base, std::string_view rel,
                               std::string_view unit, double max) const {
    const XmlElement* v = find(e, rel);
    if (v == nullptr || unknown(v->text)) return std::nullopt;
    const std::string path = fmt::format("{}/{}", base, rel);
    std::string t = v->text;
    if (!unit.empty() && t.ends_with(unit)) t = t.substr(0, t.size() - unit.size());
    while (!t.empty() && t.back() == ' ') t.pop_back();
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(t.c_str(), &end);
    const bool digits_only = !t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) != 0);
    if (!digits_only || end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(d)) {
      fail(*v, path,
           fmt::format("expected a number{}{}, got \"{}\"", unit.empty() ? "" : " in ",
                       unit.empty() ? std::string() : std::string(unit), v->text));
    }
    if (d > max) fail(*v, path, fmt::format("{} is out of range (at most {})", v->text, max));
    return d;
  }

  std::optional<int> integer(const XmlElement& e, const std::string& base, std::string_view rel,
                             std::string_view unit, int max) const {
    auto d = number(e, base, rel, unit, max);
    if (!d) return std::nullopt;
    if (*d != std::floor(*d))
      fail(*find(e, rel), fmt::format("{}/{}", base, rel), "expected a whole number");
    return static_cast<int>(*d);
  }

  std::optional<bool> flag(const XmlElement& e, const std::string& base, std::string_view rel,
                           std::string_view yes, std::string_view no) const {
    const XmlElement* v = find(e, rel);
    if (v == nullptr || unknown(v->text)) return std::nullopt;
    if (v->text == yes) return true;
    if (v->text == no) return false;
    fail(*v, fmt::format("{}/{}", base, rel),
         fmt::format("expected \"{}\" or \"{}\", got \"{}\"", yes, no, v->text));
  }

 private:
  const std::string& file_;
};

constexpr double kMaxMib = 16.0 * 1024 * 1024;  // 16 TiB: far above any GPU
constexpr double kMaxWatts = 100'000;
constexpr double kMaxCelsius = 1'000;
constexpr double kMaxCount = 1e15;

/// Uncorrectable ECC errors in one of ecc_errors/volatile or /aggregate:
/// double_bit/total (drivers before Ampere) or the *_uncorrectable* counters.
std::optional<std::int64_t> uncorrected(const Reader& r, const XmlElement& gpu,
                                        const std::string& base, std::string_view scope) {
  const XmlElement* s = Reader::find(gpu, fmt::format("ecc_errors/{}", scope));
  if (s == nullptr) return std::nullopt;
  const std::string p = fmt::format("{}/ecc_errors/{}", base, scope);
  if (s->child("double_bit") != nullptr) {
    auto v = r.number(*s, p, "double_bit/total", "", kMaxCount);
    return v ? std::optional<std::int64_t>(static_cast<std::int64_t>(*v)) : std::nullopt;
  }
  std::optional<std::int64_t> sum;
  for (const auto& c : s->children) {
    if (c.name.find("uncorrectable") == std::string::npos ||
        c.name.find("threshold") != std::string::npos)
      continue;
    auto v = r.number(*s, p, c.name, "", kMaxCount);
    if (v) sum = sum.value_or(0) + static_cast<std::int64_t>(*v);
  }
  return sum;
}

GpuObs read_gpu(const Reader& r, const XmlElement& g, std::size_t index) {
  GpuObs o;
  o.vendor = "nvidia";
  o.line = g.line;
  o.bus_id = g.attribute("id");
  const std::string base = fmt::format("nvidia_smi_log/gpu[{}]", index);
  const XmlElement* name = g.child("product_name");
  if (name == nullptr || name->text.empty())
    r.fail(g, base, "expected <product_name> with the GPU model");
  o.name = name->text;
  auto mem = r.number(g, base, "fb_memory_usage/total", "MiB", kMaxMib);
  if (!mem)
    r.fail(g, base + "/fb_memory_usage/total", "expected the GPU memory size (\"81559 MiB\")");
  o.memory_mib = *mem;
  o.pcie_gen_current =
      r.integer(g, base, "pci/pci_gpu_link_info/pcie_gen/current_link_gen", "", 64);
  o.pcie_gen_max = r.integer(g, base, "pci/pci_gpu_link_info/pcie_gen/max_link_gen", "", 64);
  o.pcie_gen_device_max =
      r.integer(g, base, "pci/pci_gpu_link_info/pcie_gen/max_device_link_gen", "", 64);
  o.pcie_gen_host_max =
      r.integer(g, base, "pci/pci_gpu_link_info/pcie_gen/max_host_link_gen", "", 64);
  o.pcie_width_current =
      r.integer(g, base, "pci/pci_gpu_link_info/link_widths/current_link_width", "x", 64);
  o.pcie_width_max =
      r.integer(g, base, "pci/pci_gpu_link_info/link_widths/max_link_width", "x", 64);
  const bool new_power = g.child("gpu_power_readings") != nullptr;
  const std::string pw = new_power ? "gpu_power_readings" : "power_readings";
  for (const char* key : {"current_power_limit", "enforced_power_limit", "power_limit"}) {
    if (!o.power_limit_w) o.power_limit_w = r.number(g, base, pw + "/" + key, "W", kMaxWatts);
  }
  o.default_power_limit_w = r.number(g, base, pw + "/default_power_limit", "W", kMaxWatts);
  o.max_power_limit_w = r.number(g, base, pw + "/max_power_limit", "W", kMaxWatts);
  for (const char* key : {"power_draw", "average_power_draw", "instant_power_draw"}) {
    if (!o.power_draw_w) o.power_draw_w = r.number(g, base, pw + "/" + key, "W", kMaxWatts);
  }
  o.persistence = r.flag(g, base, "persistence_mode", "Enabled", "Disabled");
  o.temp_c = r.number(g, base, "temperature/gpu_temp", "C", kMaxCelsius);
  o.slowdown_temp_c = r.number(g, base, "temperature/gpu_temp_slow_threshold", "C", kMaxCelsius);
  for (const char* group : {"clocks_throttle_reasons", "clocks_event_reasons"}) {
    const XmlElement* t = g.child(group);
    if (t == nullptr) continue;
    for (const auto& c : t->children) {
      const auto us = c.name.find("_reason_");
      if (us == std::string::npos) continue;
      auto active = r.flag(*t, base + "/" + group, c.name, "Active", "Not Active");
      if (active && *active) o.throttle_active.push_back(c.name.substr(us + 8));
    }
  }
  o.ecc_enabled = r.flag(g, base, "ecc_mode/current_ecc", "Enabled", "Disabled");
  o.ecc_uncorrected_volatile = uncorrected(r, g, base, "volatile");
  o.ecc_uncorrected_aggregate = uncorrected(r, g, base, "aggregate");
  auto sbe = r.number(g, base, "retired_pages/multiple_single_bit_retirement/retired_count", "",
                      kMaxCount);
  auto dbe = r.number(g, base, "retired_pages/double_bit_retirement/retired_count", "", kMaxCount);
  if (sbe || dbe) o.retired_pages = static_cast<std::int64_t>(sbe.value_or(0) + dbe.value_or(0));
  o.retirement_pending = r.flag(g, base, "retired_pages/pending_retirement", "Yes", "No");
  if (!o.retirement_pending)
    o.retirement_pending = r.flag(g, base, "retired_pages/pending_blacklist", "Yes", "No");
  if (auto unc = r.number(g, base, "remapped_rows/remapped_row_unc", "", kMaxCount)) {
    o.remapped_uncorrectable = static_cast<std::int64_t>(*unc);
  }
  o.remap_pending = r.flag(g, base, "remapped_rows/remapped_row_pending", "Yes", "No");
  o.remap_failure = r.flag(g, base, "remapped_rows/remapped_row_failure", "Yes", "No");
  if (const XmlElement* ps = g.child("performance_state")) o.performance_state = ps->text;
  return o;
}

}  // namespace

Parsed<GpuInventory> parse_nvidia_smi_xml(std::string_view text, const std::string& file) {
  auto doc = parse_xml(text, file);
  if (!doc) return gpuadvisor::unexpected(doc.error());
  if (doc->name != "nvidia_smi_log") {
    return gpuadvisor::unexpected(Diagnostic{
        file, text_location(doc->line, doc->column),
        fmt::format("expected the root element <nvidia_smi_log> of 'nvidia-smi -q -x', found <{}>",
                    doc->name)});
  }
  const Reader r(file);
  try {
    GpuInventory inv;
    inv.file = file;
    const XmlElement* drv = doc->child("driver_version");
    if (drv == nullptr || drv->text.empty()) {
      r.fail(*doc, "nvidia_smi_log", "expected <driver_version>");
    }
    inv.driver_version = drv->text;
    if (const XmlElement* cuda = doc->child("cuda_version");
        cuda != nullptr && !unknown(cuda->text)) {
      inv.cuda_version = cuda->text;
    }
    const auto gpus = doc->all("gpu");
    for (std::size_t i = 0; i < gpus.size(); ++i) inv.gpus.push_back(read_gpu(r, *gpus[i], i));
    if (auto n = r.integer(*doc, "nvidia_smi_log", "attached_gpus", "", 4096);
        n && static_cast<std::size_t>(*n) != inv.gpus.size()) {
      r.fail(*doc->child("attached_gpus"), "nvidia_smi_log/attached_gpus",
             fmt::format("says {} GPUs but the file has {} <gpu> elements (a truncated recording?)",
                         *n, inv.gpus.size()));
    }
    return inv;
  } catch (const NvidiaSmiFailure& f) {
    return gpuadvisor::unexpected(f.d);
  }
}

}  // namespace gpuadvisor::verify
