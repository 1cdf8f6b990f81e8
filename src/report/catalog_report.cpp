#include "gpuadvisor/report/catalog_report.hpp"
#include "gpuadvisor/core/terminal.hpp"

#include <algorithm>
#include <set>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/money.hpp"
#include "gpuadvisor/core/quantity.hpp"
#include "gpuadvisor/report/table.hpp"
#include "network_tables.hpp"
#include "price_columns.hpp"

namespace gpuadvisor::report {
namespace {

using catalog::Catalog;
using ojson = nlohmann::ordered_json;
using Align = Table::Align;
using network::table;  // the NIC, switch and cable tables

std::string fixed(double v, int decimals = 0) { return fmt::format("{:.{}f}", v, decimals); }

/// The price columns of every part table: what a price is and when, beside it.
/// Prices in the listing's currency (`m`: USD unless `catalog list --region`).
std::string price(const MoneyFormat& money, const catalog::Price& p) { return money(p.usd); }

/// Cuts long product names so that tables fit 100 columns.
std::string shorten(const std::string& s, std::size_t max) {
  if (display_width(s) <= max) return s;
  std::string out;
  std::size_t width = 0;
  for (char ch : s) {
    const bool starts_char = (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    if (starts_char && ++width > max - 1) break;
    out += ch;
  }
  return out + "\u2026";
}

std::string table(const Catalog& c, const MoneyFormat& money, std::type_identity<catalog::Gpu>) {
  // Names are in `catalog show`; without them the list fits 100 columns.
  Table t({{"ID"},
           {"MEM GB", Align::right},
           {"16-BIT TF", Align::right},
           {"FP8 TF", Align::right},
           {"W", Align::right},
           {"FORM"},
           {"LINK"},
           {"COND"},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& g : c.gpus) {
    t.add_row({g.id, fixed(g.memory_gb), fixed(g.tensor_tflops_16bit, 1),
               g.tensor_tflops_fp8 > 0 ? fixed(g.tensor_tflops_fp8, 1) : "-", fixed(g.power_w),
               std::string(catalog::to_string(g.form_factor)) +
                   (g.slot_width > 0 ? fmt::format(" {}-slot", g.slot_width) : ""),
               g.interconnect.type, std::string(catalog::to_string(g.condition)),
               price(money, g.price), price_kind(money, g.price), month(g.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money, std::type_identity<catalog::Cpu>) {
  Table t({{"ID"},
           {"SOCKET"},
           {"CORES", Align::right},
           {"LANES", Align::right},
           {"MEM"},
           {"TDP W", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& p : c.cpus) {
    t.add_row({p.id, p.socket, std::to_string(p.cores),
               fmt::format("{} (gen {})", p.pcie_lanes, p.pcie_gen),
               fmt::format("{}ch {}", p.memory_channels, p.memory_type), fixed(p.tdp_w),
               price(money, p.price), price_kind(money, p.price), month(p.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::Platform>) {
  Table t({{"ID"},
           {"KIND"},
           {"CPU"},
           {"GPUS"},
           {"PSU BAYS"},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& p : c.platforms) {
    std::string gpus = fmt::format("{}x {}", p.max_gpus, fmt::join(p.gpu_form_factors, "/"));
    if (p.max_gpu_slot_width > 0) gpus += fmt::format(" <={}-slot", p.max_gpu_slot_width);
    const std::string kind = p.form_factor == catalog::to_string(p.kind)
                                 ? p.form_factor
                                 : fmt::format("{} {}", catalog::to_string(p.kind), p.form_factor);
    t.add_row({p.id, kind, fmt::format("{}x {}", p.cpu_sockets, p.socket), gpus,
               fmt::format("{}x {} <={}W", p.psu_bays, p.psu_form, fixed(p.max_psu_w)),
               price(money, p.price), price_kind(money, p.price), month(p.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::MemoryKit>) {
  Table t({{"ID"},
           {"NAME"},
           {"TYPE"},
           {"KIT"},
           {"GB", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& m : c.memory) {
    t.add_row(
        {m.id, shorten(m.name, 30), fmt::format("{} {}", m.type, m.registered ? "RDIMM" : "UDIMM"),
         fmt::format("{}x {}", m.modules, fixed(m.capacity_gb / m.modules)), fixed(m.capacity_gb),
         price(money, m.price), price_kind(money, m.price), month(m.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::Storage>) {
  Table t({{"ID"},
           {"NAME"},
           {"TYPE"},
           {"TB", Align::right},
           {"READ MB/s", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& s : c.storage) {
    t.add_row({s.id, shorten(s.name, 30), std::string(catalog::to_string(s.type)),
               fixed(s.capacity_tb, 2), fixed(s.seq_read_mbs), price(money, s.price),
               price_kind(money, s.price), month(s.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money, std::type_identity<catalog::Psu>) {
  Table t({{"ID"},
           {"FORM"},
           {"W 230V", Align::right},
           {"W 115V", Align::right},
           {"RATING"},
           {"GPU PLUGS"},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& p : c.psus) {
    t.add_row({p.id, p.form, fixed(p.watts_230v), fixed(p.watts_115v), p.efficiency,
               fmt::format("{}x8pin {}x16pin", p.pcie_8pin, p.connectors_12vhpwr),
               price(money, p.price), price_kind(money, p.price), month(p.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::Cooling>) {
  Table t({{"ID"},
           {"NAME"},
           {"TYPE"},
           {"FOR"},
           {"REMOVES W", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& x : c.cooling) {
    t.add_row({x.id, shorten(x.name, 28), std::string(catalog::to_string(x.type)), x.form,
               fixed(x.capacity_w), price(money, x.price), price_kind(money, x.price),
               month(x.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::CpuCooler>) {
  Table t({{"ID"},
           {"NAME"},
           {"TYPE"},
           {"SOCKETS"},
           {"CPU W", Align::right},
           {"PRICE", Align::right},
           {"KIND"},
           {"DATE"}});
  for (const auto& x : c.cpu_coolers) {
    t.add_row({x.id, shorten(x.name, 28), x.type,
               shorten(fmt::format("{}", fmt::join(x.sockets, ",")), 24), fixed(x.max_cpu_w),
               price(money, x.price), price_kind(money, x.price), month(x.price)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& /*m*/,
                  std::type_identity<catalog::ModelPreset>) {
  Table t({{"ID"},
           {"NAME"},
           {"PARAMS", Align::right},
           {"LAYERS", Align::right},
           {"HIDDEN", Align::right},
           {"HEADS/KV"},
           {"SEQ", Align::right}});
  for (const auto& m : c.models) {
    const bool cnn = m.kind == catalog::ModelKind::cnn;
    t.add_row({m.id, shorten(m.name, 24), format_count(m.params),
               cnn ? "-" : std::to_string(m.layers), cnn ? "-" : std::to_string(m.hidden),
               cnn ? "-" : fmt::format("{}/{}", m.heads, m.kv_heads),
               cnn ? fmt::format("{}px", m.image_size) : std::to_string(m.seq_len)});
  }
  return t.render();
}

std::string table(const Catalog& c, const MoneyFormat& money,
                  std::type_identity<catalog::CloudPrice>) {
  const std::string unit = money.currency == "USD" ? "$" : money.currency;
  Table t({{"ID"}, {"GPU"}, {"PROVIDER"}, {unit + "/GPU-HOUR", Align::right}, {"KIND"}, {"DATE"}});
  for (const auto& x : c.cloud) {
    t.add_row({x.id, x.gpu, shorten(x.provider, 30),
               fmt::format("{:.2f}", money.local(x.usd_per_gpu_hour)),
               kind_text(x.kind, x.local, money), x.date});
  }
  return t.render();
}

std::string category_table(const Catalog& c, const MoneyFormat& m, std::string_view key) {
  std::string out;
  catalog::for_each_category([&](const auto& cat) {
    using T = typename std::remove_cvref_t<decltype(cat)>::Part;
    if constexpr (requires { table(c, m, std::type_identity<T>{}); }) {
      if (cat.key == key) out = table(c, m, std::type_identity<T>{});
    }
  });
  return out;
}

std::size_t category_size(const Catalog& c, std::string_view key) {
  return catalog::category_to_json(c, key).size();
}

/// Source entries named by `keys`, in first-use order.
ojson sources_json(const Catalog& c, const std::vector<std::string>& keys) {
  ojson out = ojson::array();
  std::set<std::string> seen;
  for (const auto& k : keys) {
    if (!seen.insert(k).second) continue;
    if (const auto* s = c.source(k)) out.push_back(catalog::to_json(*s));
  }
  return out;
}

std::vector<std::string> source_keys(const ojson& part) {
  std::vector<std::string> keys;
  if (part.contains("sources")) {
    for (const auto& k : part["sources"]) keys.push_back(k.get<std::string>());
  }
  return keys;
}

std::vector<std::string_view> resolve(const std::vector<std::string_view>& categories) {
  if (!categories.empty()) return categories;
  return listed_categories();
}

}  // namespace

std::string catalog_list_text(const Catalog& c, const std::vector<std::string_view>& categories,
                              const MoneyFormat& money) {
  std::string out;
  for (auto key : resolve(categories)) {
    if (!out.empty()) out += "\n";
    const std::size_t n = category_size(c, key);
    out += fmt::format("{} ({})\n", key, n);
    if (n == 0) {
      // A header over no rows reads as a failure; a filtered catalog (a
      // region) can leave a category empty.
      out += "  (none)\n";
    } else if (key == "sources" || key == "architectures") {
      for (const auto& item : catalog::category_to_json(c, key)) {
        out += "  " + terminal_safe(item.dump(), kUncapped) + "\n";
      }
    } else {
      out += category_table(c, money, key);
    }
  }
  return out;
}

ojson catalog_list_json(const Catalog& c, const std::vector<std::string_view>& categories) {
  ojson out;
  out["schema_version"] = kCatalogOutputSchemaVersion;
  out["categories"] = ojson::object();
  std::vector<std::string> keys;
  for (auto key : resolve(categories)) {
    ojson items = catalog::category_to_json(c, key);
    for (const auto& item : items) {
      for (auto& k : source_keys(item)) keys.push_back(std::move(k));
    }
    out["categories"][std::string(key)] = std::move(items);
  }
  out["sources"] = sources_json(c, keys);
  return out;
}

std::vector<std::string_view> listed_categories() {
  std::vector<std::string_view> keys;
  catalog::for_each_category([&](const auto& cat) {
    if (cat.listed) keys.push_back(cat.key);
  });
  return keys;
}

std::vector<PartRef> find_part(const Catalog& c, std::string_view id) {
  std::vector<PartRef> refs;
  for (auto key : catalog::kCategories) {
    if (key == "sources") continue;
    const ojson items = catalog::category_to_json(c, key);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto aliases = items[i].value("aliases", ojson::array());
      if (items[i].value("id", "") == id ||
          std::find(aliases.begin(), aliases.end(), ojson(id)) != aliases.end()) {
        refs.push_back({key, i});
      }
    }
  }
  return refs;
}

std::vector<std::string> all_ids(const Catalog& c) {
  std::vector<std::string> ids;
  for (auto key : catalog::kCategories) {
    if (key == "sources") continue;
    for (const auto& item : catalog::category_to_json(c, key)) ids.push_back(item.value("id", ""));
  }
  return ids;
}

ojson catalog_show_json(const Catalog& c, const PartRef& ref) {
  ojson part = catalog::category_to_json(c, ref.category)[ref.index];
  ojson out;
  out["schema_version"] = kCatalogOutputSchemaVersion;
  out["category"] = ref.category;
  out["sources"] = sources_json(c, source_keys(part));
  out["part"] = std::move(part);
  return out;
}

std::string catalog_show_text(const Catalog& c, const PartRef& ref) {
  const ojson j = catalog_show_json(c, ref);
  const ojson& part = j["part"];
  std::string out = fmt::format("{} ({}, {})\n", terminal_safe(part.value("name", "")),
                                terminal_safe(part.value("id", "")), ref.category);
  std::function<void(const ojson&, const std::string&)> walk = [&](const ojson& obj,
                                                                   const std::string& prefix) {
    for (const auto& [k, v] : obj.items()) {
      if (k == "id" || k == "name" || k == "sources") continue;
      if (v.is_object()) {
        walk(v, prefix + k + ".");
      } else {
        const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        out += fmt::format("  {:<26} {}\n", terminal_safe(prefix + k), terminal_safe(text));
      }
    }
  };
  walk(part, "");
  if (!j["sources"].empty()) {
    out += "sources:\n";
    for (const auto& s : j["sources"]) {
      out += fmt::format("  [{}] {}\n       {}\n", terminal_safe(s.value("key", "")),
                         terminal_safe(s.value("title", "")), terminal_safe(s.value("url", "")));
    }
  }
  return out;
}

}  // namespace gpuadvisor::report
