// A workload is one training procedure (README "What a run checks"). Its step does one
// optimizer iteration and reads top to bottom like the recipe; negative
// controls are variants selected by spec.variant, written beside the correct
// line they break.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "workloads/engagement.h"
#include "workloads/training_state.h"

namespace ampbench {

struct StepOutcome {
  at::Tensor loss;  // detached, on the device: read after the timed region
  bool skipped = false;  // an optimizer skipped its step (inf/NaN gradients)
  Engagement engagement;  // filled when s.record_engagement (never in timed steps)
};

using StepFn = std::function<StepOutcome(TrainingState&, const std::vector<Batch>&)>;

struct Workload {
  std::string name;
  StepFn step;
  // Micro-batches one optimizer iteration consumes.
  int micro_batches(const CaseSpec& spec) const {
    return name == "accumulation" ? spec.iters_to_accumulate : 1;
  }
};

// Throws std::invalid_argument for an unknown name.
const Workload& find_workload(const std::string& name);

StepOutcome plain_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome clip_norm_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome clip_value_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome accumulation_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome penalty_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome multi_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome dataparallel_step(TrainingState& s, const std::vector<Batch>& batches);
StepOutcome ddp_step(TrainingState& s, const std::vector<Batch>& batches);

}  // namespace ampbench
