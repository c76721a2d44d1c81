// Test-only silent data corruption (`ampbench run --inject-bitflip STEP`):
// what a faulty multiplier would do, so that the fleet report's agreement
// check can be shown to catch it. Never on unless asked.
#pragma once

#include <ATen/core/Tensor.h>

namespace ampbench {

// A copy of `t` with one low-order mantissa bit of its largest-magnitude
// element flipped: the lowest bit a float16 holds (bit 13 of a float32's 23,
// bit 0 of a float16 or bfloat16), a relative error of at most 2^-10 in one
// element, far below any conformance tolerance. Not a float32's bit 0: the
// update (lr x one ulp of a gradient) is then below one ulp of the weight
// and usually rounds away, corrupting nothing. The largest element because
// a zero would become a denormal that flush-to-zero can hide. Floating
// dtypes of 2 or 4 bytes; anything else is returned unchanged.
at::Tensor flip_low_mantissa_bit(const at::Tensor& t);

// While alive, the first gradient computed for `param` (the output of the
// matrix product backward computes for it) passes through
// flip_low_mantissa_bit; later gradients are left alone.
class GradientBitflip {
 public:
  explicit GradientBitflip(at::Tensor param);
  ~GradientBitflip();
  GradientBitflip(const GradientBitflip&) = delete;
  GradientBitflip& operator=(const GradientBitflip&) = delete;

 private:
  at::Tensor param_;
  unsigned hook_ = 0;
};

}  // namespace ampbench
