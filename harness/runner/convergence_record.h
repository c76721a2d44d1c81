// What a converge case's training produced: one curve per seed, evaluated on
// the held-out split every eval_every steps. Plain data, for the checker,
// the results file and the report's curves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ampbench {

struct SeedCurve {
  std::uint64_t seed = 0;
  std::vector<int> step;               // optimizer steps taken at each evaluation
  std::vector<double> accuracy;        // validation accuracy
  std::vector<double> loss;            // validation loss (mean cross-entropy; NaN/inf kept)
  std::vector<double> train_loss;      // mean training loss of the steps since the last evaluation
  std::vector<double> scale;           // the loss scale after that step (1 without a scaler)
  int skipped_steps = 0;               // steps the scaler skipped (inf/NaN gradients)
  std::optional<int> steps_to_target;  // the first evaluation at or above the target
  double final_accuracy = 0;           // at the last step
};

struct ConvergenceRecord {
  std::string dataset;
  std::string data_sha256;
  int64_t train_size = 0;
  int64_t validation_size = 0;
  double target_accuracy = 0;
  std::vector<SeedCurve> seeds;  // in the suite's seed order
  // A control whose later seeds were not trained: more of its runs had
  // missed the target than the rule allows (ConvergenceSettings::stop_caught_controls).
  bool stopped_when_caught = false;
};

}  // namespace ampbench
