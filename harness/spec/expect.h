// What a case's equivalence verdict means for the run: it must pass (a
// correct case), it must fail (a negative control), or it is reported only
// (O3, whose float16 weights are not expected to track fp32 everywhere).
// Free of LibTorch: the gate reads it from results files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ampbench {

enum class Expect { kPass, kFail, kReport };

inline std::string to_string(Expect expect) {
  switch (expect) {
    case Expect::kPass: return "pass";
    case Expect::kFail: return "fail";
    case Expect::kReport: return "report";
  }
  return "?";
}

// "pass" | "fail" | "report"; nullopt for anything else.
inline std::optional<Expect> parse_expect(std::string_view name) {
  for (Expect e : {Expect::kPass, Expect::kFail, Expect::kReport})
    if (to_string(e) == name) return e;
  return std::nullopt;
}

}  // namespace ampbench
