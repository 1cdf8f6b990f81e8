// Parsing of catalog documents (the top level, each category array, price
// overrides) and layering them. Every problem is collected with its JSON path;
// a document with any problem is rejected whole. Entry readers: loader_*.cpp.
#include <set>
#include <type_traits>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/part_readers.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "loader_impl.hpp"

namespace gpuadvisor::catalog {
namespace {

using detail::Ctx;
using detail::key_of;
using detail::read_entry;
using detail::read_price;
using nlohmann::json;

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

/// Their singular names, in table order.
std::vector<std::string_view> priced_categories() {
  std::vector<std::string_view> names;
  for_each_category([&](const auto& cat) {
    using T = typename std::remove_cvref_t<decltype(cat)>::Part;
    if constexpr (std::is_base_of_v<PartBase, T>) names.push_back(cat.singular);
  });
  return names;
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
        r.error("category", fmt::format("expected a category of priced parts ({}), got \"{}\"",
                                        fmt::join(priced_categories(), ", "), *cat));
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
