// y = x W^T + b with the three GEMMs (output, grad_input, grad_weight) in
// FP8 through at::_scaled_mm, as torchao's Float8Linear computes them
// (matmul_with_hp_or_float8_args): the output in the input's dtype (in the
// autocast dtype under autocast), both gradients in the output gradient's
// dtype, the bias added after the GEMM in the output's dtype.
#pragma once

#include <ATen/ATen.h>

#include <memory>

#include "fp8/blockwise_linear.h"
#include "fp8/delayed_scaling.h"
#include "fp8/fp8_recipe.h"
#include "fp8/mx_linear.h"
#include "fp8/nvfp4_linear.h"

namespace ampbench::fp8 {

// What one FP8 Linear keeps between steps: nothing for the dynamic recipes,
// the input's, weight's and output gradient's amax history and scale for
// delayed scaling (and the range counters and cast logs of a recorded run).
struct Fp8LinearState {
  explicit Fp8LinearState(RecipeOptions recipe, const at::Device& device);
  RecipeOptions recipe;
  DelayedTensorState input, weight, grad_output;
  // MXFP8, rowwise and blockwise: a recorded run's casts, for the scale
  // audits (MX: block amaxes and exponents; rowwise: row amaxes and scales;
  // blockwise: tile amaxes and scales).
  MxCastLog mx_log;
  // NVFP4: the Hadamard signs and the stochastic rounding stream (unset for
  // the other recipes).
  std::unique_ptr<Nvfp4Stream> nvfp4;
};

// input [..., in], weight [out, in], bias [out] or undefined. Differentiable
// in input, weight and bias.
at::Tensor fp8_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                      Fp8LinearState& state);

}  // namespace ampbench::fp8
