// The engagement rule: a correct case (and every fp32 baseline) whose
// workload's mechanism did not engage is an error naming the mechanism,
// never a pass: a clip that never clips would pass with the clip skipped,
// applied with the wrong norm type or to the wrong parameters.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/case_record.h"

namespace ampbench {

// Per case: how much the mechanism engaged (also written to the results).
struct EngagementSummary {
  std::optional<double> clipped_steps;           // clip_norm: fraction of steps that clipped
  std::optional<double> min_grad_norm, max_grad_norm;  // clip_norm, before clipping
  // clip_norm: the step whose norm after clipping exceeds max_norm the most
  // (finite-gradient steps only), as its excess ratio; clip_value: the same
  // for the largest |gradient| against clip_value. <= 1 when the clip works.
  std::optional<double> worst_clipped_ratio;
  std::optional<int> worst_clipped_step;
  std::optional<double> mean_clipped_fraction;   // clip_value
  std::optional<double> mean_penalty_ratio;      // penalty
  std::optional<int> min_micro_batches;          // accumulation
  int scale_growths = 0, scale_backoffs = 0;     // from the scale trajectory
  std::vector<int> optimizer_steps, optimizer_skips;  // per optimizer
};

EngagementSummary summarize_engagement(const CaseRecord& record);

// Why `record` did not exercise what its workload names, or nullopt.
std::optional<std::string> engagement_failure(const CaseRecord& record, const EngagementSummary& summary);

}  // namespace ampbench
