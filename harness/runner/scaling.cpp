#include "runner/scaling.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <algorithm>

#include "core/median.h"
#include "distributed/context.h"
#include "runner/runner.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

// The plain workload on one replica's share of the batch, alone.
double one_replica_samples_per_s(const CaseSpec& spec, const c10::Device& device) {
  CaseSpec ref = spec;
  ref.workload = single_replica_workload().name();
  ref.variant = "correct";
  ref.world_size = 1;
  ref.rank = 0;
  ref.inject_inf_step = -1;
  ref.skip_steps.clear();
  return median(measure_throughput(ref, device, 0.0).samples_per_s);
}

}  // namespace

ScalingRecord measure_scaling(const CaseSpec& spec, const c10::Device& device, const ThroughputRecord& own) {
  ScalingRecord r;
  const double whole = median(own.samples_per_s);
  r.replicas = spec.world_size;
  if (find_workload(spec.workload).collective()) {
    distributed::Context& ctx = distributed::current();
    r.backend = ctx.backend;
    // This rank's own samples/s: its shard of each step.
    std::vector<at::Tensor> mine = {at::full({1}, whole / spec.world_size, at::kDouble)};
    std::vector<std::vector<at::Tensor>> all(1);
    for (int i = 0; i < ctx.world_size; ++i) all[0].push_back(at::empty({1}, at::kDouble));
    ctx.group->allgather(all, mine)->wait();
    for (const at::Tensor& t : all[0]) r.per_rank_samples_per_s.push_back(t.item<double>());
    // Rank 0 measures one replica alone while the others wait.
    at::Tensor ref = at::zeros({1}, at::kDouble);
    if (ctx.rank == 0) ref.fill_(one_replica_samples_per_s(spec, device));
    std::vector<at::Tensor> one = {ref};
    ctx.group->broadcast(one)->wait();
    r.one_replica_samples_per_s = ref.item<double>();
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
