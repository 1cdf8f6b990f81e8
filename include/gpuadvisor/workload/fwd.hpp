#pragma once
/// Declarations of the workload model's types (workload/workload.hpp), for
/// headers that only refer to them: a `const Workload&` parameter, a
/// returned WorkloadInput. A change to workload.hpp then recompiles only the
/// files that use the model. Include workload/workload.hpp to use them.
namespace gpuadvisor::workload {

struct Architecture;
struct ModelDefinition;
struct ArchitectureInput;
struct WorkloadInput;
struct Origin;
struct ParamCounts;
struct Workload;
struct MemoryBreakdown;
struct ServingLoad;
struct ServingSpeed;
struct ComputeEstimate;
struct FitChange;
struct FitSettings;
struct FitShortfall;
struct FitResult;

// Scoped enumerations: complete once declared (their values in workload.hpp).
enum class Task;
enum class Precision;
enum class Optimizer;
enum class Sharding;
enum class ArchOrigin;
enum class FitChangeKind;
enum class Verdict;
enum class LoadDetail;

}  // namespace gpuadvisor::workload
