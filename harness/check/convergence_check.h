// The convergence rule (docs/convergence.md): a precision conforms when its
// runs over the fp32 reference's seeds reach the target accuracy (at most
// one run may miss it, as MLPerf allows), are not slower to reach it than
// fp32 by a one-sided Welch t-test at the suite's alpha, and end with a
// final accuracy at most accuracy_band below fp32's. Means and deviations
// are olympic (best and worst run dropped), as MLPerf's reference
// convergence points are. Pure functions of the records.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/welch_test.h"
#include "runner/convergence_record.h"
#include "spec/convergence_settings.h"

namespace ampbench {

// One side's runs: steps to target per seed (+inf when never reached) and
// final accuracy per seed, with their olympic means and deviations.
struct ConvergenceSide {
  std::vector<double> steps_to_target;
  std::vector<double> final_accuracy;
  int missed = 0;  // runs that never reached the target
  double steps_mean = 0, steps_stddev = 0;  // trimmed; +inf when more than one run missed
  double accuracy_mean = 0, accuracy_stddev = 0;  // trimmed
};

ConvergenceSide convergence_side(const ConvergenceRecord& record);

// Each criterion as distance over bound: above 1 it fails.
struct ConvergenceCriterion {
  std::string name;  // seeds_missed | steps_to_target | final_accuracy
  double value = 0;  // missed runs | p-value | accuracy deficit below fp32's trimmed mean
  double limit = 0;  // allowed misses | alpha | accuracy_band
  double ratio = 0;  // value/limit for misses and deficit, alpha/p for the test
  bool failed = false;
};

struct ConvergenceSummary {
  ConvergenceSide reference;  // fp32, the same seeds
  ConvergenceSide candidate;
  std::optional<WelchTest> steps_test;  // none when too many runs missed to test
  std::vector<ConvergenceCriterion> criteria;
  std::vector<std::string> failures;  // one line per failed criterion, with its numbers
  double max_ratio = 0;
};

// Why the fp32 reference cannot anchor the rule ("" when it can): more of
// its runs missed the target than the rule allows a precision.
std::string reference_refusal(const ConvergenceRecord& reference, const ConvergenceSettings& settings);

// `candidate` against `reference` by the rule above; the records must hold
// the same seeds in the same order (std::invalid_argument otherwise).
ConvergenceSummary check_convergence(const ConvergenceRecord& candidate, const ConvergenceRecord& reference,
                                     const ConvergenceSettings& settings);

}  // namespace ampbench
