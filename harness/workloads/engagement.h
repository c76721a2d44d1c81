// Engagement: what a step's mechanism actually did. A conformance case whose
// mechanism never engages checks nothing (a clip that never clips passes
// whether the clip is right, skipped or applied with the wrong norm), so the
// recorded run keeps this per step and the suite's EngagementRule demands it.
// Plain data; filled only in recorded runs (reading it syncs the device).
#pragma once

#include <optional>

namespace ampbench {

struct Engagement {
  std::optional<double> grad_norm;         // clip_norm: total 2-norm before clipping (true gradients)
  std::optional<bool> clipped;             // clip_norm: grad_norm > max_norm
  std::optional<double> clipped_norm;      // clip_norm: total 2-norm after clipping
  std::optional<double> clipped_fraction;  // clip_value: gradient elements beyond +/- clip_value
  std::optional<double> clipped_max_abs;   // clip_value: largest |gradient| after clipping
  std::optional<double> penalty_ratio;     // penalty: penalty term / task loss
  std::optional<int> micro_batches;        // accumulation: backward passes into this optimizer step
};

}  // namespace ampbench
