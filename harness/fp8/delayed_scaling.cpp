#include "fp8/delayed_scaling.h"

#include <cmath>

namespace ampbench::fp8 {

DelayedTensorState DelayedTensorState::fresh(int64_t history_len, const at::Device& device) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  return {at::zeros({history_len}, options), at::ones({}, options)};
}

void update_delayed_scale(DelayedTensorState& state, at::ScalarType fp8, const RecipeOptions& recipe) {
  at::NoGradGuard no_grad;
  const at::Tensor amax = recipe.amax_compute() == AmaxCompute::kMax ? std::get<0>(state.history.max(0))
                                                                     : state.history[0].clone();
  // Transformer Engine's _default_sf_compute, op for op ((float / tensor) is
  // reciprocal * float in Python).
  at::Tensor sf = amax.reciprocal().mul(fp8_max(fp8)).div(std::pow(2.0, static_cast<double>(recipe.margin())));
  sf = at::where(amax > 0.0, sf, state.scale);
  sf = at::where(at::isfinite(amax), sf, state.scale);
  state.scale.copy_(sf);
  if (state.history.size(0) > 1) state.history.copy_(at::roll(state.history, {-1}, {0}));
  state.history[0].fill_(0.0);
}

Fp8Tensor delayed_cast(DelayedTensorState& state, const at::Tensor& hp, at::ScalarType fp8,
                       const RecipeOptions& recipe) {
  Fp8Tensor out = cast_with_scale(hp, state.scale.clone(), fp8, recipe.saturate());
  {
    at::NoGradGuard no_grad;
    state.history[0].copy_(amax_of(hp, std::nullopt).to(at::kFloat));
  }
  update_delayed_scale(state, fp8, recipe);
  return out;
}

}  // namespace ampbench::fp8
