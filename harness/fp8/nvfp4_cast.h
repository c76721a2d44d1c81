// NVFP4 (NVIDIA's 4-bit block format) with torchao's numerics
// (torchao/prototype/mx_formats/nvfp4_tensor.py: nvfp4_quantize,
// NVFP4Tensor.dequantize), op for op, so that its emulated path replays bit
// for bit: E2M1 values (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives) in
// blocks of 16 consecutive values along the last dimension, each block with
// one E4M3 scale, all under one fp32 tensor scale:
//
//   tensor_scale  amax(|x|) / (448 * 6), so that the block holding the
//                 tensor's amax gets E4M3's largest scale, 448
//   block_scale   e4m3(clamp(amax_block / 6 / tensor_scale, 2^-6, 448))
//   value         e2m1(clamp(x * ((1 / tensor_scale) / block_scale), -6, 6))
//
// The E2M1 rounding is to nearest, ties to even (torchao's), or stochastic:
// up with the probability of the distance to the value below, decided by a
// uniform draw per value that the caller supplies, so that a recorded
// stream replays (Transformer Engine rounds gradients this way).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace ampbench::fp8 {

inline constexpr double kE2m1Max = 6.0;

// A 2-D tensor cast along its last dimension, which is a whole number of
// blocks: E2M1 values as float32 (exact) [rows, cols], E4M3 block scales
// [rows, cols / block], the fp32 tensor scale (a 0-d tensor; undefined for
// single-level scaling) and the dtype it came from.
struct Nvfp4Tensor {
  at::Tensor data;
  at::Tensor block_scale;
  at::Tensor tensor_scale;
  int64_t block = 16;
  at::ScalarType hp_dtype = at::kFloat;
};

struct Nvfp4CastOptions {
  int64_t block = 16;
  // Off: torchao's single-level scaling (a mistake for training).
  bool tensor_scale = true;
  // Uniform draws in [0, 1), float32, one per value: stochastic rounding.
  // Undefined: round to nearest even.
  at::Tensor uniform;
};

// to_nvfp4 of a 2-D float32 or bfloat16 tensor along dim 1. A tensor whose
// amax is zero gets the tensor scale 1 (torchao's training kernels' rule;
// its emulated cast would divide by zero).
Nvfp4Tensor to_nvfp4(const at::Tensor& hp, const Nvfp4CastOptions& options);

// E2M1 rounding of values already in [-6, 6]: to nearest even, or
// stochastically with `uniform` (same shape) when it is defined.
at::Tensor round_e2m1(const at::Tensor& scaled, const at::Tensor& uniform);

// data * (tensor_scale * block_scale) per block, in the dtype it came from.
at::Tensor nvfp4_dequantize(const Nvfp4Tensor& t);

// The random Hadamard transform: each 16 consecutive values along dim 1
// (cols a multiple of 16) times diag(signs) H16 / 4, H16 Sylvester's
// Hadamard matrix and `signs` 16 values of +-1 (torchao's get_rht_matrix).
// Orthogonal, so two operands transformed alike keep their product.
at::Tensor random_hadamard(const at::Tensor& hp, const at::Tensor& signs);

// 16 signs of +-1 from a CPU generator seeded with `seed`: rand(16) >= 0.5
// (torchao's get_wgrad_sign_vector on a seeded generator).
at::Tensor hadamard_signs(int64_t seed);

}  // namespace ampbench::fp8
