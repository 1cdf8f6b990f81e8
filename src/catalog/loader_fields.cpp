// Readers of the fields that many categories share: ids, string lists, dates,
// prices (with their local-currency prices) and the common part fields.
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuadvisor/catalog/serialize.hpp"
#include "gpuadvisor/core/money.hpp"
#include "loader_impl.hpp"

namespace gpuadvisor::catalog::detail {
namespace {

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

}  // namespace

using nlohmann::json;

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

}  // namespace gpuadvisor::catalog::detail
