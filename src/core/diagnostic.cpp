#include "gpuadvisor/core/diagnostic.hpp"

#include <unordered_map>

#include <fmt/format.h>

namespace gpuadvisor {

std::string Diagnostic::str() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!path.empty()) out += path + ": ";
  out += message;
  return out;
}

bool saturated(const Diagnostics& out, std::string_view file) {
  if (out.size() < kMaxDiagnosticsPerFile || out.back().file != file) return false;
  if (out.back().more > 0) return true;
  // Only until the file saturates: at most kMaxDiagnosticsPerFile scans.
  std::size_t same = 0;
  for (auto it = out.rbegin(); it != out.rend() && it->file == file; ++it) {
    if (++same == kMaxDiagnosticsPerFile) return true;
  }
  return false;
}

void count_more(Diagnostics& out) { ++out.back().more; }

void add(Diagnostics& out, Diagnostic d) {
  if (saturated(out, d.file))
    count_more(out);
  else
    out.push_back(std::move(d));
}

Diagnostics capped(const Diagnostics& diags, std::size_t per_file) {
  struct Seen {
    std::string file;
    std::size_t shown = 0;
    std::size_t hidden = 0;
  };
  std::vector<Seen> files;  // first-appearance order
  std::unordered_map<std::string_view, std::size_t> index;
  Diagnostics out;
  for (const auto& d : diags) {
    auto [at, added] = index.try_emplace(d.file, files.size());
    if (added) files.push_back(Seen{d.file});
    Seen* it = &files[at->second];
    it->hidden += d.more;
    if (it->shown < per_file) {
      ++it->shown;
      out.push_back({d.file, d.path, d.message});
    } else {
      ++it->hidden;
    }
  }
  for (const auto& s : files) {
    if (s.hidden == 0) continue;
    out.push_back(
        {s.file, "", fmt::format("... and {} more problem{}", s.hidden, s.hidden == 1 ? "" : "s")});
  }
  return out;
}

std::string to_string(const Diagnostics& diags) {
  std::string out;
  for (const auto& d : diags) out += d.str() + "\n";
  return out;
}

}  // namespace gpuadvisor
