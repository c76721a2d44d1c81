#include "runner/scaling.h"

#include <algorithm>

#include "core/median.h"
#include "distributed/context.h"
#include "distributed/gather.h"
#include "runner/runner.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

// The plain workload on one replica's share of the batch, alone.
double one_replica_samples_per_s(const CaseSpec& spec, const c10::Device& device) {
  CaseSpec ref = spec;
  ref.workload = &single_replica_workload();
  ref.variant = Control::kNone;
  ref.world_size = 1;
  ref.rank = 0;
  ref.inject_inf_step = -1;
  ref.skip_steps.clear();
  return median(measure_throughput(ref, device, 0.0).samples_per_s);
}

}  // namespace

ScalingRecord measure_scaling(const CaseSpec& spec, const c10::Device& device, const ThroughputRecord& own,
                              distributed::Context* context) {
  ScalingRecord r;
  const double whole = median(own.samples_per_s);
  r.replicas = spec.world_size;
  if (context) {
    r.backend = context->backend;
    // This rank's own samples/s: its shard of each step.
    for (const std::vector<double>& rank : distributed::all_gather(*context, {whole / spec.world_size}))
      r.per_rank_samples_per_s.push_back(rank.front());
    // Rank 0 measures one replica alone while the others wait.
    const double one = context->rank == 0 ? one_replica_samples_per_s(spec, device) : 0.0;
    r.one_replica_samples_per_s = distributed::broadcast_from_rank0(*context, one);
  } else {
    r.backend = "threads";
    r.per_rank_samples_per_s = {whole};  // one process
    r.one_replica_samples_per_s = one_replica_samples_per_s(spec, device);
  }
  for (double v : r.per_rank_samples_per_s) r.aggregate_samples_per_s += v;
  const double ideal = r.replicas * r.one_replica_samples_per_s;
  r.scaling_efficiency = ideal > 0 ? r.aggregate_samples_per_s / ideal : 0.0;
  return r;
}

}  // namespace ampbench
