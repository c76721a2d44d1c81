// The blockwise FP8 recipe's three GEMMs of a Linear layer, as torchao's
// Float8BlockwiseLinear arranges them (prototype/blockwise_fp8_training/
// linear.py, fp8_blockwise_mm): each operand cast afresh for each GEMM, its
// tiles along the GEMM's reduced dimension or 128 x 128 for the weight:
//
//   output      x [M, K] 1 x 128        @ weight^T, weight [N, K] 128 x 128
//   grad_input  dy [M, N] 1 x 128       @ weight [N, K] 128 x 128
//   grad_weight dy^T [N, M] 1 x 128     @ x [M, K] 128 x 1
//
// Emulated: both operands dequantized to float32 and multiplied in one mm
// (torchao's GPU GEMM accumulates the same products in float32, tile by
// tile), the result in the input's dtype. A recorded run logs every cast
// (the amaxes of the recipe's 128-wide tiles of what was cast, and the
// scales used) for the scale audit (check/blockwise_scale_audit.h), and
// counts flushed values in the operand's DelayedTensorState counters.
#pragma once

#include <ATen/ATen.h>

#include <array>

#include "fp8/delayed_scaling.h"
#include "fp8/fp8_recipe.h"
#include "fp8/mx_linear.h"

namespace ampbench::fp8 {

// input2d [M, K], weight [N, K] -> [M, N] in input2d's dtype (which the
// weight must share). `counts`: the input's, weight's and output
// gradient's range counters; `log`: (tile amax, scale) pairs per operand.
at::Tensor blockwise_matmul(const at::Tensor& input2d, const at::Tensor& weight, const RecipeOptions& recipe,
                            std::array<DelayedTensorState*, 3> counts, const MxCastLog& log);

}  // namespace ampbench::fp8
