// The MXFP8 recipe's three GEMMs of a Linear layer, as torchao's emulated
// MXFP8 training path computes them (prototype/moe_training/mxfp8_linear.py,
// mx_mm with KernelPreference.EMULATED): every operand cast to MXFP8 (e4m3
// elements, one E8M0 scale per 32 values) along the GEMM's reduced
// dimension, afresh for each GEMM, then dequantized and multiplied in the
// input's dtype:
//
//   output      x [M, K] along K      @ weight [N, K] along K
//   grad_input  dy [M, N] along N     @ weight^T [K, N] along N
//   grad_weight dy^T [N, M] along M   @ x^T [K, M] along M
//
// A recorded run logs every cast (mx_block_amax of the tensor and the
// exponents used) for the scale audit (check/mx_scale_audit.h), and counts
// the values past e4m3's range and flushed to zero in the operand's
// DelayedTensorState counters, as the per-tensor recipes do.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/List.h>

#include <array>

#include "fp8/delayed_scaling.h"
#include "fp8/fp8_recipe.h"

namespace ampbench::fp8 {

// Per operand (input, weight, output gradient): the casts of a recorded run,
// two tensors each (block amaxes over 32 values, exponents used). A c10::List
// shares its storage when copied, so the autograd node appends to the same one.
struct MxCastLog {
  std::array<c10::List<at::Tensor>, 3> casts;
  bool enabled = false;
};

// input2d [M, K], weight [N, K] -> [M, N], in input2d's dtype (which the
// weight must share: torchao's emulated GEMM takes one dtype). `counts` are
// the input's, weight's and output gradient's range counters (undefined:
// not counted).
at::Tensor mx_matmul(const at::Tensor& input2d, const at::Tensor& weight, const RecipeOptions& recipe,
                     std::array<DelayedTensorState*, 3> counts, const MxCastLog& log);

}  // namespace ampbench::fp8
