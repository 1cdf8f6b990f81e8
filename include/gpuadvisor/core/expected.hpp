#pragma once
/// gpuadvisor::expected: gpuadvisor::expected where the standard library has it
/// (GCC 12 with -std=c++23), and a minimal equivalent otherwise. clang 14,
/// used for the libFuzzer and sanitizer builds, lacks the concepts support
/// that libstdc++ 12's <expected> requires.
#include <version>

#if defined(__cpp_lib_expected)
#include <expected>

namespace gpuadvisor {
template <typename T, typename E>
using expected = std::expected<T, E>;
using std::unexpected;
}  // namespace gpuadvisor

#else
#include <stdexcept>
#include <utility>
#include <variant>

namespace gpuadvisor {

template <typename E>
class unexpected {
 public:
  explicit unexpected(E e) : error_(std::move(e)) {}
  [[nodiscard]] const E& error() const& { return error_; }
  [[nodiscard]] E& error() & { return error_; }
  [[nodiscard]] E&& error() && { return std::move(error_); }

 private:
  E error_;
};
template <typename E>
unexpected(E) -> unexpected<E>;

/// The subset of gpuadvisor::expected this code base uses, with the same meaning.
template <typename T, typename E>
class expected {
 public:
  expected() : v_(std::in_place_index<0>) {}
  expected(const T& v) : v_(std::in_place_index<0>, v) {}        // NOLINT: implicit like std
  expected(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT
  template <typename U>
  expected(unexpected<U> u) : v_(std::in_place_index<1>, std::move(u).error()) {}  // NOLINT

  [[nodiscard]] bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return check(), std::get<0>(v_); }
  const T& value() const& { return check(), std::get<0>(v_); }
  T&& value() && { return check(), std::move(std::get<0>(v_)); }
  template <typename U>
  T value_or(U&& u) const& {
    return has_value() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(u));
  }

  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  T&& operator*() && { return std::move(std::get<0>(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }

  E& error() & { return std::get<1>(v_); }
  const E& error() const& { return std::get<1>(v_); }
  E&& error() && { return std::move(std::get<1>(v_)); }

 private:
  void check() const {
    if (!has_value()) throw std::logic_error("expected has no value");
  }
  std::variant<T, E> v_;
};

template <typename E>
class expected<void, E> {
 public:
  expected() = default;
  template <typename U>
  expected(unexpected<U> u) : error_(std::move(u).error()), ok_(false) {}  // NOLINT
  [[nodiscard]] bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const& { return error_; }
  E& error() & { return error_; }

 private:
  E error_{};
  bool ok_ = true;
};

}  // namespace gpuadvisor
#endif
