// multi-model / multi-optimizer: two models, two losses built from both
// outputs, one scaler; each optimizer checks its own gradients and may skip
// on its own; ONE update per iteration, after every step.
#include "workloads/workload.h"

namespace ampbench {

StepOutcome multi_step(TrainingState& s, const std::vector<Batch>& batches) {
  const Batch& batch = batches.front();
  torch::optim::Optimizer& opt0 = *s.optimizers[0];
  torch::optim::Optimizer& opt1 = *s.optimizers[1];
  opt0.zero_grad();
  opt1.zero_grad();
  const at::Tensor o0 = forward(s, s.models[0], batch.inputs);
  const at::Tensor o1 = forward(s, s.models[1], batch.inputs);
  const auto [a, b, c, d] = s.spec.multi_coefficients;
  const at::Tensor l0 = loss_fn(s, a * o0 + b * o1, batch.labels);
  const at::Tensor l1 = loss_fn(s, c * o0 + d * o1, batch.labels);
  s.scaler.scale(l0).backward({}, /*retain_graph=*/true);
  s.scaler.scale(l1).backward();
  collect_master_grads(s);
  const bool injected = inject_inf_if_due(s);  // into optimizer spec.inject_inf_optimizer's gradients
  const bool injected0 = injected && s.spec.inject_inf_optimizer == 0;

  const bool update_per_optimizer = s.spec.variant == Control::kUpdatePerOptimizer;  // negative control
  const bool stepped0 = step_optimizer(s, opt0, injected0);
  if (update_per_optimizer) s.scaler.update();
  const bool stepped1 = step_optimizer(s, opt1, injected && !injected0);
  s.scaler.update();
  return {(l0 + l1).detach(), !stepped0 || !stepped1};
}

}  // namespace ampbench
