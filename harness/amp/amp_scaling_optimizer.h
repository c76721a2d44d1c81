// An optimizer whose step takes the GradScaler's scale and inf flag on the
// device, as Python's fused optimizers do (`_step_supports_amp_scaling`):
// the kernel unscales the gradients itself (when grad_scale is given) and
// leaves everything untouched when found_inf is non-zero, so skipping a step
// needs no host sync.
#pragma once

#include <ATen/core/Tensor.h>

namespace ampbench::amp {

class AmpScalingOptimizer {
 public:
  virtual ~AmpScalingOptimizer() = default;
  // grad_scale: the scale the gradients still carry, or undefined when they
  // were unscaled already (GradScaler::unscale_ before clipping). found_inf:
  // a float scalar on the parameters' device, > 0 to skip the step.
  virtual void step_with_amp(const at::Tensor& grad_scale, const at::Tensor& found_inf) = 0;
};

}  // namespace ampbench::amp
