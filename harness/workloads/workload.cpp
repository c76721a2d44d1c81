#include "workloads/workload.h"

#include <map>
#include <stdexcept>

namespace ampbench {

// Each defined in its own file.
StepOutcome plain_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome clip_norm_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome clip_value_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome accumulation_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome penalty_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome multi_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome dataparallel_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome ddp_step(TrainingState& s, const std::vector<Batch>& batches);

const std::vector<Workload>& all_workloads() {
  static const std::vector<Workload> workloads = [] {
    // The registry: one line per workload, by its catalog name.
    const std::map<std::string, StepFn> steps = {
        {"plain", plain_step},       {"clip_norm", clip_norm_step}, {"clip_value", clip_value_step},
        {"accumulation", accumulation_step}, {"penalty", penalty_step}, {"multi", multi_step},
        {"dataparallel", dataparallel_step}, {"ddp", ddp_step},
        // The convergence cases train the plain recipe; what differs is the
        // data, the schedule and the verdict (runner/convergence_run.h).
        {"converge", plain_step},
    };
    std::vector<Workload> out;
    for (const WorkloadTraits& traits : all_workload_traits()) {
      const auto it = steps.find(traits.name());
      if (it == steps.end()) throw std::logic_error("workload '" + traits.name() + "' has traits but no step");
      out.emplace_back(traits, it->second);
    }
    return out;
  }();
  return workloads;
}

const Workload& find_workload(const std::string& name) {
  const WorkloadTraits& traits = workload_traits(name);  // throws, listing the known names
  for (const Workload& w : all_workloads())
    if (w.name() == traits.name()) return w;
  throw std::logic_error("workload '" + name + "' has traits but no step");
}

const Workload& single_replica_workload() { return find_workload("plain"); }

}  // namespace ampbench
