// What the suite-file tests share: the message a suite text is refused
// with, and a case of a parsed suite by id.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "suite/suite.h"

namespace ampbench::test {

// The SuiteError's message when `text` is refused on `device`; `accepted`
// when it parses.
inline std::string suite_error(const std::string& text, DeviceKind device = DeviceKind::kCpu,
                               const std::string& accepted = "") {
  try {
    parse_suite(text, "t.json", device);
  } catch (const SuiteError& e) {
    return e.what();
  }
  return accepted;
}

inline const CaseSpec& find_case(const Suite& s, const std::string& id) {
  const auto c = std::find_if(s.cases.begin(), s.cases.end(), [&](const CaseSpec& x) { return x.id == id; });
  if (c == s.cases.end()) throw std::runtime_error("no case " + id);
  return *c;
}

}  // namespace ampbench::test
