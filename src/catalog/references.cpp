// Cross-reference checks of a parsed document against the catalog it joins:
// architectures, included PSUs, cloud GPUs, cited sources, price overrides.
// Separate from parsing: references resolve in the merged catalog, after layering.
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "loader_impl.hpp"

namespace gpuadvisor::catalog {

using detail::key_of;

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

}  // namespace gpuadvisor::catalog
