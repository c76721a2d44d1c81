// A CLI11 validator for integer flags. CLI11 converts with strtoull/strtoll
// in base 0 and does not check for overflow: `--seed -1` and `--seed
// 18446744073709551616` both became 18446744073709551615, and `--seed 010`
// was octal 8. This one accepts plain decimal digits only, checks the range
// exactly, and hands CLI11 the canonical decimal form. Attach it with
// ->transform(): ->check() runs a validator on a copy of the text, so CLI11
// would still convert what the user typed ("010" as octal 8).
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>

namespace ampbench::cli {

inline CLI::Validator IntegerRange(std::uint64_t lo, std::uint64_t hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& input) -> std::string {
        const bool digits = !input.empty() && input.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) return "'" + input + "' is not a non-negative decimal integer";
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(input.data(), input.data() + input.size(), v);
        if (ec != std::errc() || end != input.data() + input.size() || v < lo || v > hi)
          return "'" + input + "' is not in " + range;
        input = std::to_string(v);  // no leading zero left for CLI11's base-0 conversion to read as octal
        return "";
      },
      "INT in " + range);
}

}  // namespace ampbench::cli
