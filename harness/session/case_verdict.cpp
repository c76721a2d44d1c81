#include "session/case_verdict.h"

#include <cmath>

namespace ampbench {
namespace {

// [optimizer] -> the steps at which it skipped.
std::vector<std::vector<int>> skipped_steps(const CaseRecord& r) {
  std::vector<std::vector<int>> steps;
  for (size_t step = 0; step < r.optimizer_skipped.size(); ++step) {
    const std::vector<bool>& per_opt = r.optimizer_skipped[step];
    if (steps.size() < per_opt.size()) steps.resize(per_opt.size());
    for (size_t i = 0; i < per_opt.size(); ++i)
      if (per_opt[i]) steps[i].push_back(static_cast<int>(step));
  }
  return steps;
}

bool any(const std::vector<std::vector<int>>& steps) {
  for (const auto& s : steps)
    if (!s.empty()) return true;
  return false;
}

// `spec` re-seeded for a fresh-seed run: its own id (and dump folder), no
// throughput, and for a baseline only the replicas `precision` needs.
CaseSpec reseeded(CaseSpec spec, std::uint64_t seed, std::optional<Precision> precision) {
  spec.id += "#seed:" + std::to_string(seed);
  spec.seed = seed;
  spec.throughput.enabled = false;
  if (precision) spec.envelope_precisions = {*precision};
  return spec;
}

Confirmation run_fresh_seed(const CaseSpec& spec, const CaseSpec& baseline, std::uint64_t seed, const Runner& runner,
                            const CaseRun& run_case) {
  Confirmation c;
  c.seed = seed;
  c.max_ratio = INFINITY;
  const CaseRecord base = runner.run(reseeded(baseline, seed, spec.precision.precision()));
  if (base.status != RunStatus::kRan) {
    c.failure = "its fp32 baseline did not run at this seed: " + base.reason;
    return c;
  }
  CaseSpec again = reseeded(spec, seed, std::nullopt);
  again.baseline_id = base.spec.id;
  const CaseRecord record = run_case ? run_case(again) : runner.run(again);
  if (record.status != RunStatus::kRan) {
    c.failure = "did not run at this seed: " + record.reason;
    return c;
  }
  const Verdict v = check_against_baseline(record, base, runner);
  c.max_ratio = std::isfinite(v.max_ratio) ? v.max_ratio : INFINITY;
  c.passed = v.passed;
  if (!v.failures.empty()) c.failure = v.failures.front();
  return c;
}

}  // namespace

Verdict check_against_baseline(const CaseRecord& record, const CaseRecord& baseline, const Runner& runner) {
  // Ranks that disagree skipped different steps: the re-run would be
  // collective on some ranks only, which then wait for the others until the
  // rank timeout. The disagreement is the verdict; every rank judges it alike.
  if (record.rank_disagreement) return check_case(record, baseline);
  const std::vector<std::vector<int>> skips = skipped_steps(record);
  if (!any(skips) || record.optimizer_skipped == baseline.optimizer_skipped) return check_case(record, baseline);
  CaseSpec aligned = baseline.spec;
  aligned.skip_steps = skips;
  aligned.aligned_to = record.spec.id;
  aligned.id = baseline.spec.id + "#aligned-to:" + record.spec.id;
  aligned.throughput.enabled = false;
  const CaseRecord reference = runner.run(aligned);
  if (reference.status != RunStatus::kRan) return check_case(record, baseline);
  return check_case(record, baseline, &reference);
}

int confirm_borderline(Verdict& verdict, const CaseSpec& spec, const CaseSpec& baseline, const Runner& runner,
                       const ConfirmationRule& rule, const CaseRun& run_case) {
  if (!is_borderline(verdict, rule)) return 0;
  int runs = 0;
  for (int k = 1; k <= rule.seeds; ++k) {
    ++runs;
    if (add_confirmation(verdict, run_fresh_seed(spec, baseline, confirmation_seed(spec.seed, k), runner, run_case))) break;
  }
  return runs;
}

}  // namespace ampbench
