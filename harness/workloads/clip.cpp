// clip: as plain, but unscale_ before clipping so the threshold applies to
// the true gradient magnitudes; then step and update.
#include <torch/nn/utils/clip_grad.h>

#include "workloads/workload.h"

namespace ampbench {
namespace {

enum class ClipKind { kNorm, kValue };

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
  const bool injected = inject_inf_if_due(s);

  // Negative control "clip_before_unscale" omits this line: the threshold
  // then clips gradients that are still multiplied by the scale.
  if (s.spec.variant != "clip_before_unscale") s.scaler.unscale_(s.optimizer());

  const std::vector<at::Tensor> params = s.model().parameters();
  Engagement engaged;
  if (kind == ClipKind::kNorm) {
    const double norm = torch::nn::utils::clip_grad_norm_(params, s.spec.max_norm);
    if (s.record_engagement) {
      engaged.grad_norm = norm;
      engaged.clipped = norm > s.spec.max_norm;
    }
  } else {
    if (s.record_engagement) engaged.clipped_fraction = fraction_beyond(params, s.spec.clip_value);
    torch::nn::utils::clip_grad_value_(params, s.spec.clip_value);
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
