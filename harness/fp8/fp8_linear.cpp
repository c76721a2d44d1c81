#include "fp8/fp8_linear.h"

#include <ATen/autocast_mode.h>
#include <ATen/core/grad_mode.h>
#include <torch/autograd.h>

#include <array>
#include <optional>

#include "fp8/fp8_cast.h"

namespace ampbench::fp8 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

constexpr at::ScalarType kE4m3 = at::kFloat8_e4m3fn;
constexpr at::ScalarType kE5m2 = at::kFloat8_e5m2;

at::ScalarType grad_format(const RecipeOptions& r) {
  // torchao's rowwise recipe keeps e4m3 for gradients (its per-row scales
  // give it the range); the others use e5m2 unless the fault asks for e4m3.
  return r.scaling() == Scaling::kRowwise || r.e4m3_gradients() ? kE4m3 : kE5m2;
}

// The rowwise recipe's cast: one power-of-two scale per row along `axis`.
// A recorded run logs each row's amax (taken apart from the cast) and the
// scale the cast used, for the rowwise scale audit.
Fp8Tensor rowwise(const at::Tensor& hp, at::ScalarType fp8, int64_t axis, const RecipeOptions& r,
                  c10::List<at::Tensor>* log) {
  Fp8Tensor cast = cast_dynamic(hp, fp8, axis, r.pow2_scales(), r.saturate());
  if (log != nullptr) {
    at::NoGradGuard no_grad;
    log->push_back(at::amax(hp.abs(), {axis}).to(at::kFloat).flatten());
    log->push_back(cast.scale.flatten());
  }
  return cast;
}

constexpr const char* kLogKeys[] = {"x_log", "w_log", "g_log"};

// The recipe travels in the autograd context as plain values, and the
// output gradient's per-tensor state as its tensors (updated in place), so a
// graph's backward does not need the Linear's state object to outlive it.
void save_recipe(AutogradContext* ctx, const RecipeOptions& r) {
  ctx->saved_data["scaling"] = static_cast<int64_t>(r.scaling());
  ctx->saved_data["history_len"] = r.history_len();
  ctx->saved_data["margin"] = r.margin();
  ctx->saved_data["amax_compute"] = static_cast<int64_t>(r.amax_compute());
  ctx->saved_data["saturate"] = r.saturate();
  ctx->saved_data["e4m3_gradients"] = r.e4m3_gradients();
  ctx->saved_data["freeze_scales"] = r.freeze_scales();
  ctx->saved_data["input_amax_from_weight"] = r.input_amax_from_weight();
  ctx->saved_data["roll_history"] = r.roll_history();
  ctx->saved_data["pow2_scales"] = r.pow2_scales();
}

RecipeOptions saved_recipe(AutogradContext* ctx) {
  return RecipeOptions(static_cast<Scaling>(ctx->saved_data["scaling"].toInt()))
      .history_len(ctx->saved_data["history_len"].toInt())
      .margin(ctx->saved_data["margin"].toInt())
      .amax_compute(static_cast<AmaxCompute>(ctx->saved_data["amax_compute"].toInt()))
      .saturate(ctx->saved_data["saturate"].toBool())
      .e4m3_gradients(ctx->saved_data["e4m3_gradients"].toBool())
      .freeze_scales(ctx->saved_data["freeze_scales"].toBool())
      .input_amax_from_weight(ctx->saved_data["input_amax_from_weight"].toBool())
      .roll_history(ctx->saved_data["roll_history"].toBool())
      .pow2_scales(ctx->saved_data["pow2_scales"].toBool());
}

// A per-tensor cast (tensorwise or delayed) of hp, its scale from amax_source.
Fp8Tensor per_tensor_cast(DelayedTensorState& state, const at::Tensor& hp, const at::Tensor& amax_source,
                          at::ScalarType fp8, const RecipeOptions& r) {
  return r.scaling() == Scaling::kDelayed ? delayed_cast(state, hp, amax_source, fp8, r)
                                          : tensorwise_cast(state, hp, amax_source, fp8, r);
}

