// Reading a spec's "parts": catalog ids or inline parts with counts, the old
// "cooling" spelling of CPU coolers, and the PSUs a platform includes.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/catalog/part_readers.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "spec_impl.hpp"

namespace gpuadvisor::rules::detail {
namespace {

using catalog::Catalog;
using nlohmann::json;

using catalog::Category;

template <typename T>
const T* find_in(const std::vector<T>& v, std::string_view id) {
  // A renamed part answers to its former ids.
  auto it = std::find_if(v.begin(), v.end(), [&](const T& x) {
    if constexpr (requires { x.aliases; }) {
      return x.id == id || std::find(x.aliases.begin(), x.aliases.end(), id) != x.aliases.end();
    } else {
      return x.id == id;
    }
  });
  return it == v.end() ? nullptr : &*it;
}

/// The build-part category another part with this id is in ("" if none), for hints.
std::string_view other_category(const Catalog& c, std::string_view id) {
  std::string_view found;
  catalog::for_each_category([&](const auto& cat) {
    if constexpr (requires { (c.*cat.items).front().id; }) {
      if (cat.part && found.empty() && find_in(c.*cat.items, id) != nullptr) found = cat.what;
    }
  });
  return found;
}

/// The table's entry for build parts of type T.
template <typename T>
constexpr const Category<T>& category_of() {
  return std::get<Category<T>>(catalog::kCategoryTable);
}

template <typename T>
const T* keep(BuildSpec& spec, T part) {
  auto p = std::make_shared<const T>(std::move(part));
  spec.owned.push_back(p);
  return p.get();
}

/// Fills what a catalog entry needs but an inline part need not give.
json with_inline_defaults(const json& v, std::string_view key) {
  json out = v;
  if (!out.is_object()) return out;
  if (!out.contains("id")) out["id"] = fmt::format("inline-{}", key);
  if (!out.contains("name")) out["name"] = out["id"];
  if (!out.contains("price")) {
    out["price"] = {{"usd", 0},
                    {"currency", "USD"},
                    {"kind", "estimate"},
                    {"date", "1970-01-01"},
                    {"source", "estimate: inline part in a spec"}};
  }
  if (!out.contains("sources")) out["sources"] = json::array({"inline"});
  return out;
}

/// Reads `{"id": ...}` or `{"spec": {...}}` plus "count" (and the extra
/// keys `extra` the caller reads itself). `max_count` 0 = no count allowed.
template <typename T>
Counted<T> read_part(const json& v, const std::string& path, const Category<T>& cat, Ctx& ctx,
                     int max_count) {
  Counted<T> out;
  ObjectReader r(v, path, ctx.file, ctx.diags);
  if (!r.ok()) return out;
  const bool has_id = r.has("id");
  const bool has_spec = r.has("spec");
  out.count = 1;
  if (max_count > 0) {
    if (auto n = r.integer("count", 1, max_count, Need::optional)) out.count = static_cast<int>(*n);
  }
  if (has_id && has_spec) {
    (void)r.value("id");  // known keys, whatever their values
    (void)r.value("spec");
    ctx.diags.push_back({ctx.file, path,
                         fmt::format("give either \"id\" (a catalog {}) or \"spec\" (an inline "
                                     "part), not both",
                                     cat.what)});
  } else if (!has_id && !has_spec) {
    ctx.diags.push_back({ctx.file, path,
                         fmt::format("expected \"id\" (a catalog {}) or \"spec\" (an inline "
                                     "part)",
                                     cat.what)});
  } else if (has_id) {
    if (auto id = r.string("id")) {
      out.part = find_in(ctx.cat.*cat.items, *id);
      if (out.part == nullptr) {
        std::string msg = fmt::format("unknown {} \"{}\"", cat.what, *id);
        const auto other = other_category(ctx.cat, *id);
        std::vector<std::string> ids;
        for (const auto& p : ctx.cat.*cat.items) ids.push_back(p.id);
        if (!other.empty()) {
          msg += fmt::format(": that id is a {}, not a {}", other, cat.what);
        } else {
          msg += did_you_mean(
              *id, ids,
              fmt::format(" (see 'gpuadvisor catalog list --category {}')", cat.singular));
        }
        r.error("id", msg);
      }
    }
  } else if (const json* s = r.object("spec")) {
    const json filled = with_inline_defaults(*s, cat.singular);
    const std::size_t before = ctx.diags.size();
    ObjectReader pr(filled, r.child_path("spec"), ctx.file, ctx.diags);
    T part = catalog::read_part<T>(pr, ctx.file, ctx.diags);
    pr.finish();
    if (ctx.diags.size() == before) out.part = keep(ctx.spec, std::move(part));
  }
  r.finish();
  return out;
}

/// "parts.storage" and "parts.cooling" take one object or an array of them.
template <typename T>
std::vector<Counted<T>> read_part_list(ObjectReader& parts, const Category<T>& cat, Ctx& ctx,
                                       int max_count) {
  std::vector<Counted<T>> out;
  const json* v = parts.value(cat.singular, Need::optional);
  if (v == nullptr) return out;
  const std::string path = parts.child_path(cat.singular);
  if (v->is_array()) {
    if (v->empty()) ctx.diags.push_back({ctx.file, path, "expected at least one entry"});
    for (std::size_t i = 0; i < v->size(); ++i) {
      auto p = read_part((*v)[i], index_path(path, i), cat, ctx, max_count);
      if (p) out.push_back(p);
    }
  } else {
    auto p = read_part(*v, path, cat, ctx, max_count);
    if (p) out.push_back(p);
  }
  return out;
}

/// Specs written before CPU coolers were their own category list them under
/// "cooling": such an entry that names a catalog CPU cooler is read as
/// "cpu_cooler" (when the spec has none), so that old specs keep working.
json with_cpu_cooler_moved(const json& parts, const Catalog& cat) {
  json out = parts;
  if (!out.is_object() || out.contains("cpu_cooler") || !out.contains("cooling")) return out;
  json& cooling = out["cooling"];
  auto is_cpu_cooler = [&](const json& e) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) return false;
    const std::string id = e["id"].get<std::string>();
    return cat.cooler(id) == nullptr && cat.cpu_cooler(id) != nullptr;
  };
  if (cooling.is_array()) {
    for (std::size_t i = 0; i < cooling.size(); ++i) {
      if (!is_cpu_cooler(cooling[i])) continue;
      out["cpu_cooler"] = cooling[i];
      cooling.erase(i);
      if (cooling.empty()) out.erase("cooling");
      break;
    }
  } else if (is_cpu_cooler(cooling)) {
    out["cpu_cooler"] = cooling;
    out.erase("cooling");
  }
  return out;
}

}  // namespace

