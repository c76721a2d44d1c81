// Baselines kept per environment: `ampbench baseline update` copies a results
// file to DIR/<suite>__<device>__<hardware>__torch-<libtorch_version>[__cuda-<cuda_runtime>].json
// (hardware = gpu_name on cuda, cpu_model on cpu; each part sanitized to
// [A-Za-z0-9._-]; the cuda part only when device is "cuda"), and `ampbench gate`
// without --baseline looks up the file named after the current results' env.
#pragma once

#include <string>
#include <vector>

#include "gate/results_file.h"

namespace ampbench::gate {

inline constexpr const char* kDefaultBaselineDir = "reference/baselines";

// Keeps [A-Za-z0-9._-], turns every other run of characters into one '-',
// trims '-' and '.' at both ends; "unknown" when nothing is left.
std::string sanitize_name_part(const std::string& text);

// The file name (no folder) for a results file's suite and env.
std::string baseline_filename(const ResultsFile& results);

struct BaselineUpdate {
  std::string path;      // written file
  std::string replaced;  // "" or the same path when an older baseline was overwritten
  std::size_t cases = 0;
};

// Validates the results file, refuses incomplete runs unless allowed, and
// writes the baseline atomically (the results document plus a top-level
// "baseline_source" object with the source path and the update time).
// Throws GateInputError (unusable results, unwritable folder).
BaselineUpdate update_baseline(const std::string& results_path, const std::string& dir, bool allow_incomplete = false);

// The baseline for `current` in `dir`. Throws GateInputError when there is
// none, naming the file looked for and the baselines that do exist for the
// suite.
std::string find_baseline(const ResultsFile& current, const std::string& dir);

}  // namespace ampbench::gate
