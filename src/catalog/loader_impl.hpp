#pragma once
// The catalog loader's shared pieces (loader.cpp, loader_*.cpp, references.cpp):
// the parse context, the field readers every category uses and one reader per
// category's entries. Not part of the library's interface.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpuadvisor/catalog/catalog.hpp"
#include "gpuadvisor/core/json_input.hpp"

namespace gpuadvisor::catalog::detail {

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

/// An enum read as its index in its names table (serialize.hpp: each table
/// is in its enum's order).
template <typename E>
void assign_enum(E& dst, const std::optional<std::size_t>& idx) {
  if (idx) dst = static_cast<E>(*idx);
}

// Fields every category reads the same way (loader_fields.cpp).
std::string read_id(ObjectReader& r);
std::vector<std::string> read_string_list(ObjectReader& r, std::string_view key, Ctx& ctx,
                                          Need need);
std::string read_date(ObjectReader& r);
std::optional<PriceKind> read_kind(ObjectReader& r);
void check_estimate(ObjectReader& r, std::optional<PriceKind> k, const std::string& source);
std::vector<LocalPrice> read_local(ObjectReader& parent, Ctx& ctx, double max);
void read_usd_currency(ObjectReader& r);
void read_price(ObjectReader& parent, Price& price, Ctx& ctx);
void read_base(ObjectReader& r, PartBase& p, Ctx& ctx);

// One entry of each category, selected by type (loader_hardware.cpp,
// loader_network.cpp, loader_presets.cpp).
Architecture read_entry(std::type_identity<Architecture>, ObjectReader& r, Ctx& ctx);
Gpu read_entry(std::type_identity<Gpu>, ObjectReader& r, Ctx& ctx);
Cpu read_entry(std::type_identity<Cpu>, ObjectReader& r, Ctx& ctx);
Platform read_entry(std::type_identity<Platform>, ObjectReader& r, Ctx& ctx);
MemoryKit read_entry(std::type_identity<MemoryKit>, ObjectReader& r, Ctx& ctx);
Storage read_entry(std::type_identity<Storage>, ObjectReader& r, Ctx& ctx);
Psu read_entry(std::type_identity<Psu>, ObjectReader& r, Ctx& ctx);
Cooling read_entry(std::type_identity<Cooling>, ObjectReader& r, Ctx& ctx);
CpuCooler read_entry(std::type_identity<CpuCooler>, ObjectReader& r, Ctx& ctx);
Nic read_entry(std::type_identity<Nic>, ObjectReader& r, Ctx& ctx);
Switch read_entry(std::type_identity<Switch>, ObjectReader& r, Ctx& ctx);
Cable read_entry(std::type_identity<Cable>, ObjectReader& r, Ctx& ctx);
ModelPreset read_entry(std::type_identity<ModelPreset>, ObjectReader& r, Ctx& ctx);
CloudPrice read_entry(std::type_identity<CloudPrice>, ObjectReader& r, Ctx& ctx);
Source read_entry(std::type_identity<Source>, ObjectReader& r, Ctx& ctx);

/// An entry's id within its category (a source's key).
template <typename T>
std::string key_of(const T& t) {
  if constexpr (std::is_same_v<T, Source>)
    return t.key;
  else
    return t.id;
}

}  // namespace gpuadvisor::catalog::detail
