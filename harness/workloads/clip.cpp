// clip: as plain, but unscale_ before clipping so the threshold applies to
// the true gradient magnitudes; then step and update.
#include <torch/nn/utils/clip_grad.h>

#include <algorithm>
#include <cmath>

#include "optim/clip.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

enum class ClipKind { kNorm, kValue };

// Measured here, independently of the clip functions, so the engagement rule
// also sees a clip that is skipped, uses another norm type or misses
// parameters (check/engagement.h).
double total_norm(const std::vector<at::Tensor>& params) {
  double sum = 0;
  for (const at::Tensor& p : params)
    if (p.grad().defined()) sum += p.grad().to(at::kDouble).pow(2).sum().item<double>();
  return std::sqrt(sum);
}

double max_abs(const std::vector<at::Tensor>& params) {
  double m = 0;
  for (const at::Tensor& p : params)
    if (p.grad().defined() && p.grad().numel() > 0) m = std::max(m, p.grad().abs().max().item<double>());
  return m;
}

// Fraction of gradient elements that clip_grad_value_ will change.
double fraction_beyond(const std::vector<at::Tensor>& params, double limit) {
  double beyond = 0, total = 0;
  for (const at::Tensor& p : params) {
    if (!p.grad().defined()) continue;
    beyond += static_cast<double>((p.grad().abs() > limit).sum().item<int64_t>());
    total += static_cast<double>(p.grad().numel());
  }
  return total > 0 ? beyond / total : 0.0;
}

StepOutcome clip_step(TrainingState& s, const std::vector<Batch>& batches, ClipKind kind) {
  const Batch& batch = batches.front();
  s.optimizer().zero_grad();
  const at::Tensor out = forward(s, s.model(), batch.inputs);
  const at::Tensor loss = loss_fn(s, out, batch.labels);
  s.scaler.scale(loss).backward();
  collect_master_grads(s);
  const bool injected = inject_inf_if_due(s);

  // Negative control "clip_before_unscale" omits this line: the threshold
  // then clips gradients that are still multiplied by the scale.
  if (s.spec.variant != Control::kClipBeforeUnscale) s.scaler.unscale_(s.optimizer());

  const std::vector<at::Tensor> params = s.trained(0);  // O2: the masters' (unscaled) float32 gradients
  Engagement engaged;
  if (kind == ClipKind::kNorm) {
    if (s.record_engagement) engaged.grad_norm = total_norm(params);
    // LibTorch's clip returns the norm as a double (a host sync every step);
    // the foreach and fused implementations clip on the device, as Python.
    if (s.spec.optimizer_impl == optim::Impl::kLoop) {
      torch::nn::utils::clip_grad_norm_(params, s.spec.max_norm);
    } else {
      optim::clip_grad_norm_on_device(params, s.spec.max_norm);
    }
    if (s.record_engagement) {
      engaged.clipped = *engaged.grad_norm > s.spec.max_norm;
      engaged.clipped_norm = total_norm(params);
    }
  } else {
    if (s.record_engagement) engaged.clipped_fraction = fraction_beyond(params, s.spec.clip_value);
    torch::nn::utils::clip_grad_value_(params, s.spec.clip_value);
    if (s.record_engagement) engaged.clipped_max_abs = max_abs(params);
  }
  const bool stepped = step_optimizer(s, s.optimizer(), injected);
  s.scaler.update();
  return {loss.detach(), !stepped, engaged};
}

}  // namespace

StepOutcome clip_norm_step(TrainingState& s, const std::vector<Batch>& batches) {
  return clip_step(s, batches, ClipKind::kNorm);
}

StepOutcome clip_value_step(TrainingState& s, const std::vector<Batch>& batches) {
  return clip_step(s, batches, ClipKind::kValue);
}

}  // namespace ampbench
