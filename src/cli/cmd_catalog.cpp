// `gpuadvisor catalog list|show|validate`: browse and validate catalogs.
#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "catalog_region.hpp"
#include "cli.hpp"
#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/suggest.hpp"
#include "gpuadvisor/report/catalog_report.hpp"

namespace gpuadvisor::cli {
namespace {

const std::vector<std::string> kCatalogFormats{"text", "json"};

struct CatalogOptions {
  std::vector<std::string> categories;
  std::string region;             ///< list: empty = the catalog as it is, in USD
  std::optional<std::string> fx;  ///< list --fx
  std::string id;
  std::vector<std::string> files;
  std::vector<std::string> price_kinds;  ///< list --price-kind: keep parts priced so
  std::optional<std::string> sort;       ///< list --sort price-age
};

/// --price-kind and --sort price-age: the priced parts whose price is of
/// those kinds, the oldest price first (by date, then as listed).
catalog::Catalog priced_view(catalog::Catalog c, const CatalogOptions& o) {
  std::vector<catalog::PriceKind> kinds;
  Diagnostics diags;
  for (const auto& k : o.price_kinds) {
    const auto* at = std::find(std::begin(catalog::kPriceKinds), std::end(catalog::kPriceKinds), k);
    if (at == std::end(catalog::kPriceKinds)) {
      diags.push_back({"--price-kind", "",
                       fmt::format("unknown price kind \"{}\"; expected one of {}", k,
                                   fmt::join(catalog::kPriceKinds, ", "))});
    } else {
      kinds.push_back(static_cast<catalog::PriceKind>(at - std::begin(catalog::kPriceKinds)));
    }
  }
  if (o.sort && *o.sort != "price-age")
    diags.push_back({"--sort", "", fmt::format("expected price-age, got \"{}\"", *o.sort)});
  if (!diags.empty()) throw InputError(std::move(diags));
  catalog::for_each_category([&](const auto& cat) {
    using Part = typename std::remove_cvref_t<decltype(cat)>::Part;
    if constexpr (std::is_base_of_v<catalog::PartBase, Part>) {
      auto& items = c.*cat.items;
      if (!kinds.empty()) {
        std::erase_if(items, [&](const Part& p) {
          return std::find(kinds.begin(), kinds.end(), p.price.kind) == kinds.end();
        });
      }
      if (o.sort) {
        std::stable_sort(items.begin(), items.end(),
                         [](const Part& a, const Part& b) { return a.price.date < b.price.date; });
      }
    }
  });
  return c;
}

std::vector<std::string_view> category_keys(const std::vector<std::string>& names) {
  std::vector<std::string_view> keys;
  Diagnostics diags;
  for (const auto& n : names) {
    auto key = catalog::category_key(n);
    if (key.empty()) {
      diags.push_back({"--category", "",
                       fmt::format("unknown category \"{}\"; expected one of {}", n,
                                   fmt::join(catalog::kCategories, ", "))});
    } else {
      keys.push_back(key);
    }
  }
  if (!diags.empty()) throw InputError(std::move(diags));
  return keys;
}

ExitCode run_list(const Globals& g, const CatalogOptions& o) {
  require_format(g, "catalog list", kCatalogFormats);
  const auto keys = category_keys(o.categories);
  const auto c = priced_view(load_catalog(g), o);
  if (!o.region.empty() || o.fx) {
    const double fx = checked_fx(o.region, o.fx);
    const rules::Region& r = *rules::find_region(checked_region(o.region));
    if (g.format == "json")
      emit(g, regional_list_json(c, keys, r, fx).dump(2) + "\n");
    else
      emit(g, regional_list_text(c, keys, r, fx));
    return ExitCode::ok;
  }
  if (g.format == "json")
    emit(g, report::catalog_list_json(c, keys).dump(2) + "\n");
  else
    emit(g, report::catalog_list_text(c, keys));
  return ExitCode::ok;
}

ExitCode run_show(const Globals& g, const CatalogOptions& o) {
  require_format(g, "catalog show", kCatalogFormats);
  const auto keys = category_keys(o.categories);
  const auto c = load_catalog(g);
  auto refs = report::find_part(c, o.id);
  if (!keys.empty()) {
    std::erase_if(refs, [&](const report::PartRef& r) {
      return std::find(keys.begin(), keys.end(), r.category) == keys.end();
    });
  }
  if (refs.empty()) {
    std::string msg = fmt::format("no part with id \"{}\"", o.id);
    msg += did_you_mean(o.id, report::all_ids(c), " (see 'gpuadvisor catalog list')");
    throw InputError(Diagnostic{"catalog show", "", msg});
  }
  if (refs.size() > 1) {
    std::vector<std::string_view> cats;
    for (const auto& r : refs) cats.push_back(r.category);
    throw InputError(Diagnostic{"catalog show", "",
                                fmt::format("id \"{}\" is in several categories ({}); add "
                                            "--category",
                                            o.id, fmt::join(cats, ", "))});
  }
  if (g.format == "json")
    emit(g, report::catalog_show_json(c, refs[0]).dump(2) + "\n");
  else
    emit(g, report::catalog_show_text(c, refs[0]));
  return ExitCode::ok;
}

ExitCode run_validate(const Globals& g, const CatalogOptions& o) {
  require_format(g, "catalog validate", kCatalogFormats);
  // Each file is checked on its own, layered over the embedded catalog (and
  // any --catalog files), so that every file's problems are listed.
  Diagnostics all;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  std::string text;
  for (const auto& file : o.files) {
    Globals one = g;
    one.catalogs.push_back(file);
    auto c = catalog::load_catalog(one.catalogs);
    nlohmann::ordered_json entry{{"file", file}, {"valid", c.has_value()}};
    entry["problems"] = nlohmann::ordered_json::array();
    if (c) {
      text += fmt::format("{}: ok\n", file);
    } else {
      for (const auto& d : capped(c.error())) {
        entry["problems"].push_back({{"file", d.file}, {"path", d.path}, {"message", d.message}});
      }
      all.insert(all.end(), c.error().begin(), c.error().end());
    }
    files.push_back(std::move(entry));
  }
  if (g.format == "json") {
    emit(g, nlohmann::ordered_json{{"schema_version", report::kCatalogOutputSchemaVersion},
                                   {"files", files}}
                    .dump(2) +
                "\n");
  } else {
    emit(g, text);
  }
  if (!all.empty()) throw InputError(std::move(all));
  return ExitCode::ok;
}

}  // namespace

void register_catalog(CLI::App& app, Globals& g, Registry& r) {
  auto opts = std::make_shared<CatalogOptions>();
  CLI::App* cat = app.add_subcommand("catalog", "Browse and validate parts catalogs");
  cat->require_subcommand(1);
  cat->footer(R"(
Examples:
  gpuadvisor catalog list --category gpu
  gpuadvisor catalog list --category gpu --format json
  gpuadvisor catalog list --category gpu --region cn
  gpuadvisor catalog show rtx-4090
  gpuadvisor catalog validate my-parts.json
  gpuadvisor --catalog my-parts.json catalog list --category psu)");

  CLI::App* list = cat->add_subcommand("list", "List parts, by category");
  const std::vector<std::string> categories(catalog::kCategories.begin(),
                                            catalog::kCategories.end());
  set_choices(list->add_option("--category", opts->categories,
                               fmt::format("{} (repeatable; default all parts)",
                                           fmt::join(catalog::kCategories, ", ")))
                  ->type_name("C"),
              categories);
  add_region_option(list, opts->region)
      ->description(
          "List the parts sold in this region with prices in its currency (its own prices where "
          "the catalog has them, KIND marked \"(local)\"; the others converted at the dated "
          "rate or --fx), and the parts left out there with what replaces them");
  add_fx_option(list, opts->fx);
  set_choices(
      list->add_option("--price-kind", opts->price_kinds,
                       "Only the parts priced so: msrp, street, used, quote, estimate "
                       "(repeatable)")
          ->type_name("KIND"),
      std::vector<std::string>(std::begin(catalog::kPriceKinds), std::end(catalog::kPriceKinds)));
  set_choices(list->add_option("--sort", opts->sort,
                               "price-age: each category's oldest price first (by its date)")
                  ->type_name("ORDER"),
              {"price-age"});
  r.add(list, kCatalogFormats, [&g, opts] { return run_list(g, *opts); });

  CLI::App* show = cat->add_subcommand("show", "Show one part with every figure and its sources");
  set_choices(show->add_option("id", opts->id, "Part id, as in 'catalog list'")
                  ->required()
                  ->type_name("ID"),
              [] { return report::all_ids(catalog::embedded_catalog()); });
  set_choices(
      show->add_option("--category", opts->categories, "Category, where an id is in several")
          ->type_name("C"),
      categories);
  r.add(show, kCatalogFormats, [&g, opts] { return run_show(g, *opts); });

  CLI::App* validate = cat->add_subcommand(
      "validate", "Check catalog files: every problem with its JSON path; exit 2 if any");
  validate->add_option("files", opts->files, "Catalog files (each layered over the embedded one)")
      ->required()
      ->type_name("FILE");
  r.add(validate, kCatalogFormats, [&g, opts] { return run_validate(g, *opts); });
}

}  // namespace gpuadvisor::cli
