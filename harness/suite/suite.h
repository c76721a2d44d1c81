// Suite: a suites/<name>.json file, validated in full before anything runs,
// and expanded into CaseSpecs (the matrix plus explicit cases, each non-fp32
// case paired with its fp32 baseline).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

// A suite file problem: names the file, the field and the reason.
class SuiteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The regression gate's threshold, declared by the suite (results "gate");
// a case may override it.
struct GateSettings {
  std::optional<double> min_effect;  // relative median change that counts
};

struct Suite {
  std::string name;
  std::string path;
  std::string description;
  GateSettings gate;
  std::vector<CaseSpec> cases;  // baselines come before the cases that use them
  // The families of the models given by file, which the cases point to.
  std::vector<std::shared_ptr<const ModelFamily>> scripted_models;
};

// Optimizers the harness implements; the loader rejects others (model
// families: models/model_family.h; workloads and their variants:
// spec/workload_traits.h).
const std::vector<std::string>& known_optimizers();

// Resolves a suite name ("smoke") to suites/<name>.json under the source tree,
// or accepts a path to a .json file.
std::string resolve_suite_path(const std::string& name_or_path);

// Loads, validates and expands. `device` is the device the cases will run on
// ("cpu" or "cuda"). Throws SuiteError.
Suite load_suite(const std::string& name_or_path, DeviceKind device);

// Same, from JSON text (for tests); `path` is only used in messages.
Suite parse_suite(const std::string& json_text, const std::string& path, DeviceKind device);

std::string make_case_id(const CaseSpec& spec);

}  // namespace ampbench
