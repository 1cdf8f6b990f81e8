#pragma once
// recommend's internal pieces shared by recommend.cpp (the command),
// recommend_build.cpp (one build assembled for output) and recommend_nofit.cpp
// (what would fit when nothing does). Not part of the library's interface.
#include <string>
#include <vector>

#include "gpuadvisor/search/recommend.hpp"

namespace gpuadvisor::search::detail {

std::string gpu_label(const Candidate& c);

class Assembler {
 public:
  Assembler(const Context& ctx, const Request& req) : ctx_(ctx), req_(req) {}

  /// A candidate with everything the output shows. `may_fail`: the nearest
  /// build of a "nothing fits" answer, which may break a rule.
  RecommendedBuild build(const Candidate& c, int rank, bool may_fail) const;

 private:
  /// Which avoidable warnings the build accepts and what avoiding them costs,
  /// or what the clean build cost over the cheapest.
  std::string clean_note(const RecommendedBuild& r) const;

  const Context& ctx_;
  const Request& req_;
};

/// A constraint a trial lifts is named after what the build found under it
/// ("--max-gpus 8", "--form-factor rack"): the flag value a user would type.
enum class Lifted { none, max_gpus, vendor, form_factor };

struct Trial {
  std::string change, why;
  workload::WorkloadInput input;
  Constraints constraints;
  Lifted lifted = Lifted::none;
};

std::string change_text(const Trial& t, const Candidate& c);

/// The workload and constraint changes to try when nothing fits, in the
/// order they are tried.
std::vector<Trial> trials(const Request& req, const workload::Workload& w);

}  // namespace gpuadvisor::search::detail
