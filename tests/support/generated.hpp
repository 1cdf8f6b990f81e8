#pragma once
// Text in the repository that tests generate from test data (accuracy tables
// in the docs, the validated error bands the library embeds): a test renders
// what the data gives and compares; with GPUADVISOR_UPDATE_DOCS=1 set it
// rewrites the text instead, so that a change to the model or the cases
// updates both in one step.
#include <string>
#include <string_view>

namespace gpuadvisor::test {

/// The text between the lines `begin` (marker included, up to its newline)
/// and `end` of the file `path` (relative to the source tree), after
/// rewriting it to `want` when GPUADVISOR_UPDATE_DOCS is set. Missing
/// markers give a text no rendering equals.
std::string generated_block(const std::string& path, std::string_view begin, std::string_view end,
                            const std::string& want);

/// The whole file `path` (relative to the source tree), after rewriting it
/// to `want` when GPUADVISOR_UPDATE_DOCS is set.
std::string generated_file(const std::string& path, const std::string& want);

}  // namespace gpuadvisor::test
