// MX block scaling (OCP Microscaling Formats v1.0) with torchao's numerics
// (torchao/prototype/mx_formats/mx_tensor.py: to_mx, to_dtype), op for op,
// so that its emulated MXFP8 path replays bit for bit: e4m3 elements in
// blocks of 32 consecutive values along the last dimension, each block with
// one E8M0 scale (a biased power-of-two exponent, 127 meaning 2^0, 255 NaN).
//
//   floor  OCP's rule: 2^(floor(log2(amax)) - 8), 8 being the exponent of
//          e4m3's largest power of two (256); a block's largest values
//          land in [256, 512) and the ones past 448 are clamped to it.
//   ceil   the exponent rounded up when amax is not a power of two: never
//          clamps, flushes small values sooner.
//   rceil  cuBLAS's rule: 2^ceil(log2(amax / 448)), in float32.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <string>

#include "fp8/fp8_recipe.h"

namespace ampbench::fp8 {

inline constexpr int kE8m0Bias = 127;
inline constexpr uint8_t kE8m0Nan = 255;

// A 2-D tensor cast along its last dimension: data [rows, cols] in e4m3,
// exponents [rows, ceil(cols / block)] as uint8 biased E8M0, and the dtype
// it came from (the emulated GEMM dequantizes back to it).
struct MxTensor {
  at::Tensor data;
  at::Tensor exponent;
  int64_t block = kMxBlock;
  at::ScalarType hp_dtype = at::kFloat;
};

// How a cast may go wrong (negative controls); the defaults are the recipe.
struct MxCastOptions {
  MxScaleMode mode = MxScaleMode::kFloor;
  int64_t block = kMxBlock;
  // Off: the biased exponent is not clamped to E8M0's range before its
  // conversion to 8 bits, so a block below 2^-119 (an all-zero block among
  // them) wraps around to a huge scale.
  bool clamp_exponent = true;
};

// to_mx of a 2-D float32 or bfloat16 tensor along dim 1. A last dimension
// that is not a whole number of blocks is padded with zeros to one for the
// scale (torchao refuses such shapes; zeros change no block's amax) and the
// padding dropped from the data.
MxTensor to_mx(const at::Tensor& hp, const MxCastOptions& options);

// data * 2^(exponent - 127) per block, in the dtype the tensor came from
// (NaN for a NaN exponent), as torchao's to_dtype.
at::Tensor mx_dequantize(const MxTensor& t);

// 2^(exponent - 127) for every value of t (float32, t.data's shape).
at::Tensor mx_value_scales(const MxTensor& t);

// a [M, K] and b [N, K], both cast along K: a @ b^T in a's dtype, as
// torchao's emulated MX GEMM (both dequantized, then one mm). Autocast does
// not apply to it.
at::Tensor mx_mm(const MxTensor& a, const MxTensor& b);

// max |hp| over each block of kMxBlock along dim 1 (zero-padded), float32
// [rows, ceil(cols / 32)]: what the scale audit recomputes the exponents from,
// whatever block size the cast used.
at::Tensor mx_block_amax(const at::Tensor& hp);

}  // namespace ampbench::fp8
