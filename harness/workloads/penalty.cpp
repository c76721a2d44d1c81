// gradient penalty: grads of the scaled loss with create_graph, unscaled by
// hand (no optimizer owns them, so unscale_ does not apply), penalty =
// sqrt(sum ||g||^2) inside autocast, then the usual scaled backward and step.
#include <torch/csrc/autograd/autograd.h>

#include "workloads/workload.h"

namespace ampbench {

StepOutcome penalty_step(TrainingState& s, const std::vector<Batch>& batches) {
  const Batch& batch = batches.front();
  s.optimizer().zero_grad();
  const std::vector<at::Tensor> params = s.model().parameters();
  const at::Tensor out = forward(s, s.model(), batch.inputs);
  at::Tensor loss = loss_fn(s, out, batch.labels);

  std::vector<at::Tensor> grads = torch::autograd::grad({s.scaler.scale(loss)}, params, /*grad_outputs=*/{},
                                                        /*retain_graph=*/true, /*create_graph=*/true);
  // Negative control "penalty_from_scaled_grads" skips this unscaling.
  if (s.spec.variant != Control::kPenaltyFromScaledGrads) {
    const double inv_scale = 1.0 / s.scaler.get_scale();
    for (at::Tensor& g : grads) g = g * inv_scale;
  }
  Engagement engaged;
  {
    PrecisionAutocast autocast(s);
    at::Tensor norm_sq = grads.front().pow(2).sum();
    for (size_t i = 1; i < grads.size(); ++i) norm_sq = norm_sq + grads[i].pow(2).sum();
    const at::Tensor penalty = norm_sq.sqrt();
    if (s.record_engagement) engaged.penalty_ratio = (penalty / loss).item<double>();
    loss = loss + penalty;
  }
  s.scaler.scale(loss).backward();
  collect_master_grads(s);
  const bool injected = inject_inf_if_due(s);
  const bool stepped = step_optimizer(s, s.optimizer(), injected);
  s.scaler.update();
  return {loss.detach(), !stepped, engaged};
}

}  // namespace ampbench
