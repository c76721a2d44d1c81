// plain: zero_grad; with autocast: out = model(x), loss = loss_fn(out, y);
// scaler.scale(loss).backward(); scaler.step(opt); scaler.update().
#include "workloads/workload.h"

namespace ampbench {

StepOutcome plain_step(TrainingState& s, const std::vector<Batch>& batches) {
  const Batch& batch = batches.front();
  // Negative control: a scaler re-created every step is never updated across
  // steps, so its scale never backs off or grows.
  if (s.spec.variant == Control::kFreshScalerEachStep) s.scaler = amp::GradScaler(scaler_options(s.spec));

  s.optimizer().zero_grad();
  const at::Tensor out = forward(s, s.model(), batch.inputs);
  const at::Tensor loss = loss_fn(s, out, batch.labels);
  s.scaler.scale(loss).backward();  // backward runs outside the autocast region
  collect_master_grads(s);
  const bool injected = inject_inf_if_due(s);
  const bool stepped = step_optimizer(s, s.optimizer(), injected);
  s.scaler.update();
  return {loss.detach(), !stepped};
}

}  // namespace ampbench
