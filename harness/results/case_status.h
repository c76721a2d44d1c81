// A case's status in the results: what the run reports and every reader
// (the gate, JUnit, the summary) reads back. Free of LibTorch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ampbench {

enum class CaseStatus { kPass, kFail, kSkipped, kError };

inline std::string to_string(CaseStatus status) {
  switch (status) {
    case CaseStatus::kPass: return "pass";
    case CaseStatus::kFail: return "fail";
    case CaseStatus::kSkipped: return "skipped";
    case CaseStatus::kError: return "error";
  }
  return "error";
}

// "pass" | "fail" | "skipped" | "error"; nullopt for anything else.
inline std::optional<CaseStatus> parse_case_status(std::string_view name) {
  for (CaseStatus s : {CaseStatus::kPass, CaseStatus::kFail, CaseStatus::kSkipped, CaseStatus::kError})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

}  // namespace ampbench
