#include "fp8/mx_linear.h"

#include <ATen/core/grad_mode.h>
#include <torch/autograd.h>

#include <string>

#include "fp8/mx_cast.h"
#include "fp8/saved_counts.h"

namespace ampbench::fp8 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

constexpr const char* kOperandKeys[] = {"x", "w", "g"};

// The cast a recorded run logs and counts; `hp` is the tensor as cast.
MxTensor cast(const at::Tensor& hp, const MxCastOptions& o, DelayedTensorState* counts,
              c10::List<at::Tensor>* log) {
  MxTensor mx = to_mx(hp, o);
  at::NoGradGuard no_grad;
  if (counts != nullptr && counts->saturated.defined()) {
    // What the clamp to 448 cut and what the cast flushed, per value.
    const at::Tensor scaled = hp.to(at::kFloat).abs() / mx_value_scales(mx);
    counts->saturated.add_(scaled.ge(fp8_overflow_boundary(at::kFloat8_e4m3fn)).sum());
    counts->flushed.add_(hp.ne(0).logical_and(mx.data.to(at::kFloat).eq(0)).sum());
    counts->elements.add_(hp.numel());
  }
  if (log != nullptr) {
    log->push_back(mx_block_amax(hp));
    log->push_back(mx.exponent);
  }
  return mx;
}

MxCastOptions cast_options(const RecipeOptions& r) {
  return {r.mx_scale_mode(), r.mx_block(), r.mx_clamp_exponent()};
}

struct MxMatmul : torch::autograd::Function<MxMatmul> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input2d, const at::Tensor& weight,
                            const RecipeOptions& r, std::array<DelayedTensorState*, 3> counts,
                            const MxCastLog& log) {
    ctx->save_for_backward({input2d, weight});
    ctx->saved_data["mode"] = static_cast<int64_t>(r.mx_scale_mode());
    ctx->saved_data["block"] = r.mx_block();
    ctx->saved_data["clamp"] = r.mx_clamp_exponent();
    for (int k = 0; k < 3; ++k) {
      save_counts(ctx, kOperandKeys[k], counts[k]);
      if (log.enabled) ctx->saved_data[std::string(kOperandKeys[k]) + "_log"] = log.casts[k];
    }
    const MxCastOptions o = cast_options(r);
    auto logs = log.casts;
    const MxTensor x = cast(input2d, o, counts[0], log.enabled ? &logs[0] : nullptr);
    const MxTensor w = cast(weight, o, counts[1], log.enabled ? &logs[1] : nullptr);
    return mx_mm(x, w);
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const MxCastOptions o{static_cast<MxScaleMode>(ctx->saved_data["mode"].toInt()), ctx->saved_data["block"].toInt(),
                          ctx->saved_data["clamp"].toBool()};
    std::array<DelayedTensorState, 3> counts;
    std::array<std::optional<c10::List<at::Tensor>>, 3> logs;
    for (int k = 0; k < 3; ++k) {
      counts[k] = saved_counts(ctx, kOperandKeys[k]);
      const std::string key = std::string(kOperandKeys[k]) + "_log";
      if (ctx->saved_data.count(key)) logs[k] = ctx->saved_data[key].toTensorList();
    }
    auto log_of = [&](int k) { return logs[k] ? &*logs[k] : nullptr; };
    // torchao makes the output gradient contiguous first (its casts need it).
    const at::Tensor g = grads[0].contiguous();
    const MxTensor g_rows = cast(g, o, &counts[2], log_of(2));
    const MxTensor w_t = cast(saved[1].t().contiguous(), o, &counts[1], log_of(1));
    const at::Tensor grad_input = mx_mm(g_rows, w_t);
    const MxTensor g_t = cast(g.t().contiguous(), o, &counts[2], log_of(2));
    const MxTensor x_t = cast(saved[0].t().contiguous(), o, &counts[0], log_of(0));
    const at::Tensor grad_weight = mx_mm(g_t, x_t);
    return {grad_input, grad_weight, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor mx_matmul(const at::Tensor& input2d, const at::Tensor& weight, const RecipeOptions& recipe,
                     std::array<DelayedTensorState*, 3> counts, const MxCastLog& log) {
  TORCH_CHECK(input2d.scalar_type() == weight.scalar_type(), "mxfp8 Linear: the input is ", input2d.scalar_type(),
              " and the weight ", weight.scalar_type(),
              "; the emulated MX GEMM takes one dtype for both (torchao's refuses the mix, as under autocast)");
  return MxMatmul::apply(input2d, weight, recipe, counts, log);
}

}  // namespace ampbench::fp8
