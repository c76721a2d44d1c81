// Reads a suite file's JSON objects field by field (harness/suite/suite.cpp):
// every value is type- and range-checked when read, and every error names the
// file, the field and the value.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "suite/suite.h"

namespace ampbench::suite_detail {

using nlohmann::json;

// Reads typed fields from a JSON object, naming file and field in errors and
// rejecting keys it was not asked about (a typo must not be silently ignored).
class Reader {
 public:
  Reader(const json& node, std::string file, std::string where)
      : node_(node), file_(std::move(file)), where_(std::move(where)) {
    if (!node_.is_object()) fail("", "expected an object");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& reason) const {
    throw SuiteError(file_ + ": " + field(key) + ": " + reason);
  }

  const std::string& file() const { return file_; }
  std::string field(const std::string& key) const {
    if (key.empty()) return where_.empty() ? "(top level)" : where_;
    return where_.empty() ? key : where_ + "." + key;
  }

  bool has(const std::string& key) {
    seen_.insert(key);
    return node_.contains(key);
  }

  template <typename T>
  T get(const std::string& key, const T& fallback) {
    if (!has(key)) return fallback;
    return convert<T>(key);
  }

  template <typename T>
  T require(const std::string& key) {
    if (!has(key)) fail(key, "missing required field");
    return convert<T>(key);
  }

  Reader child(const std::string& key) {
    seen_.insert(key);
    static const json empty = json::object();
    return Reader(node_.contains(key) ? node_.at(key) : empty, file_, field(key));
  }

  const json& raw(const std::string& key) {
    seen_.insert(key);
    return node_.at(key);
  }

  void reject_unknown_keys() const {
    for (const auto& [key, value] : node_.items()) {
      if (!seen_.count(key)) fail(key, "unknown field");
    }
  }

  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& [key, value] : node_.items()) out.push_back(key);
    return out;
  }

 private:
  template <typename T>
  T convert(const std::string& key) const {
    const json& value = node_.at(key);
    if constexpr (std::is_same_v<T, bool>) {
      if (!value.is_boolean()) fail(key, "expected true or false, got " + value.dump());
    } else if constexpr (std::is_integral_v<T>) {
      if (!value.is_number_integer()) fail(key, "expected an integer, got " + value.dump());
      require_fits<T>(key, value);
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!value.is_number()) fail(key, "expected a number, got " + value.dump());
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!value.is_string()) fail(key, "expected a string, got " + value.dump());
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      if (!value.is_array() || !std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); }))
        fail(key, "expected a list of strings, got " + value.dump());
    }
    return value.get<T>();
  }

  // nlohmann converts with a plain cast: 4294967308 would become 12 and -1
  // a 64-bit seed of 2^64-1. Check the value against T first.
  template <typename T>
  void require_fits(const std::string& key, const json& value) const {
    using Limits = std::numeric_limits<T>;
    if (value.is_number_unsigned()) {
      if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(Limits::max()))
        fail(key, value.dump() + " is out of range (at most " + std::to_string(Limits::max()) + ")");
    } else if (const auto v = value.get<std::int64_t>(); v < static_cast<std::int64_t>(Limits::min())) {
      fail(key, value.dump() + " is out of range (at least " + std::to_string(Limits::min()) + ")");
    }
  }

  const json& node_;
  std::string file_;
  std::string where_;
  std::set<std::string> seen_;
};

inline std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(12) << v;
  return out.str();
}

inline void require_positive(Reader& r, const std::string& key, double value) {
  if (!(value > 0)) r.fail(key, "must be positive, got " + number(value));
}

// lo <= value <= hi, naming the bounds.
inline void require_in(Reader& r, const std::string& key, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi))
    r.fail(key, "must be in [" + number(lo) + ", " + number(hi) + "], got " + number(value));
}

}  // namespace ampbench::suite_detail
