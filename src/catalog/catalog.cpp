#include "gpuadvisor/catalog/catalog.hpp"

#include <algorithm>

namespace gpuadvisor::catalog {
namespace {

template <typename T>
const T* find_by_id(const std::vector<T>& items, std::string_view id) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& t) { return t.id == id; });
  if (it != items.end()) return &*it;
  if constexpr (std::is_base_of_v<PartBase, T>) {
    // A renamed part answers to its former ids.
    it = std::find_if(items.begin(), items.end(), [&](const T& t) {
      return std::find(t.aliases.begin(), t.aliases.end(), id) != t.aliases.end();
    });
    if (it != items.end()) return &*it;
  }
  return nullptr;
}

}  // namespace

const Gpu* Catalog::gpu(std::string_view id) const { return find_by_id(gpus, id); }
const Cpu* Catalog::cpu(std::string_view id) const { return find_by_id(cpus, id); }
const Platform* Catalog::platform(std::string_view id) const { return find_by_id(platforms, id); }
const MemoryKit* Catalog::memory_kit(std::string_view id) const { return find_by_id(memory, id); }
const Storage* Catalog::storage_device(std::string_view id) const {
  return find_by_id(storage, id);
}
const Psu* Catalog::psu(std::string_view id) const { return find_by_id(psus, id); }
const Cooling* Catalog::cooler(std::string_view id) const { return find_by_id(cooling, id); }
const CpuCooler* Catalog::cpu_cooler(std::string_view id) const {
  return find_by_id(cpu_coolers, id);
}
const ModelPreset* Catalog::model(std::string_view id) const { return find_by_id(models, id); }
const Architecture* Catalog::architecture(std::string_view id) const {
  return find_by_id(architectures, id);
}
const Source* Catalog::source(std::string_view key) const {
  auto it =
      std::find_if(sources.begin(), sources.end(), [&](const Source& s) { return s.key == key; });
  return it == sources.end() ? nullptr : &*it;
}

std::string_view category_key(std::string_view name) {
  std::string_view key;
  for_each_category([&](const auto& c) {
    if (key.empty() && (name == c.key || name == c.singular)) key = c.key;
  });
  return key;
}

}  // namespace gpuadvisor::catalog
