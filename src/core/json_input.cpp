#include "gpuadvisor/core/json_input.hpp"
#include "gpuadvisor/core/suggest.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuadvisor {
namespace {

std::string type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::null:
      return "null";
    default:
      return "a number";
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string describe(const nlohmann::json& v) {
  if (v.is_object() || v.is_array()) return type_name(v);
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string index_path(std::string_view path, std::size_t i) {
  return fmt::format("{}[{}]", path, i);
}

std::optional<std::string> suggest(std::string_view word, std::span<const std::string> candidates) {
  std::optional<std::string> best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: a long word (a
    // pasted blob) costs nothing against short candidates.
    const std::size_t diff =
        word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (diff >= best_d) continue;
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

ObjectReader::ObjectReader(const nlohmann::json& v, std::string path, const std::string& file,
                           Diagnostics& out)
    : path_(std::move(path)), file_(file), out_(out) {
  if (v.is_object()) {
    obj_ = &v;
  } else {
    if (saturated(out_, file_))
      count_more(out_);
    else
      out_.push_back({file_, path_, fmt::format("expected an object, got {}", describe(v))});
  }
}

std::string ObjectReader::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void ObjectReader::error(std::string_view key, std::string_view message) {
  rejected_.emplace_back(key);
  // Past the cap a problem is only counted: no path or message is built.
  if (saturated(out_, file_)) return count_more(out_);
  out_.push_back({file_, child_path(key), std::string(message)});
}

bool ObjectReader::has(std::string_view key) const {
  return obj_ != nullptr && obj_->contains(key);
}

bool ObjectReader::read(std::string_view key) const {
  return has(key) && std::find(rejected_.begin(), rejected_.end(), key) == rejected_.end();
}

const nlohmann::json* ObjectReader::value(std::string_view key, Need need) {
  if (obj_ == nullptr) return nullptr;
  if (obj_->empty()) {  // nothing for finish() to check (and floods of {} stay cheap)
    if (need == Need::required) error(key, "missing required field");
    return nullptr;
  }
  known_.emplace_back(key);
  auto it = obj_->find(key);
  if (it == obj_->end()) {
    if (need == Need::required) error(key, "missing required field");
    return nullptr;
  }
  return &*it;
}

const nlohmann::json* ObjectReader::object(std::string_view key, Need need) {
  const auto* v = value(key, need);
  if (v != nullptr && !v->is_object()) {
    error(key, fmt::format("expected an object, got {}", describe(*v)));
    return nullptr;
  }
  return v;
}

const nlohmann::json* ObjectReader::array(std::string_view key, Need need) {
  const auto* v = value(key, need);
  if (v != nullptr && !v->is_array()) {
    error(key, fmt::format("expected an array, got {}", describe(*v)));
    return nullptr;
  }
  return v;
}

std::optional<std::string> ObjectReader::string(std::string_view key, Need need) {
  const auto* v = value(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    error(key, fmt::format("expected a string, got {}", describe(*v)));
    return std::nullopt;
  }
  auto s = v->get<std::string>();
  if (s.empty()) {
    error(key, "expected a non-empty string");
    return std::nullopt;
  }
  return s;
}

std::optional<double> ObjectReader::number(std::string_view key, double min, double max,
                                           Need need) {
  const auto* v = value(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) {
    error(key, fmt::format("expected a number, got {}", describe(*v)));
    return std::nullopt;
  }
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    error(key, fmt::format("expected a number from {} to {}, got {}", min, max, describe(*v)));
    return std::nullopt;
  }
  return d;
}

std::optional<std::int64_t> ObjectReader::integer(std::string_view key, std::int64_t min,
                                                  std::int64_t max, Need need) {
  const auto* v = value(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer()) {
    error(key, fmt::format("expected an integer, got {}", describe(*v)));
    return std::nullopt;
  }
  // Unsigned values above INT64_MAX are out of range, not negative.
  if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    error(key, fmt::format("expected an integer from {} to {}, got {}", min, max, describe(*v)));
    return std::nullopt;
  }
  const auto i = v->get<std::int64_t>();
  if (i < min || i > max) {
    error(key, fmt::format("expected an integer from {} to {}, got {}", min, max, describe(*v)));
    return std::nullopt;
  }
  return i;
}

std::optional<bool> ObjectReader::boolean(std::string_view key, Need need) {
  const auto* v = value(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    error(key, fmt::format("expected true or false, got {}", describe(*v)));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<std::size_t> ObjectReader::choice(std::string_view key,
                                                std::span<const std::string_view> allowed,
                                                Need need) {
  auto s = string(key, need);
  if (!s) return std::nullopt;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == *s) return i;
  }
  error(key, fmt::format("expected one of {}, got \"{}\"", fmt::join(allowed, ", "), *s));
  return std::nullopt;
}

void ObjectReader::finish() {
  if (obj_ == nullptr) return;
  for (const auto& [key, v] : obj_->items()) {
    if (key.starts_with("$") || key.starts_with("x-")) continue;
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    if (saturated(out_, file_)) {
      count_more(out_);
      continue;
    }
    std::string msg = "unknown field";
    msg += did_you_mean(key, known_);
    error(key, msg);
  }
}

}  // namespace gpuadvisor
