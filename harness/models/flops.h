// Analytic FLOP count of one training sample (forward + backward) for each
// model family: the numerator of achieved FLOP/s and model FLOP utilisation.
// Only the matrix-unit work is counted (GEMMs, convolutions, attention
// products), 2 FLOPs per multiply-add, as MLPerf and PaLM's MFU count it;
// elementwise ops, norms and the optimizer are left out.
#pragma once

#include <string>

#include "spec/case_spec.h"

namespace ampbench {

// Forward FLOPs for one sample.
double forward_flops_per_sample(const std::string& family, const ModelSizes& sizes);

// Forward + backward: the backward pass computes two products (input and
// weight gradients) per forward product, so 3x the forward.
inline double training_flops_per_sample(const std::string& family, const ModelSizes& sizes) {
  return 3.0 * forward_flops_per_sample(family, sizes);
}

}  // namespace ampbench
