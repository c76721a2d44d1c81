// Hand-made records for the checker's tests: four parameters that start at
// zero, two optimizer-state values, and a fp32 baseline without noise.
#pragma once

#include <vector>

#include "runner/case_record.h"

namespace ampbench::test {

inline CaseRecord record(Precision p, std::vector<double> loss, std::vector<float> params) {
  CaseRecord r;
  r.spec.precision = PrecisionPolicy(p);
  r.spec.scaler_enabled = p == Precision::kFp16;
  r.loss = std::move(loss);
  r.scale.assign(r.loss.size(), r.spec.scaler_enabled ? r.spec.scaler.init_scale : 1.0);
  r.skipped.assign(r.loss.size(), false);
  r.initial_params = {0, 0, 0, 0};
  r.final_params = std::move(params);
  r.optimizer_state = {1, 1};
  return r;
}

// Loss 2.0 -> 0.8 over four steps, final parameters (1, 2, 3, 4).
inline CaseRecord baseline() {
  CaseRecord b = record(Precision::kFp32, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  b.noise_loss_rel = 0;
  b.noise_param_rel = 0;
  return b;
}

}  // namespace ampbench::test
