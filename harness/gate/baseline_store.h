// Baselines kept per environment: `ampbench baseline update` copies one or
// more results files (runs) to
// DIR/<suite>__<device>__<hardware>__torch-<libtorch_version>[__cuda-<cuda_runtime>]/run-NN.json
// (hardware = gpu_name on cuda; on cpu cpu_model and, where recorded, cpu_id,
// the generation a hypervisor's name may hide; each part sanitized to
// [A-Za-z0-9._-]; the cuda part only when device is "cuda"), and `ampbench gate`
// without --baseline gates against every run in the folder named after the
// current results' env.
#pragma once

#include <string>
#include <vector>

#include "gate/results_file.h"

namespace ampbench::gate {

inline constexpr const char* kDefaultBaselineDir = "reference/baselines";

// Keeps [A-Za-z0-9._-], turns every other run of characters into one '-',
// trims '-' and '.' at both ends; "unknown" when nothing is left.
std::string sanitize_name_part(const std::string& text);

// The baseline's folder name (no parent) for a results file's suite and env.
std::string baseline_name(const ResultsFile& results);

struct BaselineUpdate {
  std::string path;      // written folder
  std::string replaced;  // "" or the same path when an older baseline was replaced
  std::size_t runs = 0;
  std::size_t cases = 0;  // in the first run
};

// Validates the results files (one suite, one environment), refuses
// incomplete runs unless allowed, and writes them as run-01.json, ... (each
// the results document plus a top-level "baseline_source" object with the
// source path and the update time) into a fresh folder that then replaces
// the old baseline whole, so no run of an older baseline survives.
// Throws GateInputError (unusable results, unwritable folder).
BaselineUpdate update_baseline(const std::vector<std::string>& results_paths, const std::string& dir,
                               bool allow_incomplete = false);

struct StoredBaseline {
  std::string folder;
  std::vector<std::string> runs;  // run-*.json, sorted
};

// The baseline for `current` in `dir` (on CPU, failing the folder named with
// the generation, one named with cpu_model alone: stored before cpu_id was
// recorded). Throws GateInputError when there is
// none, naming the folder looked for and the baselines that do exist for the
// suite.
StoredBaseline find_baseline(const ResultsFile& current, const std::string& dir);

}  // namespace ampbench::gate
