// The smallest real case the runner and workload tests train: a 16-32-8 MLP
// on batches of 16, without throughput timing: cheap enough that a test can
// run it several times and compare the runs.
#pragma once

#include <string>

#include "spec/case_spec.h"
#include "spec/workload_traits.h"

namespace ampbench::test {

// A GradScaler for fp16 only. The case is an fp32 baseline (an fp32 case is
// re-run for its noise) unless the caller names its baseline_id.
inline CaseSpec tiny_mlp_case(const std::string& workload, Precision precision, optim::Kind optimizer, int steps) {
  CaseSpec c;
  c.workload = &workload_traits(workload);
  c.model = find_model_family("mlp");
  c.optimizer = optimizer;
  c.precision = PrecisionPolicy(precision);
  c.scaler_enabled = precision == Precision::kFp16;
  c.sizes.batch = 16;
  c.sizes.in_features = 16;
  c.sizes.hidden = 32;
  c.sizes.classes = 8;
  c.steps = steps;
  c.throughput.enabled = false;
  return c;
}

// One plain SGD step's case of `model` (mlp or cnn) at `precision`, with a
// scaler where the precision needs one: the smallest case that builds a
// TrainingState of either family.
inline CaseSpec small_case(const std::string& model, Precision precision) {
  CaseSpec c;
  c.workload = &workload_traits("plain");
  c.model = find_model_family(model);
  c.optimizer = optim::Kind::kSgd;
  c.precision = PrecisionPolicy(precision);
  c.scaler_enabled = c.precision.needs_scaler();
  c.sizes.batch = 8;
  c.sizes.in_features = 16;
  c.sizes.hidden = 32;
  c.sizes.classes = 8;
  c.sizes.channels = 4;
  c.sizes.image = 8;
  return c;
}

}  // namespace ampbench::test
