// Which implementation trains a case: ampbench's own C++ loop (eager
// LibTorch), or the same recipe in PyTorch's Python with the model compiled
// by torch.compile (session/compiled_case.h). A compiled case is judged by
// the same checker against the same eager fp32 baseline.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ampbench {

enum class Implementation { kEager, kCompiled };

inline const char* to_string(Implementation i) { return i == Implementation::kCompiled ? "compiled" : "eager"; }

inline std::optional<Implementation> parse_implementation(const std::string& name) {
  if (name == "eager") return Implementation::kEager;
  if (name == "compiled") return Implementation::kCompiled;
  return std::nullopt;
}

// torch.compile's modes the compiled implementation offers.
inline const std::vector<std::string> kCompileModes = {"default", "max-autotune-no-cudagraphs", "reduce-overhead"};
// Test-only faults the compiled path can carry (the checker must fail them).
inline const std::vector<std::string> kCompileFaults = {"drop_autocast_cast"};

// The suffix of a compiled fp32 case's id: the eager fp32 baseline's id with
// it, judged against that baseline within the fp32 tolerance.
inline constexpr const char* kCompiledIdSuffix = "#compiled";

}  // namespace ampbench
