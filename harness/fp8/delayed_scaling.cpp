#include "fp8/delayed_scaling.h"

#include <ATen/core/grad_mode.h>

#include <cmath>

namespace ampbench::fp8 {

DelayedTensorState DelayedTensorState::fresh(int64_t history_len, const at::Device& device) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  return {at::zeros({history_len}, options), at::ones({}, options), at::zeros({}, options.dtype(at::kLong))};
}

void DelayedTensorState::enable_range_counts() {
  const auto options = at::TensorOptions().dtype(at::kLong).device(scale.device());
  saturated = at::zeros({}, options);
  flushed = at::zeros({}, options);
  elements = at::zeros({}, options);
  trace = at::zeros({kTracedCasts, 2}, options.dtype(at::kFloat));
  traced = at::zeros({1}, options);
}

namespace {

// What a recorded run keeps of the cast of hp (as `out`): what it lost to the
// format's range, added to the state's counts, and its row of the trace.
void record_cast(DelayedTensorState& state, const at::Tensor& hp, const Fp8Tensor& out, at::ScalarType fp8) {
  if (!state.saturated.defined()) return;
  at::NoGradGuard no_grad;
  const at::Tensor scaled = hp.to(at::kFloat).mul(out.scale);  // the product the cast rounds
  state.saturated.add_(scaled.abs().ge(fp8_overflow_boundary(fp8)).sum());
  state.flushed.add_(hp.ne(0).logical_and(out.data.to(at::kFloat).eq(0)).sum());
  state.elements.add_(hp.numel());
  // The amax of the tensor cast, whatever the scale was computed from; the
  // row index stays on the device (no host read a cast).
  const at::Tensor row = at::stack({amax_of(hp, std::nullopt).to(at::kFloat), out.scale.to(at::kFloat).reshape({})});
  const at::Tensor index = state.traced.clamp_max(DelayedTensorState::kTracedCasts - 1);
  state.trace.index_copy_(0, index, row.unsqueeze(0));
  state.traced.add_(1);
}

}  // namespace

void update_delayed_scale(DelayedTensorState& state, at::ScalarType fp8, const RecipeOptions& recipe) {
  at::NoGradGuard no_grad;
  if (recipe.freeze_scales() && state.updates.item<int64_t>() > 0) return;
  state.updates.add_(1);
  const at::Tensor amax = recipe.amax_compute() == AmaxCompute::kMax ? std::get<0>(state.history.max(0))
                                                                     : state.history[0].clone();
  // Transformer Engine's _default_sf_compute, op for op ((float / tensor) is
  // reciprocal * float in Python).
  at::Tensor sf = amax.reciprocal().mul(fp8_max(fp8)).div(std::pow(2.0, static_cast<double>(recipe.margin())));
  sf = at::where(amax > 0.0, sf, state.scale);
  sf = at::where(at::isfinite(amax), sf, state.scale);
  state.scale.copy_(sf);
  if (!recipe.roll_history()) return;
  if (state.history.size(0) > 1) state.history.copy_(at::roll(state.history, {-1}, {0}));
  state.history[0].fill_(0.0);
}

Fp8Tensor delayed_cast(DelayedTensorState& state, const at::Tensor& hp, const at::Tensor& amax_source,
                       at::ScalarType fp8, const RecipeOptions& recipe) {
  Fp8Tensor out = cast_with_scale(hp, state.scale.clone(), fp8, recipe.saturate());
  record_cast(state, hp, out, fp8);
  {
    at::NoGradGuard no_grad;
    state.history[0].copy_(amax_of(amax_source, std::nullopt).to(at::kFloat));
  }
  update_delayed_scale(state, fp8, recipe);
  return out;
}

Fp8Tensor tensorwise_cast(DelayedTensorState& state, const at::Tensor& hp, const at::Tensor& amax_source,
                          at::ScalarType fp8, const RecipeOptions& recipe) {
  at::Tensor scale;
  {
    at::NoGradGuard no_grad;
    if (!recipe.freeze_scales()) {
      scale = amax_to_scale(amax_of(amax_source, std::nullopt), fp8, false);
      // Read by no cast: a recorded run (one that counts) keeps it for the
      // scale trajectory; a timed step spends no copy on it.
      if (state.saturated.defined()) state.scale.copy_(scale);
    } else {
      if (state.updates.item<int64_t>() == 0) {
        state.scale.copy_(amax_to_scale(amax_of(amax_source, std::nullopt), fp8, false));
        state.updates.add_(1);
      }
      scale = state.scale.clone();
    }
  }
  Fp8Tensor out = cast_with_scale(hp, scale, fp8, recipe.saturate());
  record_cast(state, hp, out, fp8);
  return out;
}

}  // namespace ampbench::fp8
