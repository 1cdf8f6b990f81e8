#pragma once
// Compact binary keys for the search's hash maps: fields appended as raw
// bytes (strings with their length), much cheaper than formatting text.
// Two keys are equal exactly when every field is (doubles bit for bit).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvisor::search::detail {

class Key {
 public:
  // Room for the longest key (a platform's ~30 fields) without regrowing.
  Key() { out_.reserve(160); }
  Key& operator()(double v) { return raw(&v, sizeof v); }
  Key& operator()(int v) { return raw(&v, sizeof v); }
  Key& operator()(bool v) { return (*this)(v ? 1 : 0); }
  Key& operator()(std::string_view s) {
    const auto n = static_cast<std::uint32_t>(s.size());
    raw(&n, sizeof n);
    out_.append(s);
    return *this;
  }
  Key& operator()(const char* s) { return (*this)(std::string_view(s)); }
  Key& operator()(const std::string& s) { return (*this)(std::string_view(s)); }
  Key& operator()(const std::vector<std::string>& v) {
    (*this)(static_cast<int>(v.size()));
    for (const auto& s : v) (*this)(s);
    return *this;
  }
  Key& operator()(const std::vector<int>& v) {
    (*this)(static_cast<int>(v.size()));
    for (int x : v) (*this)(x);
    return *this;
  }
  template <typename T, typename... Rest>
  Key& operator()(const T& first, const Rest&... rest) {
    (*this)(first);
    if constexpr (sizeof...(rest) > 0) (*this)(rest...);
    return *this;
  }
  /// The key; the builder is left empty.
  [[nodiscard]] std::string str() { return std::move(out_); }

 private:
  Key& raw(const void* p, std::size_t n) {
    out_.append(static_cast<const char*>(p), n);
    return *this;
  }
  std::string out_;
};

}  // namespace gpuadvisor::search::detail
