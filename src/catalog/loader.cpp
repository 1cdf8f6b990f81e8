// Parsing and validation of catalog documents. Every problem is collected with
// its JSON path; a document with any problem is rejected whole.
#include <algorithm>
#include <cctype>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/part_readers.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/money.hpp"

namespace gpuadvisor::catalog {
namespace {

using nlohmann::json;

constexpr std::string_view kConditions[] = {"new", "used"};
constexpr std::string_view kVendorsGpu[] = {"nvidia", "amd"};
constexpr std::string_view kVendorsCpu[] = {"intel", "amd"};
constexpr std::string_view kStacks[] = {"cuda", "rocm"};
constexpr std::string_view kMarkets[] = {"consumer", "workstation", "datacenter"};
constexpr std::string_view kGpuForms[] = {"pcie", "sxm", "oam"};
constexpr std::string_view kLinks[] = {"none", "nvlink", "nvlink-bridge", "infinity-fabric"};
constexpr std::string_view kConnectors[] = {"8pin", "12vhpwr", "cpu8pin", "none"};
constexpr std::string_view kCpuFamilies[] = {"xeon-w", "xeon-scalable", "threadripper-pro",
                                             "epyc",   "core",          "ryzen"};
constexpr std::string_view kMemTypes[] = {"DDR4", "DDR5"};
constexpr std::string_view kPlatformKinds[] = {"tower", "rack"};
constexpr std::string_view kPsuForms[] = {"atx", "server"};
constexpr std::string_view kStorageTypes[] = {"nvme", "sata-ssd", "hdd"};
constexpr std::string_view kEfficiency[] = {"80plus-white", "80plus-bronze",   "80plus-silver",
                                            "80plus-gold",  "80plus-platinum", "80plus-titanium"};
constexpr std::string_view kCoolingTypes[] = {"air", "liquid", "datacenter"};
constexpr std::string_view kGpuCooling[] = {"passive", "blower", "open-air", "liquid"};
constexpr std::string_view kCpuCoolerTypes[] = {"air", "liquid"};
constexpr std::string_view kNvmeForms[] = {"m.2", "u.2"};
constexpr std::string_view kBaySizes[] = {"2.5", "3.5"};
constexpr std::string_view kDriveForms[] = {"m.2", "u.2", "2.5", "3.5"};
constexpr std::string_view kModelKinds[] = {"transformer", "cnn"};
constexpr std::string_view kFabrics[] = {"infiniband", "ethernet"};
constexpr std::string_view kNetVendors[] = {"nvidia", "broadcom", "intel", "amd", "arista"};
constexpr std::string_view kPortForms[] = {"osfp", "qsfp112", "qsfp56", "qsfp28"};
constexpr std::string_view kCableKinds[] = {"transceiver", "fiber", "dac", "aoc"};
constexpr std::string_view kCableForms[] = {"osfp", "qsfp112", "qsfp56", "qsfp28", "mpo"};

/// Ids are short, lowercase and hyphenated: "rtx-4090", "llama-3-8b".
bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 64 || id.front() == '-' || id.back() == '-') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

bool valid_date(std::string_view d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (!std::isdigit(static_cast<unsigned char>(d[i]))) return false;
  }
  const int month = (d[5] - '0') * 10 + (d[6] - '0');
  const int day = (d[8] - '0') * 10 + (d[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/// Shared state while parsing one document.
struct Ctx {
  const std::string& file;
  Diagnostics& diags;
};

template <typename T, typename U>
void assign(T& dst, const std::optional<U>& v) {
  // Integer fields are range-checked to fit before they get here.
  if (v) dst = static_cast<T>(*v);
}

template <typename E, std::size_t N>
void assign_enum(E& dst, const std::optional<std::size_t>& idx, const E (&values)[N]) {
  if (idx && *idx < N) dst = values[*idx];
}

std::string read_id(ObjectReader& r) {
  auto id = r.string("id");
  if (id && !valid_id(*id)) {
    r.error("id", fmt::format("expected a short lowercase id of letters, digits and hyphens "
                              "(like \"rtx-4090\"), got \"{}\"",
                              *id));
  }
  return id.value_or("");
}

std::vector<std::string> read_string_list(ObjectReader& r, std::string_view key, Ctx& ctx,
                                          Need need) {
  std::vector<std::string> out;
  const json* arr = r.array(key, need);
  if (arr == nullptr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const json& v = (*arr)[i];
    if (!v.is_string() || v.get<std::string>().empty()) {
      ctx.diags.push_back({ctx.file, index_path(r.child_path(key), i),
                           fmt::format("expected a non-empty string, got {}", describe(v))});
    } else {
      out.push_back(v.get<std::string>());
    }
  }
  if (need == Need::required && arr->empty()) r.error(key, "expected at least one entry");
  return out;
}

std::string read_date(ObjectReader& r) {
  auto date = r.string("date");
  if (date && !valid_date(*date)) {
    r.error("date", fmt::format("expected a date as YYYY-MM-DD, got \"{}\"", *date));
  }
  return date.value_or("");
}

/// The price's kind; nullopt when missing or unknown (already reported).
std::optional<PriceKind> read_kind(ObjectReader& r) {
  auto idx = r.choice("kind", kPriceKinds);
  if (!idx) return std::nullopt;
  return static_cast<PriceKind>(*idx);  // kPriceKinds is in PriceKind order
}

/// "estimate: <how>" goes with kind estimate, and only with it: an estimate
/// says how it was derived, a listed price names where it was listed.
void check_estimate(ObjectReader& r, std::optional<PriceKind> k, const std::string& source) {
  if (!k || source.empty()) return;
  const PriceKind kind = *k;
  const bool says_estimate = source.starts_with("estimate:");
  if (kind == PriceKind::estimate && !says_estimate) {
    r.error("source", fmt::format("an estimate's source says how it was derived: expected "
                                  "\"estimate: <reasoning>\", got \"{}\"",
                                  source));
  } else if (kind != PriceKind::estimate && says_estimate) {
    r.error("kind", fmt::format("the source is an estimate; expected kind \"estimate\", got "
                                "\"{}\"",
                                to_string(kind)));
  }
}

std::vector<LocalPrice> read_local(ObjectReader& parent, Ctx& ctx, double max) {
  std::vector<LocalPrice> out;
  const json* arr = parent.array("local", Need::optional);
  if (arr == nullptr) return out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    ObjectReader r((*arr)[i], index_path(parent.child_path("local"), i), ctx.file, ctx.diags);
    if (!r.ok()) continue;
    LocalPrice l;
    if (auto cur = r.string("currency")) {
      if (find_currency(*cur) == nullptr || *cur == "USD") {
        r.error("currency", fmt::format("expected a currency other than USD ({}), got \"{}\"",
                                        currency_list(), *cur));
      } else if (!seen.insert(*cur).second) {
        r.error("currency", fmt::format("a second {} price; expected one per currency", *cur));
      }
      l.currency = *cur;
    }
    assign(l.amount, r.number("amount", 0, max));
    const auto kind = read_kind(r);
    l.kind = kind.value_or(PriceKind::estimate);
    l.date = read_date(r);
    l.source = r.string("source").value_or("");
    check_estimate(r, kind, l.source);
    r.finish();
    out.push_back(std::move(l));
  }
  return out;
}

void read_usd_currency(ObjectReader& r) {
  auto cur = r.string("currency");
  if (cur && *cur != "USD") {
    r.error("currency", fmt::format("expected \"USD\" (the price the search compares; a price in "
                                    "another currency goes under \"local\"), got \"{}\"",
                                    *cur));
  }
}

void read_price(ObjectReader& parent, Price& price, Ctx& ctx) {
  const json* v = parent.object("price");
  if (v == nullptr) return;
  ObjectReader r(*v, parent.child_path("price"), ctx.file, ctx.diags);
  assign(price.usd, r.number("usd", 0, 1e8));
  read_usd_currency(r);
  const auto kind = read_kind(r);
  price.kind = kind.value_or(PriceKind::estimate);
  price.date = read_date(r);
  price.source = r.string("source").value_or("");
  check_estimate(r, kind, price.source);
  price.local = read_local(r, ctx, 1e12);
  r.finish();
}

void read_base(ObjectReader& r, PartBase& p, Ctx& ctx) {
  p.id = read_id(r);
  p.aliases = read_string_list(r, "aliases", ctx, Need::optional);
  for (std::size_t i = 0; i < p.aliases.size(); ++i) {
    if (!valid_id(p.aliases[i])) {
      ctx.diags.push_back({ctx.file, index_path(r.child_path("aliases"), i),
                           fmt::format("expected a former id of letters, digits and hyphens, "
                                       "got \"{}\"",
                                       p.aliases[i])});
    }
  }
  p.name = r.string("name").value_or("");
  read_price(r, p.price, ctx);
  p.sources = read_string_list(r, "sources", ctx, Need::required);
  p.notes = r.string("notes", Need::optional).value_or("");
}

Architecture read_entry(std::type_identity<Architecture>, ObjectReader& r, Ctx& ctx) {
  Architecture a;
  a.id = read_id(r);
  auto vendor = r.choice("vendor", kVendorsGpu);
  if (vendor) a.vendor = kVendorsGpu[*vendor];
  auto stack = r.choice("stack", kStacks);
  if (stack) a.stack = kStacks[*stack];
  a.compute_capability = r.string("compute_capability").value_or("");
  a.min_stack_version = r.string("min_stack_version").value_or("");
  // Empty means "still supported", so an empty string is allowed here.
  if (const json* v = r.value("max_stack_version", Need::optional)) {
    if (v->is_string())
      a.max_stack_version = v->get<std::string>();
    else
      r.error("max_stack_version", fmt::format("expected a string, got {}", describe(*v)));
  }
  assign(a.bf16, r.boolean("bf16"));
  assign(a.fp8, r.boolean("fp8"));
  a.sources = read_string_list(r, "sources", ctx, Need::required);
  return a;
}

Gpu read_entry(std::type_identity<Gpu>, ObjectReader& r, Ctx& ctx) {
  Gpu g;
  read_base(r, g, ctx);
  if (auto v = r.choice("vendor", kVendorsGpu)) g.vendor = kVendorsGpu[*v];
  g.architecture = r.string("architecture").value_or("");
  assign_enum(g.market, r.choice("market", kMarkets),
              {GpuMarket::consumer, GpuMarket::workstation, GpuMarket::datacenter});
  assign(g.memory_gb, r.number("memory_gb", 1, 4096));
  g.memory_type = r.string("memory_type").value_or("");
  assign(g.memory_bandwidth_gbs, r.number("memory_bandwidth_gbs", 10, 100000));
  assign(g.tensor_tflops_16bit, r.number("tensor_tflops_16bit", 1, 100000));
  assign(g.tensor_tflops_fp8, r.number("tensor_tflops_fp8", 0, 200000));
  assign(g.fp32_tflops, r.number("fp32_tflops", 0.1, 10000));
  assign(g.tf32_tflops, r.number("tf32_tflops", 0, 100000));
  assign(g.power_w, r.number("power_w", 10, 3000));
  assign_enum(g.form_factor, r.choice("form_factor", kGpuForms),
              {GpuFormFactor::pcie, GpuFormFactor::sxm, GpuFormFactor::oam});
  assign(g.slot_width, r.integer("slot_width", 0, 5));
  assign(g.length_mm, r.number("length_mm", 0, 600));
  g.baseboard = r.string("baseboard", Need::optional).value_or("");
  if (const json* link = r.object("interconnect")) {
    ObjectReader lr(*link, r.child_path("interconnect"), ctx.file, ctx.diags);
    if (auto t = lr.choice("type", kLinks)) g.interconnect.type = kLinks[*t];
    assign(g.interconnect.bandwidth_gbs, lr.number("bandwidth_gbs", 0, 100000));
    assign(g.interconnect.peer_to_peer, lr.boolean("peer_to_peer"));
    lr.finish();
  }
  assign(g.pcie_gen, r.integer("pcie_gen", 1, 7));
  assign(g.pcie_lanes, r.integer("pcie_lanes", 1, 32));
  if (auto c = r.choice("power_connector", kConnectors)) g.power_connector = kConnectors[*c];
  assign(g.power_connector_count, r.integer("power_connector_count", 0, 8));
  assign(g.passive_cooling, r.boolean("passive_cooling"));
  g.cooling = g.passive_cooling                 ? GpuCooling::passive
              : g.market == GpuMarket::consumer ? GpuCooling::open_air
                                                : GpuCooling::blower;
  if (r.has("cooling")) {
    assign_enum(
        g.cooling, r.choice("cooling", kGpuCooling, Need::optional),
        {GpuCooling::passive, GpuCooling::blower, GpuCooling::open_air, GpuCooling::liquid});
    if ((g.cooling == GpuCooling::passive) != g.passive_cooling) {
      r.error("cooling", fmt::format("\"passive\" cooling goes with passive_cooling: true (got "
                                     "passive_cooling: {})",
                                     g.passive_cooling));
    }
  }
  assign_enum(g.condition, r.choice("condition", kConditions), {Condition::new_, Condition::used});

  // Consistency between fields of one card.
  if (g.form_factor == GpuFormFactor::pcie) {
    if (r.has("slot_width") && g.slot_width == 0)
      r.error("slot_width", "a PCIe card occupies at least 1 slot; got 0");
    if (r.has("length_mm") && g.length_mm <= 0)
      r.error("length_mm", "a PCIe card needs its length; got 0");
  } else if (r.has("form_factor") && g.baseboard.empty()) {
    r.error("baseboard", "SXM and OAM modules need the baseboard family they mount on");
  }
  return g;
}

Cpu read_entry(std::type_identity<Cpu>, ObjectReader& r, Ctx& ctx) {
  Cpu c;
  read_base(r, c, ctx);
  if (auto v = r.choice("vendor", kVendorsCpu)) c.vendor = kVendorsCpu[*v];
  if (auto v = r.choice("family", kCpuFamilies)) c.family = kCpuFamilies[*v];
  c.socket = r.string("socket").value_or("");
  assign(c.cores, r.integer("cores", 1, 1024));
  assign(c.threads, r.integer("threads", 1, 2048));
  assign(c.pcie_lanes, r.integer("pcie_lanes", 1, 512));
  assign(c.pcie_gen, r.integer("pcie_gen", 1, 7));
  assign(c.memory_channels, r.integer("memory_channels", 1, 32));
  if (auto v = r.choice("memory_type", kMemTypes)) c.memory_type = kMemTypes[*v];
  assign(c.tdp_w, r.number("tdp_w", 5, 1500));
  c.max_power_w = c.tdp_w;
  assign(c.max_power_w, r.number("max_power_w", 5, 2000, Need::optional));
  if (r.has("max_power_w") && c.max_power_w < c.tdp_w) {
    r.error("max_power_w",
            fmt::format("expected at least tdp_w ({} W), got {} W", c.tdp_w, c.max_power_w));
  }
  c.pcie_lanes_2p = c.pcie_lanes;
  assign(c.pcie_lanes_2p, r.integer("pcie_lanes_2p", 1, 512, Need::optional));
  assign(c.cooler_included, r.boolean("cooler_included", Need::optional));
  if (c.threads < c.cores && r.has("threads") && r.has("cores")) {
    r.error("threads", fmt::format("expected at least as many threads as cores ({}), got {}",
                                   c.cores, c.threads));
  }
  return c;
}

Platform read_entry(std::type_identity<Platform>, ObjectReader& r, Ctx& ctx) {
  Platform p;
  read_base(r, p, ctx);
  assign_enum(p.kind, r.choice("kind", kPlatformKinds), {PlatformKind::tower, PlatformKind::rack});
  p.form_factor = r.string("form_factor").value_or("");
  p.socket = r.string("socket").value_or("");
  p.cpu_families = read_string_list(r, "cpu_families", ctx, Need::optional);
  for (std::size_t i = 0; i < p.cpu_families.size(); ++i) {
    const auto& f = p.cpu_families[i];
    if (std::find(std::begin(kCpuFamilies), std::end(kCpuFamilies), f) == std::end(kCpuFamilies)) {
      ctx.diags.push_back(
          {ctx.file, index_path(r.child_path("cpu_families"), i),
           fmt::format("expected one of {}, got \"{}\"", fmt::join(kCpuFamilies, ", "), f)});
    }
  }
  assign(p.cpu_sockets, r.integer("cpu_sockets", 1, 8));
  p.gpu_form_factors = read_string_list(r, "gpu_form_factors", ctx, Need::required);
  for (std::size_t i = 0; i < p.gpu_form_factors.size(); ++i) {
    const auto& f = p.gpu_form_factors[i];
    if (std::find(std::begin(kGpuForms), std::end(kGpuForms), f) == std::end(kGpuForms)) {
      ctx.diags.push_back({ctx.file, index_path(r.child_path("gpu_form_factors"), i),
                           fmt::format("expected one of pcie, sxm, oam, got \"{}\"", f)});
    }
  }
  p.baseboard = r.string("baseboard", Need::optional).value_or("");
  assign(p.max_gpus, r.integer("max_gpus", 0, 64));
  assign(p.max_gpu_slot_width, r.integer("max_gpu_slot_width", 0, 5));
  assign(p.max_gpu_length_mm, r.number("max_gpu_length_mm", 0, 1000));
  assign(p.gpu_pcie_lanes, r.integer("gpu_pcie_lanes", 1, 32));
  assign(p.memory_slots, r.integer("memory_slots", 1, 128));
  if (auto v = r.choice("memory_type", kMemTypes)) p.memory_type = kMemTypes[*v];
  assign(p.registered_memory, r.boolean("registered_memory"));
  assign(p.max_memory_gb, r.number("max_memory_gb", 1, 65536));
  assign(p.nvme_slots, r.integer("nvme_slots", 0, 128));
  assign(p.drive_bays, r.integer("drive_bays", 0, 256));
  if (auto v = r.choice("psu_form", kPsuForms)) p.psu_form = kPsuForms[*v];
  assign(p.psu_bays, r.integer("psu_bays", 1, 16));
  assign(p.max_psu_w, r.number("max_psu_w", 100, 20000));
  assign(p.base_power_w, r.number("base_power_w", 0, 10000));
  assign(p.included_cooling_w, r.number("included_cooling_w", 0, 500000));
  if (const json* inc = r.object("included_psu", Need::optional)) {
    ObjectReader ir(*inc, r.child_path("included_psu"), ctx.file, ctx.diags);
    IncludedPart part;
    part.id = ir.string("id").value_or("");
    assign(part.count, ir.integer("count", 1, 16));
    assign(part.redundant, ir.integer("redundant", 0, 15, Need::optional));
    if (part.redundant >= part.count) {
      ir.error("redundant",
               fmt::format("expected fewer redundant PSUs than the {} included", part.count));
    }
    ir.finish();
    p.included_psu = part;
  }
  if (const json* counts = r.array("gpu_counts", Need::optional)) {
    for (std::size_t i = 0; i < counts->size(); ++i) {
      const json& v = (*counts)[i];
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
          v.get<std::int64_t>() > p.max_gpus) {
        ctx.diags.push_back({ctx.file, index_path(r.child_path("gpu_counts"), i),
                             fmt::format("expected a GPU count from 1 to max_gpus ({}), got {}",
                                         p.max_gpus, describe(v))});
      } else {
        p.gpu_counts.push_back(static_cast<int>(v.get<std::int64_t>()));
      }
    }
  }
  assign(p.cpu_cooler_included, r.boolean("cpu_cooler_included", Need::optional));
  assign(p.gpu_airflow, r.boolean("gpu_airflow", Need::optional));
  assign(p.validated_power, r.boolean("validated_power", Need::optional));
  if (p.validated_power && !p.included_psu) {
    r.error("validated_power", "a vendor-validated PSU configuration needs included_psu");
  }
  if (auto v = r.choice("nvme_form", kNvmeForms, Need::optional)) p.nvme_form = kNvmeForms[*v];
  if (auto v = r.choice("bay_size", kBaySizes, Need::optional)) p.bay_size = kBaySizes[*v];
  assign(p.eps_inputs, r.integer("eps_inputs", 0, 8, Need::optional));
  const bool module_gpus = std::any_of(p.gpu_form_factors.begin(), p.gpu_form_factors.end(),
                                       [](const std::string& f) { return f != "pcie"; });
  if (module_gpus && p.baseboard.empty() && r.has("gpu_form_factors")) {
    r.error("baseboard", "platforms for SXM or OAM modules need their baseboard family");
  }
  return p;
}

MemoryKit read_entry(std::type_identity<MemoryKit>, ObjectReader& r, Ctx& ctx) {
  MemoryKit m;
  read_base(r, m, ctx);
  if (auto v = r.choice("type", kMemTypes)) m.type = kMemTypes[*v];
  assign(m.registered, r.boolean("registered"));
  assign(m.modules, r.integer("modules", 1, 64));
  assign(m.capacity_gb, r.number("capacity_gb", 1, 65536));
  assign(m.speed_mts, r.integer("speed_mts", 800, 20000));
  assign(m.power_w, r.number("power_w", 0, 1000));
  return m;
}

Storage read_entry(std::type_identity<Storage>, ObjectReader& r, Ctx& ctx) {
  Storage s;
  read_base(r, s, ctx);
  assign_enum(s.type, r.choice("type", kStorageTypes),
              {StorageType::nvme, StorageType::sata_ssd, StorageType::hdd});
  assign(s.capacity_tb, r.number("capacity_tb", 0.01, 1000));
  assign(s.seq_read_mbs, r.number("seq_read_mbs", 10, 100000));
  assign(s.power_w, r.number("power_w", 0, 100));
  s.form = s.type == StorageType::nvme ? "m.2" : s.type == StorageType::sata_ssd ? "2.5" : "3.5";
  if (auto v = r.choice("form", kDriveForms, Need::optional)) s.form = kDriveForms[*v];
  if (r.has("form") && (s.type == StorageType::nvme) != (s.form == "m.2" || s.form == "u.2")) {
    r.error("form",
            fmt::format("NVMe drives are m.2 or u.2, SATA drives 2.5 or 3.5; got {}", s.form));
  }
  return s;
}

Psu read_entry(std::type_identity<Psu>, ObjectReader& r, Ctx& ctx) {
  Psu p;
  read_base(r, p, ctx);
  if (auto v = r.choice("form", kPsuForms)) p.form = kPsuForms[*v];
  assign(p.watts_230v, r.number("watts_230v", 100, 20000));
  // 0: the unit has no low-line (100-127 V) rating; it runs at 200-240 V only.
  assign(p.watts_115v, r.number("watts_115v", 0, 20000));
  if (r.has("watts_115v") && p.watts_115v > 0 && p.watts_115v < 100) {
    r.error("watts_115v", fmt::format("expected 0 (no low-line rating) or at least 100 W, got {} W",
                                      p.watts_115v));
  }
  if (auto v = r.choice("efficiency", kEfficiency)) p.efficiency = kEfficiency[*v];
  assign(p.pcie_8pin, r.integer("pcie_8pin", 0, 32));
  assign(p.connectors_12vhpwr, r.integer("connectors_12vhpwr", 0, 16));
  // ATX 12V units ship two EPS (CPU 8-pin) cables unless the catalog says
  // otherwise (Intel ATX 3.0 design guide: boards take one or two).
  p.eps_8pin = p.form == "atx" ? 2 : 0;
  assign(p.eps_8pin, r.integer("eps_8pin", 0, 16, Need::optional));
  if (p.watts_115v > p.watts_230v && r.has("watts_115v") && r.has("watts_230v")) {
    r.error("watts_115v", fmt::format("expected at most the 230 V rating ({} W), got {} W",
                                      p.watts_230v, p.watts_115v));
  }
  return p;
}

Cooling read_entry(std::type_identity<Cooling>, ObjectReader& r, Ctx& ctx) {
  Cooling c;
  read_base(r, c, ctx);
  assign_enum(c.type, r.choice("type", kCoolingTypes),
              {CoolingType::air, CoolingType::liquid, CoolingType::datacenter});
  assign(c.capacity_w, r.number("capacity_w", 10, 500000));
  assign(c.power_w, r.number("power_w", 0, 20000));
  if (auto v = r.choice("form", kPlatformKinds)) c.form = kPlatformKinds[*v];
  return c;
}

CpuCooler read_entry(std::type_identity<CpuCooler>, ObjectReader& r, Ctx& ctx) {
  CpuCooler c;
  read_base(r, c, ctx);
  if (auto v = r.choice("type", kCpuCoolerTypes)) c.type = kCpuCoolerTypes[*v];
  c.sockets = read_string_list(r, "sockets", ctx, Need::required);
  if (c.sockets.empty() && r.has("sockets")) r.error("sockets", "expected at least one socket");
  assign(c.max_cpu_w, r.number("max_cpu_w", 10, 2000));
  assign(c.power_w, r.number("power_w", 0, 100));
  return c;
}

/// A list of names from `allowed`, at least one, each once.
template <std::size_t N>
std::vector<std::string> read_choices(ObjectReader& r, std::string_view key,
                                      const std::string_view (&allowed)[N], Ctx& ctx) {
  std::vector<std::string> out = read_string_list(r, key, ctx, Need::required);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool known =
        std::find(std::begin(allowed), std::end(allowed), out[i]) != std::end(allowed);
    const bool again = std::find(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i),
                                 out[i]) != out.begin() + static_cast<std::ptrdiff_t>(i);
    if (!known || again) {
      ctx.diags.push_back({ctx.file, index_path(r.child_path(key), i),
                           again ? fmt::format("\"{}\" is listed twice", out[i])
                                 : fmt::format("expected one of {}, got \"{}\"",
                                               fmt::join(allowed, ", "), out[i])});
    }
  }
  return out;
}

