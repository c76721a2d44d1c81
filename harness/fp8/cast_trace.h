// One per-tensor FP8 cast as a recorded run saw it: the amax of the tensor
// that was cast and the scale the cast used. The scale audit
// (check/fp8_scale_audit.h) holds a sequence of them to the recipe's rule.
//
// One MX cast likewise: the amax of every 32-value block of the tensor cast
// (along the cast's dimension, zero-padded) and the E8M0 exponents the cast
// used, whatever its block size; check/mx_scale_audit.h holds them to the
// MX rule. One rowwise cast: every row's amax along the cast's dimension
// and the scale it used; check/rowwise_scale_audit.h.
#pragma once

#include <cstdint>
#include <vector>

namespace ampbench::fp8 {

struct CastTrace {
  double amax = 0;
  double scale = 0;
};

struct MxCastTrace {
  int64_t rows = 0;
  std::vector<float> block_amax;    // rows x ceil(cols / 32), row-major
  std::vector<uint8_t> exponent;    // rows x the cast's blocks, row-major
};

struct RowwiseCastTrace {
  std::vector<float> row_amax;
  std::vector<float> scale;
};

// One NVFP4 cast (fp8/nvfp4_linear.h): which GEMM it fed, what was cast
// (amaxes of its 16-value blocks and of the whole tensor, and of the
// 16-value blocks before the Hadamard transform for the weight gradient's
// GEMM), the E4M3 block scales it used, and the first stochastic draws
// (none when it rounded to nearest); check/nvfp4_scale_audit.h holds them
// to the NVFP4 rule.
struct Nvfp4CastTrace {
  int gemm = 0;  // 0 output, 1 grad_input, 2 grad_weight
  int64_t rows = 0;
  std::vector<float> block_amax;      // rows x cols / 16, row-major
  float tensor_amax = 0;
  std::vector<float> raw_block_amax;  // grad_weight's casts: before the transform
  std::vector<float> block_scale;     // rows x the cast's blocks, as float
  std::vector<float> draws;           // the first stochastic draws
};

}  // namespace ampbench::fp8
