// A CLI11 validator for floating-point flags. CLI::Range compares with < and
// >, which NaN passes: `gate --alpha nan` disabled the throughput gate and
// `run --inject-slowdown nan` silently injected nothing. This one parses the
// value, refuses NaN and infinities, then checks [lo, hi].
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

namespace ampbench::cli {

inline CLI::Validator FiniteRange(double lo, double hi) {
  std::ostringstream bounds;
  bounds << "[" << lo << ", " << hi << "]";
  const std::string range = bounds.str();
  return CLI::Validator(
      [lo, hi, range](std::string& input) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(input.c_str(), &end);
        if (input.empty() || end != input.c_str() + input.size()) return "'" + input + "' is not a number";
        if (!std::isfinite(v)) return "'" + input + "' is not a finite number";
        if (v < lo || v > hi) return "'" + input + "' is not in " + range;
        return "";
      },
      "FINITE in " + range);
}

}  // namespace ampbench::cli