Nic read_entry(std::type_identity<Nic>, ObjectReader& r, Ctx& ctx) {
  Nic n;
  read_base(r, n, ctx);
  if (auto v = r.choice("vendor", kNetVendors)) n.vendor = kNetVendors[*v];
  n.fabrics = read_choices(r, "fabrics", kFabrics, ctx);
  assign(n.ports, r.integer("ports", 1, 8));
  assign(n.port_gbps, r.number("port_gbps", 1, 3200));
  if (auto v = r.choice("form", kPortForms)) n.form = kPortForms[*v];
  assign(n.pcie_gen, r.integer("pcie_gen", 3, 7));
  assign(n.pcie_lanes, r.integer("pcie_lanes", 1, 32));
  assign(n.power_w, r.number("power_w", 1, 500));
  return n;
}

Switch read_entry(std::type_identity<Switch>, ObjectReader& r, Ctx& ctx) {
  Switch s;
  read_base(r, s, ctx);
  if (auto v = r.choice("vendor", kNetVendors)) s.vendor = kNetVendors[*v];
  s.fabrics = read_choices(r, "fabrics", kFabrics, ctx);
  assign(s.ports, r.integer("ports", 4, 1024));
  if (r.has("ports") && s.ports % 2 != 0) {
    r.error("ports", fmt::format("expected an even port count (a fat-tree leaf splits its ports "
                                 "half down, half up), got {}",
                                 s.ports));
  }
  assign(s.port_gbps, r.number("port_gbps", 1, 3200));
  if (auto v = r.choice("form", kPortForms)) s.form = kPortForms[*v];
  assign(s.rack_units, r.integer("rack_units", 1, 48));
  assign(s.power_w, r.number("power_w", 10, 100000));
  return s;
}

