// `rocm-smi --showallinfo --json` into a GpuInventory. rocm-smi prints one
// object per card ("card0": {...}) and a "system" object; every value is a
// string, and key spellings vary between releases ("Card series" and
// "Card Series"). A value that is present but malformed is an error with
// its JSON path.
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/rules/json_locator.hpp"
#include "gpuadvisor/verify/machine.hpp"

namespace gpuadvisor::verify {
namespace {

struct RocmSmiFailure {
  Diagnostic d;
};

// PCI device ids of AMD Instinct GPUs (PCI ID repository, vendor 1002:
// https://pci-ids.ucw.cz/read/PC/1002). The card series string is often a
// firmware placeholder ("GENERIC RM IMAGE"), the device id never is.
struct Model {
  std::string_view id, name;
};
constexpr Model kModels[] = {{"0x74a1", "AMD Instinct MI300X"},
                             {"0x74a5", "AMD Instinct MI325X"},
                             {"0x740c", "AMD Instinct MI250X/MI250"},
                             {"0x740f", "AMD Instinct MI210"},
                             {"0x738c", "AMD Instinct MI100"}};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Card {
 public:
  Card(const nlohmann::json& j, std::string key, const std::string& file)
      : j_(j), key_(std::move(key)), file_(file) {}

  /// The first of `keys` that is present (rocm-smi's spellings differ).
  [[nodiscard]] const nlohmann::json* find(std::initializer_list<std::string_view> keys,
                                           std::string* which = nullptr) const {
    for (auto k : keys) {
      if (auto it = j_.find(std::string(k)); it != j_.end()) {
        if (which != nullptr) *which = std::string(k);
        return &*it;
      }
    }
    return nullptr;
  }
  [[nodiscard]] std::string text(std::initializer_list<std::string_view> keys) const {
    std::string k;
    const auto* v = find(keys, &k);
    if (v == nullptr) return {};
    if (!v->is_string()) fail(k, fmt::format("expected a string, got {}", describe(*v)));
    return v->get<std::string>();
  }
  /// A number printed as a string ("300.0"); nullopt when absent or N/A.
  [[nodiscard]] std::optional<double> number(std::initializer_list<std::string_view> keys,
                                             double max) const {
    std::string k;
    const auto* v = find(keys, &k);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string())
      fail(k, fmt::format("expected a number in a string, got {}", describe(*v)));
    const std::string s = v->get<std::string>();
    if (s == "N/A" || s.empty()) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    if (std::isdigit(static_cast<unsigned char>(s[0])) == 0 || end != s.c_str() + s.size() ||
        errno == ERANGE || !std::isfinite(d)) {
      fail(k, fmt::format("expected a number, got \"{}\"", s));
    }
    if (d > max) fail(k, fmt::format("{} is out of range (at most {})", s, max));
    return d;
  }
  [[noreturn]] void fail(const std::string& k, std::string msg) const {
    throw RocmSmiFailure{Diagnostic{file_, fmt::format("{}[\"{}\"]", key_, k), std::move(msg)}};
  }

 private:
  const nlohmann::json& j_;
  std::string key_;
  const std::string& file_;
};

}  // namespace

Parsed<GpuInventory> parse_rocm_smi_json(std::string_view text, const std::string& file) {
  auto j = parse_json(text, file);
  if (!j) return gpuadvisor::unexpected(j.error());
  if (!j->is_object()) {
    return gpuadvisor::unexpected(Diagnostic{
        file, "", fmt::format("expected the object rocm-smi --json prints, got {}", describe(*j))});
  }
  GpuInventory inv;
  inv.file = file;
  const rules::JsonLocator where(text);
  try {
    for (const auto& [key, value] : j->items()) {
      if (key == "system") {
        if (!value.is_object())
          return gpuadvisor::unexpected(Diagnostic{file, "system", "expected an object"});
        Card sys(value, key, file);
        inv.driver_version = sys.text({"Driver version", "Driver Version"});
        continue;
      }
      if (!key.starts_with("card")) continue;
      if (!value.is_object()) {
        return gpuadvisor::unexpected(
            Diagnostic{file, key, fmt::format("expected a card object, got {}", describe(value))});
      }
      const Card c(value, key, file);
      GpuObs o;
      o.vendor = "amd";
      o.bus_id = c.text({"PCI Bus", "PCIe Bus"});
      if (o.bus_id.empty()) o.bus_id = key;
      const std::string id = lower(c.text({"Device ID", "GPU ID"}));
      for (const auto& m : kModels) {
        if (m.id == id) o.name = m.name;
      }
      if (o.name.empty()) {
        std::string series = c.text({"Card Series", "Card series", "Marketing Name"});
        // Newer releases print the marketing name ("AMD Instinct MI300X OAM").
        if (series.find("MI300X") != std::string::npos) series = "AMD Instinct MI300X";
        o.name = series;
      }
      if (o.name.empty())
        c.fail("Card Series", fmt::format("expected the GPU model (\"Card Series\" or a known "
                                          "\"Device ID\"), got device id \"{}\"",
                                          id));
      if (auto b = c.number({"VRAM Total Memory (B)"}, 16e12))
        o.memory_mib = *b / (1024.0 * 1024.0);
      // rocm-smi's "Max Graphics Package Power" is the power cap in force.
      o.power_limit_w =
          c.number({"Max Graphics Package Power (W)", "Current Power Cap (W)"}, 100000);
      o.power_draw_w = c.number(
          {"Average Graphics Package Power (W)", "Current Socket Graphics Package Power (W)"},
          100000);
      o.temp_c =
          c.number({"Temperature (Sensor edge) (C)", "Temperature (Sensor junction) (C)"}, 1000);
      o.line = std::max(1, where.find(key).line);
      inv.gpus.push_back(std::move(o));
    }
  } catch (const RocmSmiFailure& f) {
    return gpuadvisor::unexpected(f.d);
  }
  if (inv.gpus.empty()) {
    return gpuadvisor::unexpected(Diagnostic{
        file, "", "expected at least one \"cardN\" object (rocm-smi --showallinfo --json)"});
  }
  if (inv.driver_version.empty()) {
    return gpuadvisor::unexpected(Diagnostic{
        file, "system", "expected \"Driver version\" (rocm-smi --showallinfo prints it)"});
  }
  return inv;
}

}  // namespace gpuadvisor::verify
