#pragma once
/// Declarations of the catalog's types, for headers that only refer to them
/// (a `const Gpu&` parameter, a `const Catalog*` member): a change to
/// parts.hpp or catalog.hpp then recompiles only the files that use the
/// parts' fields. Include catalog/catalog.hpp (or parts.hpp) to use them.
namespace gpuadvisor::catalog {

struct Catalog;
struct PriceOverride;

struct LocalPrice;
struct Price;
struct PartBase;
struct Architecture;
struct GpuInterconnect;
struct Gpu;
struct Cpu;
struct IncludedPart;
struct Platform;
struct MemoryKit;
struct Storage;
struct Psu;
struct Cooling;
struct CpuCooler;
struct Nic;
struct Switch;
struct Cable;
struct ModelPreset;
struct CloudPrice;
struct Source;

// Scoped enumerations: complete once declared (their values in parts.hpp).
enum class Condition;
enum class Availability;
enum class PriceKind;
enum class GpuFormFactor;
enum class GpuCooling;
enum class GpuMarket;
enum class PlatformKind;
enum class StorageType;
enum class CoolingType;

/// What a model preset is (parts.hpp's ModelPreset, workload::Architecture):
/// defined here because workload::Architecture defaults to `transformer`.
enum class ModelKind { transformer, cnn };

}  // namespace gpuadvisor::catalog