Cable read_entry(std::type_identity<Cable>, ObjectReader& r, Ctx& ctx) {
  Cable c;
  read_base(r, c, ctx);
  if (auto v = r.choice("kind", kCableKinds)) c.kind = kCableKinds[*v];
  c.fabrics = read_choices(r, "fabrics", kFabrics, ctx);
  if (auto v = r.choice("form", kCableForms)) c.form = kCableForms[*v];
  assign(c.gbps, r.number("gbps", 1, 3200));
  assign(c.links, r.integer("links", 1, 8, Need::optional));
  assign(c.length_m, r.number("length_m", 0, 10000));
  assign(c.power_w, r.number("power_w", 0, 100));
  if (r.has("form") && r.has("kind") && (c.kind == "fiber") != (c.form == "mpo")) {
    r.error("form", fmt::format("a fiber ends in \"mpo\" connectors and only a fiber does; got "
                                "kind \"{}\" with form \"{}\"",
                                c.kind, c.form));
  }
  if (c.kind == "transceiver" && r.has("length_m") && c.length_m != 0) {
    r.error("length_m", "a transceiver has no length (its fiber has); expected 0");
  }
  if (c.kind != "transceiver" && r.has("kind") && r.has("length_m") && c.length_m <= 0) {
    r.error("length_m", fmt::format("a {} needs its length in metres", c.kind));
  }
  return c;
}

