// Analytic FLOP counts: the numerator of achieved FLOP/s and model FLOP
// utilisation. Only the matrix-unit work is counted (GEMMs, convolutions,
// attention products), 2 FLOPs per multiply-add, as MLPerf and PaLM's MFU
// count it; elementwise ops, norms and the optimizer are left out. Each
// family's forward count is its registration's (models/model_family.h),
// built from the pieces below.
#pragma once

#include "spec/model_family.h"

namespace ampbench {

inline double linear_flops(double in, double out) { return 2.0 * in * out; }

// 3x3 convolution, padding 1: the output keeps the input's size.
inline double conv3x3_flops(double in_channels, double out_channels, double side) {
  return 2.0 * in_channels * out_channels * 9.0 * side * side;
}

// One pre- or post-norm attention block over `sizes.seq` tokens: packed
// q/k/v and output projections, q.k^T and weights.v over the full seq x seq
// square (also for a causal block, the PaLM / Megatron-LM MFU convention: a
// kernel that skips the masked half does less work than counted), and the
// feed-forward.
double attention_block_flops(const ModelSizes& sizes);

inline double forward_flops_per_sample(const ModelFamily& family, const ModelSizes& sizes) {
  return family.forward_flops(sizes);
}

// Forward + backward: the backward pass computes two products (input and
// weight gradients) per forward product, so 3x the forward.
inline double training_flops_per_sample(const ModelFamily& family, const ModelSizes& sizes) {
  return 3.0 * forward_flops_per_sample(family, sizes);
}

}  // namespace ampbench
