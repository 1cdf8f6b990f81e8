#pragma once
/// Catalog parts as JSON, in the same format data/catalog.json uses, so that
/// `catalog show --format json` output can be fed back as a --catalog file.
#include <nlohmann/json_fwd.hpp>

#include "gpuadvisor/catalog/fwd.hpp"

namespace gpuadvisor::catalog {

using ojson = nlohmann::ordered_json;

[[nodiscard]] ojson to_json(const Source& s);
[[nodiscard]] ojson to_json(const Architecture& a);
[[nodiscard]] ojson to_json(const Gpu& g);
[[nodiscard]] ojson to_json(const Cpu& c);
[[nodiscard]] ojson to_json(const Platform& p);
[[nodiscard]] ojson to_json(const MemoryKit& m);
[[nodiscard]] ojson to_json(const Storage& s);
[[nodiscard]] ojson to_json(const Psu& p);
[[nodiscard]] ojson to_json(const Cooling& c);
[[nodiscard]] ojson to_json(const CpuCooler& c);
[[nodiscard]] ojson to_json(const Nic& n);
[[nodiscard]] ojson to_json(const Switch& s);
[[nodiscard]] ojson to_json(const Cable& c);
[[nodiscard]] ojson to_json(const ModelPreset& m);
[[nodiscard]] ojson to_json(const CloudPrice& c);

/// One category ("gpus", ...) as a JSON array.
[[nodiscard]] ojson category_to_json(const Catalog& c, std::string_view key);

/// Enum names as written in the catalog, each table in its enum's order: the
/// loader reads a value as its index, to_string() writes it back.
inline constexpr std::string_view kPriceKinds[] = {"msrp", "street", "used", "quote", "estimate"};
inline constexpr std::string_view kConditionNames[] = {"new", "used"};
inline constexpr std::string_view kAvailabilityNames[] = {"current", "discontinued", "superseded"};
inline constexpr std::string_view kGpuFormNames[] = {"pcie", "sxm", "oam"};
inline constexpr std::string_view kGpuCoolingNames[] = {"passive", "blower", "open-air", "liquid"};
inline constexpr std::string_view kGpuMarketNames[] = {"consumer", "workstation", "datacenter"};
inline constexpr std::string_view kPlatformKindNames[] = {"tower", "rack"};
inline constexpr std::string_view kStorageTypeNames[] = {"nvme", "sata-ssd", "hdd"};
inline constexpr std::string_view kCoolingTypeNames[] = {"air", "liquid", "datacenter"};
inline constexpr std::string_view kModelKindNames[] = {"transformer", "cnn"};
/// GPU and architecture vendors (a text field; --vendor takes the same).
inline constexpr std::string_view kGpuVendors[] = {"nvidia", "amd"};
[[nodiscard]] std::string_view to_string(PriceKind k);
[[nodiscard]] std::string_view to_string(Condition c);
[[nodiscard]] std::string_view to_string(Availability a);
[[nodiscard]] std::string_view to_string(GpuFormFactor f);
[[nodiscard]] std::string_view to_string(GpuMarket m);
[[nodiscard]] std::string_view to_string(PlatformKind k);
[[nodiscard]] std::string_view to_string(StorageType t);
[[nodiscard]] std::string_view to_string(CoolingType t);
[[nodiscard]] std::string_view to_string(ModelKind k);
[[nodiscard]] std::string_view to_string(GpuCooling c);

}  // namespace gpuadvisor::catalog
