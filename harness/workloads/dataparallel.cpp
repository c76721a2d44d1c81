// dataparallel: as plain, but the forward pass is DataParallel's: the batch
// scattered over spec.world_size replicas, the module replicated, one forward
// thread per replica inside the caller's autocast region, outputs gathered;
// backward sums the replicas' gradients onto the original parameters. The
// GradScaler is used unchanged.
#include "distributed/data_parallel.h"
#include "workloads/workload.h"

namespace ampbench {

StepOutcome dataparallel_step(TrainingState& s, const std::vector<Batch>& batches) {
  const Batch& batch = batches.front();
  distributed::DataParallelOptions dp;
  dp.devices = distributed::replica_devices(s.device, s.spec.world_size);
  dp.expect_output_dtype = s.spec.precision.autocast_dtype().value_or(at::kFloat);

  s.optimizer().zero_grad();
  at::Tensor out;
  {
    PrecisionAutocast autocast(s);  // captured by, and re-entered in, every replica's thread
    out = distributed::data_parallel_forward(s.model(), batch.inputs, dp);
  }
  const at::Tensor loss = loss_fn(s, out, batch.labels);
  s.scaler.scale(loss).backward();  // ReduceAdd sums replica gradients onto the parameters
  const bool injected = inject_inf_if_due(s);
  const bool stepped = step_optimizer(s, s.optimizer(), injected);
  s.scaler.update();
  return {loss.detach(), !stepped};
}

}  // namespace ampbench
