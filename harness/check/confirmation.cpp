#include "check/confirmation.h"

#include <cmath>

namespace ampbench {

bool is_borderline(const Verdict& v, const ConfirmationRule& rule) {
  if (v.passed || rule.seeds <= 0 || v.scale_audit_failed) return false;
  if (!(v.max_ratio > 1 && v.max_ratio <= rule.grey_limit)) return false;
  // Every failure line must be a metric beyond its bound: each check over
  // its bound writes exactly one, anything else (skips, non-finite values,
  // rank or resume mismatches) writes its own.
  std::size_t over = 0;
  for (const MetricCheck& m : v.checks) over += m.max_ratio > 1 ? 1 : 0;
  return over > 0 && over == v.failures.size();
}

std::uint64_t confirmation_seed(std::uint64_t seed, int k) {
  // A prime stride past the small integers suites and calibrations seed
  // with, and past the data seed a case derives from its own (+1000); short
  // enough to type when reproducing a confirmation with --seed.
  return seed + 7919 * static_cast<std::uint64_t>(k);
}

bool add_confirmation(Verdict& v, const Confirmation& c) {
  v.confirmations.push_back(c);
  if (!c.passed) return false;
  v.passed = true;
  v.overruled_failures = std::move(v.failures);
  v.failures.clear();
  return true;
}

double per_case_false_alarm(double p, const ConfirmationRule& rule) {
  return std::pow(p, 1 + std::max(rule.seeds, 0));
}

double per_run_false_alarm(double p, const ConfirmationRule& rule, int cases) {
  return 1 - std::pow(1 - per_case_false_alarm(p, rule), cases);
}

}  // namespace ampbench
