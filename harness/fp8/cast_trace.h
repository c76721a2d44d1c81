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

}  // namespace ampbench::fp8
