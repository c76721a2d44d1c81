// libFuzzer target: the suite parser (JSON reader, field reader, range
// checks, memory estimate, matrix expansion). Any input must end in a Suite
// or a SuiteError; a crash, sanitizer report or other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "suite/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ampbench::parse_suite(text, "fuzz.json", ampbench::DeviceKind::kCpu);
  } catch (const ampbench::SuiteError&) {
  }
  return 0;
}
