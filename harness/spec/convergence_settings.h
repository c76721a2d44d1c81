// A converge case's settings (a suite's "convergence" section): trained to
// quality on real data, once per seed, and judged against the fp32 runs of
// the same seeds (check/convergence_check.h, docs/convergence.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ampbench {

// The rule's fixed parts, as MLPerf's reference convergence points have them.
inline constexpr int kConvergenceMinSeeds = 10;  // the and the docs' floor for a reference
inline constexpr int kConvergenceTrim = 1;       // olympic: the best and the worst run dropped
inline constexpr int kConvergenceMaxMissed = 1;  // runs allowed not to reach the target (MLPerf: one)

struct ConvergenceSettings {
  std::string dataset = "digits";  // a dataset of reference/python/datasets.py
  std::string data_file;           // where it is read from (data/dataset_file.h), resolved at load
  std::vector<std::uint64_t> seeds;  // one run per seed; the same seeds for every precision
  int warmup_steps = 100;          // linear warm-up to lr, then cosine to 0 over the rest
  int eval_every = 100;            // validation accuracy and loss every this many steps
  double target_accuracy = 0.95;   // validation accuracy that counts as converged
  double alpha = 0.05;             // one-sided Welch t-test on steps to target
  double accuracy_band = 0.01;     // final accuracy at most this far below fp32's (trimmed means)
  // Epochs the schedule may take at most: beyond it a small training set is
  // memorised and steps-to-target measures that (checked at load).
  int max_epochs = 100;
  // A negative control's verdict is decided once more of its runs missed the
  // target than the rule allows (misses only add up): when set, its other
  // seeds are not trained. For a pass/fail gate (the CI subset); off, every
  // control runs every seed and reports its full margins.
  bool stop_caught_controls = false;
};

}  // namespace ampbench