/// The optional fields of a preset: explicit head size, experts, sliding window.
void read_model_shape_extras(ObjectReader& r, ModelPreset& m) {
  const auto opt = Need::optional;
  assign(m.head_dim, r.integer("head_dim", 0, 100000, opt));
  assign(m.experts, r.integer("experts", 0, 100000, opt));
  assign(m.experts_per_token, r.integer("experts_per_token", 0, 100000, opt));
  assign(m.expert_ffn, r.integer("expert_ffn", 0, 10000000, opt));
  assign(m.shared_experts, r.integer("shared_experts", 0, 100000, opt));
  assign(m.shared_expert_ffn, r.integer("shared_expert_ffn", 0, 10000000, opt));
  assign(m.dense_layers, r.integer("dense_layers", 0, 10000, opt));
  assign(m.moe_every, r.integer("moe_every", 1, 10000, opt));
  assign(m.router_bias, r.boolean("router_bias", opt));
  assign(m.q_lora_rank, r.integer("q_lora_rank", 0, 1000000, opt));
  assign(m.kv_lora_rank, r.integer("kv_lora_rank", 0, 1000000, opt));
  assign(m.qk_nope_head_dim, r.integer("qk_nope_head_dim", 0, 100000, opt));
  assign(m.qk_rope_head_dim, r.integer("qk_rope_head_dim", 0, 100000, opt));
  assign(m.v_head_dim, r.integer("v_head_dim", 0, 100000, opt));
  if (m.kv_lora_rank > 0 && (m.qk_nope_head_dim < 1 || m.qk_rope_head_dim < 1 || m.v_head_dim < 1))
    r.error("kv_lora_rank",
            "latent attention needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
  assign(m.sliding_window, r.integer("sliding_window", 0, 100000000, opt));
  assign(m.sliding_window_layers, r.integer("sliding_window_layers", 0, 10000, opt));
  if (m.experts > 0 && (m.experts_per_token < 1 || m.experts_per_token > m.experts)) {
    r.error("experts_per_token",
            fmt::format("expected 1 to {} (the experts), got {}", m.experts, m.experts_per_token));
  }
  if (m.experts > 0 && m.expert_ffn < 1) r.error("expert_ffn", "a MoE preset needs expert_ffn");
  if (m.sliding_window_layers > m.layers) {
    r.error("sliding_window_layers", fmt::format("expected at most the {} layers, got {}", m.layers,
                                                 m.sliding_window_layers));
  }
}

ModelPreset read_entry(std::type_identity<ModelPreset>, ObjectReader& r, Ctx& ctx) {
  ModelPreset m;
  m.id = read_id(r);
  m.name = r.string("name").value_or("");
  assign_enum(m.kind, r.choice("kind", kModelKinds), {ModelKind::transformer, ModelKind::cnn});
  assign(m.params, r.number("params", 1e3, 1e14));
  const bool tf = m.kind == ModelKind::transformer;
  const std::int64_t lo = tf ? 1 : 0;
  assign(m.layers, r.integer("layers", lo, 10000));
  assign(m.hidden, r.integer("hidden", lo, 1000000));
  assign(m.heads, r.integer("heads", lo, 4096));
  assign(m.kv_heads, r.integer("kv_heads", lo, 4096));
  assign(m.ffn, r.integer("ffn", lo, 10000000));
  assign(m.vocab, r.integer("vocab", lo, 100000000));
  assign(m.seq_len, r.integer("seq_len", lo, 100000000));
  assign(m.gated_ffn, r.boolean("gated_ffn"));
  assign(m.tied_embeddings, r.boolean("tied_embeddings"));
  assign(m.flash_attention, r.boolean("flash_attention"));
  read_model_shape_extras(r, m);
  assign(m.flops_per_sample, r.number("flops_per_sample", 0, 1e18));
  assign(m.image_size, r.integer("image_size", 0, 100000));
  assign(m.activation_bytes_per_sample, r.number("activation_bytes_per_sample", 0, 1e13));
  m.sources = read_string_list(r, "sources", ctx, Need::required);
  if (tf && m.heads > 0 && m.kv_heads > 0) {
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
      r.error("kv_heads",
              fmt::format("expected a divisor of heads ({}), got {}", m.heads, m.kv_heads));
    }
  }
  if (!tf && r.has("flops_per_sample") && m.flops_per_sample <= 0) {
    r.error("flops_per_sample", "a CNN preset needs its forward FLOPs per sample");
  }
  return m;
}

