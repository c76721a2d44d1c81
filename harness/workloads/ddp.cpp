// ddp: one process per device, DistributedDataParallel's recipe. Each rank
// trains its own shard (batch spec.sizes.batch) of the global batch; c10d's
// Reducer averages the gradients over the ranks in buckets during backward,
// so every rank's optimizer sees the same gradients (those of one process
// with the whole batch). One device per process means no side threads:
// autocast and the GradScaler are used unchanged. Since the gradients are
// all-reduced before scaler.step, an inf/NaN on one rank reaches every rank
// and all of them skip the step and back off the scale together.
//
// Negative control rank_disagreement: the same inf reaches the last rank
// AFTER the all-reduce (a gradient hook or clipping run on one rank's copy),
// so that rank alone skips and backs off: the replicas drift apart, which
// only the rank-agreement check (distributed/rank_agreement.h) can see.
#include <limits>

#include "distributed/context.h"
#include "workloads/ddp_replica.h"
#include "workloads/workload.h"

namespace ampbench {

StepOutcome ddp_step(TrainingState& s, const std::vector<Batch>& batches) {
  const Batch& batch = batches.front();
  distributed::DdpReplica& ddp = ddp_replica_for(s);

  s.optimizer().zero_grad();
  ddp.prepare_for_forward();
  const at::Tensor out = forward(s, s.model(), batch.inputs);
  const at::Tensor loss = loss_fn(s, out, batch.labels);
  // Injection on ONE rank (the last), before the all-reduce: the loss it
  // back-propagates, and so its gradients, become non-finite; the other
  // ranks' stay finite. (The recorded loss stays the real one.)
  const bool injected = s.step_index == s.spec.inject_inf_step;
  const bool poison = injected && ddp.rank() == ddp.world_size() - 1;
  const at::Tensor scaled = s.scaler.scale(poison ? loss * std::numeric_limits<float>::infinity() : loss);
  ddp.prepare_for_backward({scaled});
  scaled.backward();  // buckets all-reduced as their gradients become ready
  const bool alone = s.spec.variant == Control::kRankDisagreement && s.step_index == s.spec.steps / 2 &&
                     ddp.rank() == ddp.world_size() - 1;  // negative control
  if (alone) s.parameters().front().mutable_grad().view(-1)[0].fill_(std::numeric_limits<float>::infinity());
  const bool stepped = step_optimizer(s, s.optimizer(), injected || alone);
  s.scaler.update();
  return {loss.detach(), !stepped};
}

}  // namespace ampbench
