// The NVFP4 recipe's three GEMMs of a Linear layer, the way Transformer
// Engine's NVFP4BlockScaling and torchao's NVFP4 training Linear
// (prototype/moe_training/nvfp4_training/nvfp4_linear.py) quantize them,
// emulated: every operand cast to NVFP4 (fp8/nvfp4_cast.h) along the GEMM's
// reduced dimension, dequantized and multiplied in the input's dtype:
//
//   output      x [M, K] along K, nearest      @ weight [N, K] along K, nearest
//   grad_input  dy [M, N] along N, stochastic  @ weight^T [K, N] along N, nearest
//   grad_weight H(dy^T) [N, M], stochastic     @ H(x^T) [K, M], nearest
//
// H is the random Hadamard transform over 16 values along M, with one sign
// vector for both operands so that their product is kept while outliers
// are spread over their block. A reduced dimension that is no whole number
// of blocks is padded with zeros (which change no product).
//
// Emulated where the hardware differs: weights take 1x16 blocks as
// torchao's NVFP4Tensor does (Transformer Engine scales them in 16x16
// tiles), and the stochastic draws come from a CPU generator instead of
// the GPU's Philox stream, so that a run replays anywhere.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <vector>

#include "fp8/cast_trace.h"
#include "fp8/fp8_recipe.h"

namespace ampbench::fp8 {

// What an NVFP4 Linear keeps between steps: the Hadamard signs and the
// stochastic rounding stream (a CPU generator seeded once, or at every
// backward under the nvfp4_fresh_stream mistake).
struct Nvfp4Stream {
  explicit Nvfp4Stream(const RecipeOptions& recipe);
  RecipeOptions recipe;
  at::Tensor signs;
  at::Generator rng;
  // A recorded run's casts per operand (input, weight, output gradient),
  // for the audit (check/nvfp4_scale_audit.h).
  bool log_enabled = false;
  std::array<std::vector<Nvfp4CastTrace>, 3> casts;
};

// input2d [M, K], weight [N, K] -> [M, N] in input2d's dtype, which the
// weight must share; the recipe is the stream's.
at::Tensor nvfp4_matmul(const at::Tensor& input2d, const at::Tensor& weight, Nvfp4Stream& stream);

}  // namespace ampbench::fp8
