// libFuzzer target: --filter (field form and RE2), then matching it against
// case ids. Every input must give a matcher or std::invalid_argument, and
// matching must return (RE2: linear time, no recursion).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "runner/case_filter.h"
#include "spec/workload_traits.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string filter(reinterpret_cast<const char*>(data), size);
  try {
    const ampbench::CaseMatcher matches = ampbench::parse_case_filter(filter);
    // A family of its own: the registry's would bring every module along.
    ampbench::ModelFamily family;
    family.name = "cnn";
    ampbench::CaseSpec c;
    c.model = &family;
    for (const char* id : {"plain/mlp/fp16/sgd", "clip_norm+clip_before_unscale/cnn/bf16/adamw@tag", ""}) {
      c.id = id;
      c.workload = &ampbench::workload_traits("clip_norm");
      c.tag = "tag";
      matches(c);
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