CloudPrice read_entry(std::type_identity<CloudPrice>, ObjectReader& r, Ctx& ctx) {
  CloudPrice c;
  c.id = read_id(r);
  c.gpu = r.string("gpu").value_or("");
  c.provider = r.string("provider").value_or("");
  assign(c.usd_per_gpu_hour, r.number("usd_per_gpu_hour", 0.01, 1000));
  assign(c.gpus_per_instance, r.integer("gpus_per_instance", 1, 64, Need::optional));
  read_usd_currency(r);
  const auto kind = read_kind(r);
  c.kind = kind.value_or(PriceKind::estimate);
  c.date = read_date(r);
  c.source = r.string("source").value_or("");
  check_estimate(r, kind, c.source);
  c.local = read_local(r, ctx, 1e6);
  return c;
}

Source read_entry(std::type_identity<Source>, ObjectReader& r, Ctx&) {
  Source s;
  s.key = r.string("key").value_or("");
  s.title = r.string("title").value_or("");
  s.url = r.string("url").value_or("");
  return s;
}

template <typename T>
std::string key_of(const T& t) {
  if constexpr (std::is_same_v<T, Source>)
    return t.key;
  else
    return t.id;
}

/// Reads one category array; reports duplicate ids within it.
template <typename T>
void read_category(ObjectReader& top, std::string_view key, Need need, std::vector<T>& out,
                   Ctx& ctx) {
  const json* arr = top.array(key, need);
  if (arr == nullptr) return;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string path = index_path(key, i);
    ObjectReader r((*arr)[i], path, ctx.file, ctx.diags);
    if (!r.ok()) continue;
    T item = read_entry(std::type_identity<T>{}, r, ctx);
    r.finish();
    const std::string id = key_of(item);
    if (!id.empty() && !seen.insert(id).second) {
      add(ctx.diags, {ctx.file, path + (std::is_same_v<T, Source> ? ".key" : ".id"),
                      fmt::format("duplicate id \"{}\" in {}", id, key)});
    }
    if constexpr (std::is_base_of_v<PartBase, T>) {
      for (std::size_t k = 0; k < item.aliases.size(); ++k) {
        if (!seen.insert(item.aliases[k]).second) {
          add(ctx.diags, {ctx.file, index_path(path + ".aliases", k),
                          fmt::format("duplicate id \"{}\" in {}", item.aliases[k], key)});
        }
      }
    }
    // A document with a problem is rejected whole: keep no parts past one.
    if (ctx.diags.empty()) out.push_back(std::move(item));
  }
}

