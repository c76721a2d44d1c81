#include "workloads/workload_traits.h"

#include <stdexcept>

namespace ampbench {

std::vector<std::string> WorkloadTraits::variants() const {
  std::vector<std::string> all = {"correct"};
  all.insert(all.end(), controls_.begin(), controls_.end());
  return all;
}

const std::vector<WorkloadTraits>& all_workload_traits() {
  // The catalog: one entry per workload; its step is registered by the same
  // name in workload.cpp.
  static const std::vector<WorkloadTraits> catalog = {
      WorkloadTraits("plain").controls({"no_scaler", "fresh_scaler_each_step", "resume_without_scaler_state"}).capturable(true),
      WorkloadTraits("clip_norm").controls({"clip_before_unscale"}).engages(Engages::kClipNorm).capturable(true),
      WorkloadTraits("clip_value").controls({"clip_before_unscale"}).engages(Engages::kClipValue).capturable(true),
      WorkloadTraits("accumulation")
          .controls({"step_every_microbatch"})
          .accumulates(true)
          .capturable(true)
          .engages(Engages::kAccumulation),
      WorkloadTraits("penalty").controls({"penalty_from_scaled_grads"}).engages(Engages::kPenalty),
      WorkloadTraits("multi").controls({"update_per_optimizer"}).models(2).capturable(true),
      WorkloadTraits("dataparallel").replication(Replication::kThreads),
      WorkloadTraits("ddp").controls({"rank_disagreement"}).replication(Replication::kRanks),
  };
  return catalog;
}

const WorkloadTraits& workload_traits(const std::string& name) {
  std::string known;
  for (const WorkloadTraits& w : all_workload_traits()) {
    if (w.name() == name) return w;
    known += (known.empty() ? "" : ", ") + w.name();
  }
  throw std::invalid_argument("unknown workload '" + name + "' (known: " + known + ")");
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const WorkloadTraits& w : all_workload_traits()) names.push_back(w.name());
  return names;
}

}  // namespace ampbench