void read_parts(ObjectReader& top, Ctx& ctx) {
  const json* given = top.object("parts");
  if (given == nullptr) return;
  const json moved = with_cpu_cooler_moved(*given, ctx.cat);
  const json* v = &moved;
  ObjectReader parts(*v, "parts", ctx.file, ctx.diags);
  Build& b = ctx.spec.build;

  if (const json* g = parts.value("gpu")) {
    b.gpu = read_part(*g, "parts.gpu", category_of<catalog::Gpu>(), ctx, 64);
    if (b.gpu) {
      b.architecture = ctx.cat.architecture(b.gpu.part->architecture);
      if (b.architecture == nullptr) {
        std::vector<std::string> ids;
        for (const auto& a : ctx.cat.architectures) ids.push_back(a.id);
        ctx.diags.push_back({ctx.file, "parts.gpu.spec.architecture",
                             fmt::format("unknown architecture \"{}\"; expected one of {}",
                                         b.gpu.part->architecture, fmt::join(ids, ", "))});
      } else if (b.architecture->vendor != b.gpu.part->vendor) {
        ctx.diags.push_back(
            {ctx.file, "parts.gpu.spec.vendor",
             fmt::format("architecture \"{}\" is {}, but the GPU says {}", b.architecture->id,
                         b.architecture->vendor, b.gpu.part->vendor)});
      }
    }
  }
  if (const json* c = parts.value("cpu"))
    b.cpu = read_part(*c, "parts.cpu", category_of<catalog::Cpu>(), ctx, 8);
  if (const json* p = parts.value("platform")) {
    b.platform = read_part(*p, "parts.platform", category_of<catalog::Platform>(), ctx, 0).part;
  }
  if (const json* m = parts.value("memory")) {
    b.memory = read_part(*m, "parts.memory", category_of<catalog::MemoryKit>(), ctx, 64);
  }
  b.storage = read_part_list(parts, category_of<catalog::Storage>(), ctx, 128);
  b.cooling = read_part_list(parts, category_of<catalog::Cooling>(), ctx, 64);
  if (const json* k = parts.value("cpu_cooler", Need::optional)) {
    b.cpu_cooler = read_part(*k, "parts.cpu_cooler", category_of<catalog::CpuCooler>(), ctx, 8);
  }

  if (const json* p = parts.value("psu", Need::optional)) {
    // "redundant" is read here, beside "count".
    ObjectReader pr(*p, "parts.psu", ctx.file, ctx.diags);
    if (pr.ok()) {
      json without = *p;
      const json redundant = without.contains("redundant") ? without["redundant"] : json();
      without.erase("redundant");
      b.psu = read_part(without, "parts.psu", category_of<catalog::Psu>(), ctx, 16);
      if (!redundant.is_null()) {
        if (!redundant.is_number_integer() || redundant.get<std::int64_t>() < 0 ||
            redundant.get<std::int64_t>() >= b.psu.count) {
          ctx.diags.push_back(
              {ctx.file, "parts.psu.redundant",
               fmt::format("expected an integer from 0 to {} (fewer than the PSU count), got {}",
                           b.psu.count - 1, describe(redundant))});
        } else {
          b.psu_redundant = static_cast<int>(redundant.get<std::int64_t>());
        }
      }
    }
  } else if (b.platform != nullptr && b.platform->included_psu) {
    b.psu.part = ctx.cat.psu(b.platform->included_psu->id);
    b.psu.count = b.platform->included_psu->count;
    b.psu_redundant = b.platform->included_psu->redundant;
    b.psu_from_platform = true;
    if (b.psu.part == nullptr) {
      ctx.diags.push_back({ctx.file, "parts.platform",
                           fmt::format("the platform's included PSU \"{}\" is not in the catalog",
                                       b.platform->included_psu->id)});
    }
  } else if (b.platform != nullptr || !parts.has("platform")) {
    parts.error("psu", "missing required field (the platform includes no PSUs)");
  }
  parts.finish();
}

}  // namespace gpuadvisor::rules::detail
