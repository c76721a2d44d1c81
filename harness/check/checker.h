// Checker: one case's record against its fp32 baseline's record -> Verdict
// with the measured distances, the bound each was held to (the measured
// envelope times c, never below the floor), and where each came closest to
// its bound.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/convergence_check.h"
#include "check/envelope.h"
#include "runner/case_record.h"

namespace ampbench {

// The floors: the smallest bound of each metric whatever the envelope says,
// = max(units x unit roundoff, noise_factor x measured fp32 noise).
struct ResolvedTolerances {
  double loss_rel = 0;
  double param_rel = 0;
  double optimizer_state_rel = 0;
  double final_loss_ratio = 0;  // allowed |final/final32 - 1|
  int max_skipped_steps = 0;    // unexplained skipped steps allowed (beyond the baseline's)
  int max_calibration_skips = 0;
  double unit_roundoff = 0;
  double fp32_noise = 0;  // the measured noise floor that entered them
};

// One metric held to its bound: per step for the loss, one value otherwise.
struct MetricCheck {
  std::string name;               // loss_rel, param_rel_l2, optimizer_state_rel_l2, final_loss_ratio
  std::vector<double> distance;
  std::vector<double> envelope;   // empty without an envelope
  std::vector<double> bound;      // max(c x envelope, floor)
  double max_ratio = 0;           // max distance / bound
  int peak_step = 0;              // index of max_ratio (the step, for the loss)
  // Steps not held to the bound: a step the scaler skipped whose loss is not
  // finite (the forward overflowed float16; GradScaler's skip is the correct
  // answer, and the parameters it leaves are checked at the next step).
  std::vector<int> exempt_steps;
};

// One fresh-seed re-run of a borderline case (check/confirmation.h).
struct Confirmation {
  std::uint64_t seed = 0;
  double max_ratio = 0;  // its largest distance/bound (infinity: no verdict)
  bool passed = false;
  std::string failure;   // its first failure, or why it has no verdict
};

struct Verdict {
  bool passed = true;
  std::map<std::string, double> metrics;
  ResolvedTolerances tolerances;
  std::optional<Envelope> envelope;
  double envelope_c = 0;               // c, when an envelope was used
  std::vector<MetricCheck> checks;
  double max_ratio = 0;                // over checks: > 1 fails
  std::vector<double> deviation_per_step;  // |loss - loss32| / |loss32|
  std::optional<int> first_crossing_step;
  std::vector<std::string> failures;  // one line per failed check, with numbers
  std::vector<std::vector<int>> aligned_skips;  // [optimizer] steps the fp32 reference skipped to match
  bool scale_audit_failed = false;
  // A borderline failure re-decided from fresh seeds: each seed's outcome,
  // and, when one passed, the failures of the suite's seed it overruled.
  std::vector<Confirmation> confirmations;
  std::vector<std::string> overruled_failures;
  // A converge case: the convergence rule's statistics (then `checks` holds
  // its criteria and the equivalence fields are empty).
  std::optional<ConvergenceSummary> convergence;
};

// Floors = max(units x unit roundoff, noise_factor x measured fp32 noise).
ResolvedTolerances resolve_tolerances(const CaseSpec& spec, const CaseRecord& baseline);

// Replays GradScaler's update rule over the recorded skipped steps and
// returns the first step whose recorded scale differs, or nullopt.
std::optional<int> first_scale_mismatch(const CaseSpec& spec, const std::vector<double>& scale,
                                        const std::vector<bool>& skipped);

// Skipped steps no rule of GradScaler explains: not in the leading run while
// a fresh scale calibrates (at most `max_calibration_skips`), not skipped by
// the fp32 baseline too (an injected inf), and not one of the backoffs that
// bring a grown scale back down (the dynamic scale probes upward: each growth
// since the last skip explains one later skip).
int unexplained_skips(const std::vector<bool>& skipped, const std::vector<double>& scale, double init_scale,
                      const std::vector<bool>& baseline_skipped, int max_calibration_skips);

// Compares `record` with `reference`: the fp32 baseline itself, or the fp32
// baseline re-run skipping the same steps the record's scaler skipped (so a
// skipped step, which is correct GradScaler behaviour, does not read as a
// one-step lag). Floors, the envelope and the allowed skipped steps always
// come from the baseline.
Verdict check_case(const CaseRecord& record, const CaseRecord& baseline, const CaseRecord* reference = nullptr);

}  // namespace ampbench
