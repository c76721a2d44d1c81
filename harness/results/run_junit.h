// A run's conformance verdicts as JUnit XML (`ampbench run --junit FILE`),
// from the results as the one reader reads them back. LibTorch-free.
#pragma once

#include <string>

#include "results/results_file.h"

namespace ampbench {

// One testcase per case (name "conformance"); conforms false -> <failure>
// with the check's metrics and tolerances, status "error" -> <error>,
// status "skipped" -> <skipped>.
std::string run_junit(const ResultsFile& results);
// Writes run_junit(results) atomically; throws on failure.
void write_run_junit(const ResultsFile& results, const std::string& path);

}  // namespace ampbench
