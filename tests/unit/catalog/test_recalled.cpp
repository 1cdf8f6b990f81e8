// Figures written from memory are marked as estimates: in data/catalog.json
// every "recalled" or "remembered" sits in a sentence that calls the figure an
// estimate, and the unmarked "not re-checked" the catalog once carried is gone
// (docs/catalog.md, Verification status).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// The first place in `text` where a figure is said to come from memory
/// without being called an estimate in the same sentence; "" when none.
std::string unmarked_recall(const std::string& text) {
  const std::string t = lower(text);
  if (t.find("not re-checked") != std::string::npos) return "not re-checked";
  for (const char* word : {"recalled", "remembered"}) {
    for (auto at = t.find(word); at != std::string::npos; at = t.find(word, at + 1)) {
      const auto stop = t.rfind(". ", at);
      const auto start = stop == std::string::npos ? 0 : stop + 2;
      if (t.substr(start, at - start).find("estimate") == std::string::npos) {
        return text.substr(start, at - start + std::string(word).size());
      }
    }
  }
  return "";
}

/// Every string in `j` with its JSON path.
void strings(const nlohmann::json& j, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_string()) {
    out.emplace_back(path, j.get<std::string>());
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) strings(v, path + "." + k, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      strings(j[i], path + "[" + std::to_string(i) + "]", out);
    }
  }
}

}  // namespace

TEST_CASE("a remembered figure is called an estimate in its own sentence", "[catalog][sources]") {
  CHECK(unmarked_recall("Drive bays (8 NVMe) recalled, not re-checked.") == "not re-checked");
  CHECK(unmarked_recall("Bay count (12) recalled from the datasheet.") ==
        "Bay count (12) recalled");
  CHECK(unmarked_recall("Power: estimate. Bay count as remembered.") == "Bay count as remembered");
  CHECK(unmarked_recall("Bay count: estimate (the datasheet as remembered).").empty());
  CHECK(unmarked_recall("estimate: recalled 2025 reseller listings; midpoint").empty());
  CHECK(unmarked_recall("Sequential read 6,500 MB/s: https://heise.de/-4720224").empty());
}

TEST_CASE("no figure in the catalog is from memory without being an estimate",
          "[catalog][sources]") {
  std::ifstream in(fs::path(GPUADVISOR_SOURCE_DIR) / "data" / "catalog.json");
  REQUIRE(in);
  std::vector<std::pair<std::string, std::string>> all;
  strings(nlohmann::json::parse(in), "", all);
  int remembered = 0;
  for (const auto& [path, text] : all) {
    INFO(path << ": " << text);
    CHECK(unmarked_recall(text).empty());
    const std::string t = lower(text);
    if (t.find("recalled") != std::string::npos || t.find("remembered") != std::string::npos) {
      ++remembered;
    }
  }
  CHECK(all.size() > 2500);
  // The places still from memory, each an estimate (docs/catalog.md counts
  // them): a figure re-checked against a page leaves this count.
  CHECK(remembered == 62);
}
