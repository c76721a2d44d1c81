// clip: as plain, but unscale_ before clipping so the threshold applies to
// the true gradient magnitudes; then step and update.
#include <torch/nn/utils/clip_grad.h>

#include "workloads/workload.h"

namespace ampbench {
namespace {

enum class ClipKind { kNorm, kValue };

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
  if (kind == ClipKind::kNorm) {
    torch::nn::utils::clip_grad_norm_(params, s.spec.max_norm);
  } else {
    torch::nn::utils::clip_grad_value_(params, s.spec.clip_value);
  }
  const bool stepped = step_optimizer(s, s.optimizer(), injected);
  s.scaler.update();
  return {loss.detach(), !stepped};
}

}  // namespace

StepOutcome clip_norm_step(TrainingState& s, const std::vector<Batch>& batches) {
  return clip_step(s, batches, ClipKind::kNorm);
}

StepOutcome clip_value_step(TrainingState& s, const std::vector<Batch>& batches) {
  return clip_step(s, batches, ClipKind::kValue);
}

}  // namespace ampbench
