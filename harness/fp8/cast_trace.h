// One per-tensor FP8 cast as a recorded run saw it: the amax of the tensor
// that was cast and the scale the cast used. The scale audit
// (check/fp8_scale_audit.h) holds a sequence of them to the recipe's rule.
#pragma once

namespace ampbench::fp8 {

struct CastTrace {
  double amax = 0;
  double scale = 0;
};

}  // namespace ampbench::fp8