/// The categories whose parts have a `price` object.
bool priced_category(std::string_view key) {
  bool priced = false;
  for_each_category([&](const auto& cat) {
    using T = typename std::remove_cvref_t<decltype(cat)>::Part;
    if (cat.key == key) priced = std::is_base_of_v<PartBase, T>;
  });
  return priced;
}

std::vector<PriceOverride> read_prices(ObjectReader& top, Ctx& ctx) {
  std::vector<PriceOverride> out;
  const json* arr = top.array("prices", Need::optional);
  if (arr == nullptr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    ObjectReader r((*arr)[i], index_path("prices", i), ctx.file, ctx.diags);
    if (!r.ok()) continue;
    PriceOverride o;
    if (auto cat = r.string("category")) {
      o.category = std::string(category_key(*cat));
      if (!priced_category(o.category)) {
        r.error(
            "category",
            fmt::format("expected a category of priced parts (gpu, cpu, "
                        "platform, memory, storage, psu, cooling, cpu_cooler, nic, switch, cable), "
                        "got \"{}\"",
                        *cat));
      }
    }
    o.id = r.string("id").value_or("");
    read_price(r, o.price, ctx);
    r.finish();
    out.push_back(std::move(o));
  }
  return out;
}

template <typename T>
void layer_category(std::vector<T>& base, std::vector<T>& top) {
  // An id index keeps layering linear in the parts (a linear search per part
  // made --catalog files of tens of thousands of parts quadratic).
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(base.size() + top.size());
  for (std::size_t i = 0; i < base.size(); ++i) index.emplace(key_of(base[i]), i);
  for (auto& item : top) {
    auto [it, added] = index.emplace(key_of(item), base.size());
    if (added)
      base.push_back(std::move(item));
    else
      base[it->second] = std::move(item);
  }
}

}  // namespace