struct Fp8Matmul : torch::autograd::Function<Fp8Matmul> {
  // input2d [M, K], weight [N, K] -> [M, N]. The per-tensor scales of this
  // step are kept for the backward's recasts of input and weight.
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input2d, const at::Tensor& weight,
                            Fp8LinearState* state, at::ScalarType out_dtype) {
    const RecipeOptions& r = state->recipe;
    const at::Tensor weight_t = weight.t();  // column-major, as torchao's weight_hp_t
    Fp8Tensor x, w_t;
    if (r.scaling() == Scaling::kRowwise) {
      auto logs = state->mx_log.casts;  // shares the lists' storage
      const bool on = state->mx_log.enabled;
      if (on)
        for (int k = 0; k < 3; ++k) ctx->saved_data[kLogKeys[k]] = logs[k];
      x = rowwise(input2d, kE4m3, -1, r, on ? &logs[0] : nullptr);
      w_t = rowwise(weight_t, kE4m3, 0, r, on ? &logs[1] : nullptr);
    } else {
      x = per_tensor_cast(state->input, input2d, r.input_amax_from_weight() ? weight_t : input2d, kE4m3, r);
      w_t = per_tensor_cast(state->weight, weight_t, weight_t, kE4m3, r);
    }
    ctx->save_for_backward({input2d, weight});
    save_recipe(ctx, r);
    ctx->saved_data["go_history"] = state->grad_output.history;
    ctx->saved_data["go_scale"] = state->grad_output.scale;
    ctx->saved_data["go_updates"] = state->grad_output.updates;
    if (state->grad_output.saturated.defined()) {  // a recorded run's range counts
      ctx->saved_data["go_saturated"] = state->grad_output.saturated;
      ctx->saved_data["go_flushed"] = state->grad_output.flushed;
      ctx->saved_data["go_elements"] = state->grad_output.elements;
      ctx->saved_data["go_trace"] = state->grad_output.trace;
      ctx->saved_data["go_traced"] = state->grad_output.traced;
    }
    ctx->saved_data["x_scale"] = x.scale;
    ctx->saved_data["w_scale"] = w_t.scale;
    // torchao: fast accumulation for the output GEMM (tensorwise); rowwise
    // goes through the unit-scale GEMM, which the CPU kernel can run.
    return scaled_mm(x, w_t, out_dtype, r.scaling() != Scaling::kRowwise);
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& input2d = saved[0];
    const at::Tensor weight_t = saved[1].t();
    const RecipeOptions r = saved_recipe(ctx);
    const at::Tensor g = grads[0].contiguous();
    const at::ScalarType gf = grad_format(r);
    const at::ScalarType out = g.scalar_type();
    at::Tensor grad_input, grad_weight;
    if (r.scaling() != Scaling::kRowwise) {
      // The input and the weight again with their forward scales: the same
      // bits as the forward's casts (torchao recomputes the same scale).
      DelayedTensorState go{ctx->saved_data["go_history"].toTensor(), ctx->saved_data["go_scale"].toTensor(),
                            ctx->saved_data["go_updates"].toTensor()};
      if (ctx->saved_data.count("go_saturated")) {
        go.saturated = ctx->saved_data["go_saturated"].toTensor();
        go.flushed = ctx->saved_data["go_flushed"].toTensor();
        go.elements = ctx->saved_data["go_elements"].toTensor();
        go.trace = ctx->saved_data["go_trace"].toTensor();
        go.traced = ctx->saved_data["go_traced"].toTensor();
      }
      const Fp8Tensor g8 = per_tensor_cast(go, g, g, gf, r);
      const Fp8Tensor w_t = cast_with_scale(weight_t, ctx->saved_data["w_scale"].toTensor(), kE4m3, r.saturate());
      const Fp8Tensor x = cast_with_scale(input2d, ctx->saved_data["x_scale"].toTensor(), kE4m3, r.saturate());
      grad_input = scaled_mm(g8, w_t.t(), out, false);
      grad_weight = scaled_mm(g8.t(), x, out, false);
    } else {
      // torchao casts each operand again for each GEMM, along the GEMM's own
      // reduced dimension.
      std::array<std::optional<c10::List<at::Tensor>>, 3> logs;
      for (int k = 0; k < 3; ++k)
        if (ctx->saved_data.count(kLogKeys[k])) logs[k] = ctx->saved_data[kLogKeys[k]].toTensorList();
      auto log_of = [&](int k) { return logs[k] ? &*logs[k] : nullptr; };
      grad_input = scaled_mm(rowwise(g, gf, -1, r, log_of(2)), rowwise(weight_t, kE4m3, -1, r, log_of(1)).t(), out,
                             false);
      grad_weight = scaled_mm(rowwise(g, gf, 0, r, log_of(2)).t(), rowwise(input2d, kE4m3, 0, r, log_of(0)), out,
                              false);
    }
    return {grad_input, grad_weight, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

namespace {
RecipeOptions validated(RecipeOptions recipe) {
  recipe.validate();
  return recipe;
}
}  // namespace

Fp8LinearState::Fp8LinearState(RecipeOptions recipe_, const at::Device& device)
    : recipe(validated(std::move(recipe_))),
      input(DelayedTensorState::fresh(recipe.history_len(), device)),
      weight(DelayedTensorState::fresh(recipe.history_len(), device)),
      grad_output(DelayedTensorState::fresh(recipe.history_len(), device)),
      nvfp4(recipe.scaling() == Scaling::kNvfp4 ? std::make_unique<Nvfp4Stream>(recipe) : nullptr) {}

at::Tensor fp8_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                      Fp8LinearState& state) {
  TORCH_CHECK(input.size(-1) == weight.size(1), "fp8_linear: input has ", input.size(-1),
              " features, the weight takes ", weight.size(1));
  // Under autocast, as torchao's Float8Linear: the output in the autocast
  // dtype; on CUDA the input is cast to it first (its forward does), on the
  // CPU it is taken as it comes (only its GEMM sees autocast there).
  at::Tensor x = input;
  at::ScalarType out_dtype = input.scalar_type();
  const at::DeviceType device = input.device().type();
  if (at::autocast::is_autocast_available(device) && at::autocast::is_autocast_enabled(device)) {
    out_dtype = at::autocast::get_autocast_dtype(device);
    if (device == at::kCUDA) x = input.to(out_dtype);
  }
  at::Tensor out;
  if (state.recipe.scaling() == Scaling::kMxfp8) {
    // torchao's emulated MX path sees no autocast: the output in the input's dtype.
    out = mx_matmul(input.reshape({-1, input.size(-1)}), weight, state.recipe,
                    {&state.input, &state.weight, &state.grad_output}, state.mx_log);
  } else if (state.recipe.scaling() == Scaling::kBlockwise) {
    // Emulated like MXFP8, below autocast: the output in the input's dtype.
    out = blockwise_matmul(input.reshape({-1, input.size(-1)}), weight, state.recipe,
                           {&state.input, &state.weight, &state.grad_output}, state.mx_log);
  } else if (state.recipe.scaling() == Scaling::kNvfp4) {
    // Emulated like MXFP8, below autocast: the output in the input's dtype.
    out = nvfp4_matmul(input.reshape({-1, input.size(-1)}), weight, *state.nvfp4);
  } else {
    out = Fp8Matmul::apply(x.reshape({-1, x.size(-1)}), weight, &state, out_dtype);
  }
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - 1);
  shape.push_back(weight.size(0));
  out = out.reshape(shape);
  return bias.defined() ? out + bias.to(out.scalar_type()) : out;
}

}  // namespace ampbench::fp8
