// Transformer Engine's delayed scaling for one tensor of one Linear layer:
// the cast uses the scale computed from earlier steps' amaxes, records this
// step's amax, and the scale for the next step is computed from the amax
// history (DelayedScaling: amax_history_len, margin, amax_compute_algo,
// scale = (fp8_max / amax) / 2^margin, kept when amax is 0 or not finite;
// the history rolled by one after each update).
//
// Transformer Engine updates after the step (or before the next one); here
// the update follows the tensor's cast at once, which gives every cast the
// same scale as long as each tensor is cast once per step, as a Linear's
// input, weight and output gradient are.
//
// The tensorwise recipe's cast is here too: with its scales frozen (a
// negative control) it keeps them in the same state.
#pragma once

#include <ATen/ATen.h>

#include "fp8/fp8_cast.h"
#include "fp8/fp8_recipe.h"

namespace ampbench::fp8 {

// The history (history_len float32 amaxes, the newest at 0), the scale
// (0-dim float32, 1 at first) and the number of updates so far (0-dim int64)
// of one tensor. Tensors, so that an autograd node can hold them and update
// them in place.
struct DelayedTensorState {
  at::Tensor history;
  at::Tensor scale;
  at::Tensor updates;
  // Counted once enable_range_counts() made them (recorded runs: the counts
  // cost two reductions a cast), over every cast of this tensor: values
  // past the format's range even by rounding (fp8_overflow_boundary:
  // clamped, or NaN/inf without saturation), non-zero values the cast made
  // zero, and all values cast (0-dim int64).
  at::Tensor saturated, flushed, elements;
  // Kept with the counts: per cast, the amax of the tensor cast and the
  // scale the cast used ([kTracedCasts, 2] float32), and how many casts
  // there were (`traced`, [1] int64). The last row takes every cast past
  // the others, so the first kTracedCasts - 1 are kept. The checker holds
  // them to the recipe's rule (check/fp8_scale_audit.h).
  at::Tensor trace, traced;
  static constexpr int64_t kTracedCasts = 4096;

  static DelayedTensorState fresh(int64_t history_len, const at::Device& device);
  void enable_range_counts();
};

// Casts hp with the current scale, then records the amax of amax_source
// (hp itself unless a fault says otherwise) and updates the scale and the
// history.
Fp8Tensor delayed_cast(DelayedTensorState& state, const at::Tensor& hp, const at::Tensor& amax_source,
                       at::ScalarType fp8, const RecipeOptions& recipe);

// The tensorwise recipe's cast: the scale from amax_source's amax at this
// step, or, with freeze_scales, at the first step only; the scale used is
// left in state.scale when frozen or when the state counts (a recorded run).
Fp8Tensor tensorwise_cast(DelayedTensorState& state, const at::Tensor& hp, const at::Tensor& amax_source,
                          at::ScalarType fp8, const RecipeOptions& recipe);

// The update alone, from the amax already recorded at history[0].
void update_delayed_scale(DelayedTensorState& state, at::ScalarType fp8, const RecipeOptions& recipe);

}  // namespace ampbench::fp8