gpuadvisor::expected<Catalog, Diagnostics> parse_catalog(std::string_view text,
                                                         const std::string& file, bool overlay) {
  auto doc = parse_json(text, file);
  if (!doc) return gpuadvisor::unexpected(Diagnostics{doc.error()});
  Diagnostics diags;
  Ctx ctx{file, diags};
  Catalog c;
  ObjectReader top(*doc, "", file, diags);
  if (!top.ok()) return gpuadvisor::unexpected(diags);
  if (auto v = top.integer("schema_version", 0, 1000000)) {
    if (*v != kCatalogSchemaVersion) {
      top.error("schema_version", fmt::format("unsupported catalog version {}; this gpuadvisor "
                                              "reads version {}",
                                              *v, kCatalogSchemaVersion));
    }
  }
  const Need need = overlay ? Need::optional : Need::required;
  for_each_category([&](const auto& cat) {
    read_category(top, cat.key, cat.required ? need : Need::optional, c.*cat.items, ctx);
  });
  c.prices = read_prices(top, ctx);
  top.finish();
  if (!diags.empty()) return gpuadvisor::unexpected(std::move(diags));
  return c;
}

void layer(Catalog& base, Catalog top) {
  for_each_category([&](const auto& cat) { layer_category(base.*cat.items, top.*cat.items); });
  for (auto& o : top.prices) {
    for_each_category([&](const auto& cat) {
      using T = typename std::remove_cvref_t<decltype(cat)>::Part;
      if constexpr (std::is_base_of_v<PartBase, T>) {
        if (cat.key != o.category) return;
        for (auto& part : base.*cat.items) {
          if (part.id == o.id) part.price = o.price;
        }
      }
    });
  }
}

