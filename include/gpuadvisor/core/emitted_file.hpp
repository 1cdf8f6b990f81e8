#pragma once
/// A file a command writes into --output-dir: plan's launch files, estimate's
/// engine launch. The CLI writes them all or none (StagedFile).
#include <string>

namespace gpuadvisor {

struct EmittedFile {
  std::string name;  ///< file name inside the output directory
  std::string content;
  bool executable = false;
};

}  // namespace gpuadvisor
