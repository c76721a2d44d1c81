// Checker: one case's record against its fp32 baseline's record -> Verdict
// with the measured numbers, the tolerances used and the first step whose
// deviation crossed the tolerance.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/case_record.h"

namespace ampbench {

struct ResolvedTolerances {
  double loss_rel = 0;
  double param_rel = 0;
  double optimizer_state_rel = 0;
  double final_loss_ratio = 0;  // allowed |final/final32 - 1|
  int max_skipped_steps = 0;
  double unit_roundoff = 0;
  double fp32_noise = 0;  // the measured noise floor that entered them
};

struct Verdict {
  bool passed = true;
  std::map<std::string, double> metrics;
  ResolvedTolerances tolerances;
  std::vector<double> deviation_per_step;  // |loss - loss32| / |loss32|
  std::optional<int> first_crossing_step;
  std::vector<std::string> failures;  // one line per failed check, with numbers
  std::vector<std::vector<int>> aligned_skips;  // [optimizer] steps the fp32 reference skipped to match
};

// Tolerance = max(units x unit roundoff, noise_factor x measured fp32 noise).
ResolvedTolerances resolve_tolerances(const CaseSpec& spec, const CaseRecord& baseline);

// Replays GradScaler's update rule over the recorded skipped steps and
// returns the first step whose recorded scale differs, or nullopt.
std::optional<int> first_scale_mismatch(const CaseSpec& spec, const std::vector<double>& scale,
                                        const std::vector<bool>& skipped);

// Compares `record` with `reference`: the fp32 baseline itself, or the fp32
// baseline re-run skipping the same steps the record's scaler skipped (so a
// skipped step, which is correct GradScaler behaviour, does not read as a
// one-step lag). Tolerances and the allowed skipped steps always come from
// the baseline.
Verdict check_case(const CaseRecord& record, const CaseRecord& baseline, const CaseRecord* reference = nullptr);

}  // namespace ampbench