Diagnostics check_references(const Catalog& c, const Catalog& context, const std::string& file) {
  Diagnostics diags;
  auto dangling = [&](std::string path, std::string_view what, const std::string& id) {
    diags.push_back({file, std::move(path), fmt::format("unknown {} \"{}\"", what, id)});
  };
  // Source keys are looked up once per citation: index them (a linear search
  // per citation was a measurable part of every command's start-up).
  std::unordered_set<std::string_view> source_keys;
  source_keys.reserve(context.sources.size());
  for (const auto& s : context.sources) source_keys.insert(s.key);
  auto known_source = [&](const std::string& key) { return source_keys.contains(key); };
  auto check_sources = [&](std::string_view category, std::size_t i,
                           const std::vector<std::string>& keys) {
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (!known_source(keys[k])) {
        dangling(fmt::format("{}[{}].sources[{}]", category, i, k), "source key", keys[k]);
      }
    }
  };
  // A price names a source key, a public URL, or says how it was estimated;
  // a quote (private by nature) names the quote in words.
  auto check_price_source = [&](const std::string& path, const std::string& source,
                                PriceKind kind) {
    if (kind == PriceKind::quote || source.starts_with("estimate:") ||
        source.starts_with("https://") || source.starts_with("http://") || known_source(source)) {
      return;
    }
    diags.push_back({file, path,
                     fmt::format("unknown source key \"{}\"; expected a key of the sources "
                                 "table, a URL or \"estimate: <reasoning>\"",
                                 source)});
  };
  auto check_local = [&](const std::string& path, const std::vector<LocalPrice>& local) {
    for (std::size_t k = 0; k < local.size(); ++k) {
      check_price_source(fmt::format("{}.local[{}].source", path, k), local[k].source,
                         local[k].kind);
    }
  };
  // Every category whose entries cite sources.
  auto check_parts = [&](const auto& cat) {
    const auto& parts = c.*cat.items;
    if constexpr (requires { parts.front().sources; }) {
      for (std::size_t i = 0; i < parts.size(); ++i) check_sources(cat.key, i, parts[i].sources);
    }
    if constexpr (requires { parts.front().price.source; }) {
      for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string path = fmt::format("{}[{}].price", cat.key, i);
        check_price_source(path + ".source", parts[i].price.source, parts[i].price.kind);
        check_local(path, parts[i].price.local);
      }
    }
  };
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    const Gpu& g = c.gpus[i];
    const Architecture* a = context.architecture(g.architecture);
    if (a == nullptr) {
      dangling(fmt::format("gpus[{}].architecture", i), "architecture", g.architecture);
    } else if (a->vendor != g.vendor) {
      diags.push_back({file, fmt::format("gpus[{}].vendor", i),
                       fmt::format("architecture \"{}\" is {}, but the GPU says {}", a->id,
                                   a->vendor, g.vendor)});
    }
  }
  for (std::size_t i = 0; i < c.platforms.size(); ++i) {
    const auto& inc = c.platforms[i].included_psu;
    if (inc && context.psu(inc->id) == nullptr) {
      dangling(fmt::format("platforms[{}].included_psu.id", i), "PSU", inc->id);
    }
  }
  for (std::size_t i = 0; i < c.cloud.size(); ++i) {
    if (context.gpu(c.cloud[i].gpu) == nullptr) {
      dangling(fmt::format("cloud[{}].gpu", i), "GPU", c.cloud[i].gpu);
    }
    check_price_source(fmt::format("cloud[{}].source", i), c.cloud[i].source, c.cloud[i].kind);
    check_local(fmt::format("cloud[{}]", i), c.cloud[i].local);
  }
  for_each_category(check_parts);
  for (std::size_t i = 0; i < c.prices.size(); ++i) {
    const auto& o = c.prices[i];
    const std::string path = fmt::format("prices[{}]", i);
    check_price_source(path + ".price.source", o.price.source, o.price.kind);
    check_local(path + ".price", o.price.local);
    bool found = false;
    for_each_category([&](const auto& cat) {
      if (cat.key != o.category) return;
      for (const auto& part : context.*cat.items) found = found || key_of(part) == o.id;
    });
    if (!found && !o.category.empty()) {
      dangling(path + ".id", fmt::format("{} id", o.category), o.id);
    }
  }
  return diags;
}

// Readers for inline parts (catalog/part_readers.hpp).
template <typename T>
T read_part(ObjectReader& r, const std::string& file, Diagnostics& out) {
  Ctx ctx{file, out};
  return read_entry(std::type_identity<T>{}, r, ctx);
}
template Gpu read_part(ObjectReader&, const std::string&, Diagnostics&);
template Cpu read_part(ObjectReader&, const std::string&, Diagnostics&);
template Platform read_part(ObjectReader&, const std::string&, Diagnostics&);
template MemoryKit read_part(ObjectReader&, const std::string&, Diagnostics&);
template Storage read_part(ObjectReader&, const std::string&, Diagnostics&);
template Psu read_part(ObjectReader&, const std::string&, Diagnostics&);
template Cooling read_part(ObjectReader&, const std::string&, Diagnostics&);
template CpuCooler read_part(ObjectReader&, const std::string&, Diagnostics&);
template Nic read_part(ObjectReader&, const std::string&, Diagnostics&);
template Switch read_part(ObjectReader&, const std::string&, Diagnostics&);
template Cable read_part(ObjectReader&, const std::string&, Diagnostics&);

}  // namespace gpuadvisor::catalog
