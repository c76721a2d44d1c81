// A suite's "convergence" section and the checks on its converge cases, all
// at load: the section's own values, each control on the precision its
// mistake belongs to, and (once the dataset file is read) that the model
// takes the data and the schedule fits it. Every refusal is a SuiteError
// (exit 2), naming the field.
#pragma once

#include <string>
#include <vector>

#include "data/dataset_file.h"
#include "spec/case_spec.h"
#include "suite/suite_reader.h"

namespace ampbench {

namespace suite_detail {
// The section, its dataset resolved to a file (data/dataset_file.h).
ConvergenceSettings read_convergence(Reader r);
}  // namespace suite_detail

// Each converge case has the section and a precision its control applies
// to; a case of another workload has no convergence settings.
void check_convergence_cases(const std::vector<CaseSpec>& cases, const std::string& suite_path);

// The converge cases against the data they will train on: a model that takes
// `data`'s samples (its features in a row, or its grey image as one channel
// or three equal ones) and classes, a batch that fits the training set, and a schedule within
// max_epochs of it. Throws SuiteError.
void check_convergence_data(const std::vector<CaseSpec>& cases, const Dataset& data, const std::string& suite_path);

// Whether any case of `cases` is a converge case.
bool has_convergence_cases(const std::vector<CaseSpec>& cases);

}  // namespace ampbench
