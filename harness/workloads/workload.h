// A workload is one training procedure (docs/semantics.md#workload-recipes).
// Its step does one optimizer iteration and reads top to bottom like the
// recipe; negative controls are variants selected by spec.variant, written
// beside the correct line they break.
//
// Each workload is a step in its own file, registered by one line in
// workload.cpp, and one entry in the catalog of traits (workload_traits.cpp).
// Suite parsing, the runner, the checker, the launcher and the CLI ask the
// traits; nothing outside workloads/ compares a workload name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "workloads/engagement.h"
#include "workloads/training_state.h"
#include "spec/workload_traits.h"

namespace ampbench {

struct StepOutcome {
  at::Tensor loss;  // detached, on the device: read after the timed region
  bool skipped = false;  // an optimizer skipped its step (inf/NaN gradients)
  Engagement engagement;  // filled when s.record_engagement (never in timed steps)
};

using StepFn = std::function<StepOutcome(TrainingState&, const std::vector<Batch>&)>;

// A workload: its traits (workload_traits.h) and its step.
class Workload : public WorkloadTraits {
 public:
  Workload(WorkloadTraits traits, StepFn step) : WorkloadTraits(std::move(traits)), step_(std::move(step)) {}
  StepOutcome step(TrainingState& s, const std::vector<Batch>& batches) const { return step_(s, batches); }

 private:
  StepFn step_;
};

// Every registered workload, in registration order.
const std::vector<Workload>& all_workloads();

// Throws std::invalid_argument for an unknown name, listing the known ones.
const Workload& find_workload(const std::string& name);

// The workload a replicated case's scaling efficiency is measured against:
// the same model and batch share on one replica, no collectives.
const Workload& single_replica_workload();

}  // namespace ampbench
