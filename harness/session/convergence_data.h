// The converge cases' data, at load: the dataset file is written from
// scikit-learn's copy on first use (python -m reference.python.datasets),
// read and checked, and the cases are checked against it (the model takes
// its samples, the schedule fits it). Anything wrong throws
// std::invalid_argument, the run's exit 2, before a case runs.
#pragma once

#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

void prepare_convergence_data(const std::vector<CaseSpec>& cases, const std::string& suite_path);

}  // namespace ampbench
