// accumulation: loss / iters_to_accumulate, scaled backward every
// micro-batch; step, update and zero_grad once per effective batch, so the
// scale is constant within it and inf checks happen per effective batch.
#include "workloads/workload.h"

namespace ampbench {

StepOutcome accumulation_step(TrainingState& s, const std::vector<Batch>& micro_batches) {
  const int n = static_cast<int>(micro_batches.size());
  const bool step_every_microbatch = s.spec.variant == Control::kStepEveryMicrobatch;  // negative control
  at::Tensor total_loss;
  bool any_skipped = false;
  bool injected = false;
  for (int i = 0; i < n; ++i) {
    const Batch& batch = micro_batches[i];
    const at::Tensor out = forward(s, s.model(), batch.inputs);
    const at::Tensor loss = loss_fn(s, out, batch.labels) / n;
    s.scaler.scale(loss).backward();
    collect_master_grads(s);  // O2: micro-batches accumulate in float32
    total_loss = total_loss.defined() ? total_loss + loss.detach() : loss.detach();

    const bool last = i == n - 1;
    if (last) injected = inject_inf_if_due(s);
    if (last || step_every_microbatch) {
      any_skipped |= !step_optimizer(s, s.optimizer(), injected);
      s.scaler.update();
    }
  }
  s.optimizer().zero_grad();
  Engagement engaged;
  // Backward passes accumulated into the last optimizer step.
  if (s.record_engagement) engaged.micro_batches = step_every_microbatch ? 1 : n;
  return {total_loss, any_skipped, engaged};
}

}  // namespace ampbench
