#include "check/convergence_verdict.h"

#include <stdexcept>

namespace ampbench {

Verdict convergence_verdict(const CaseRecord& record, const CaseRecord& baseline) {
  if (!record.convergence || !baseline.convergence || !record.spec.convergence)
    throw std::invalid_argument("convergence verdict of " + record.spec.id + ": a record has no convergence runs");
  ConvergenceSummary summary = check_convergence(*record.convergence, *baseline.convergence, *record.spec.convergence);
  Verdict v;
  for (const ConvergenceCriterion& k : summary.criteria) {
    MetricCheck m;
    m.name = k.name;
    m.distance = {k.value};
    m.bound = {k.limit};
    m.max_ratio = k.ratio;
    v.checks.push_back(std::move(m));
  }
  v.metrics = {{"steps_to_target_mean", summary.candidate.steps_mean},
               {"fp32_steps_to_target_mean", summary.reference.steps_mean},
               {"final_accuracy_mean", summary.candidate.accuracy_mean},
               {"fp32_final_accuracy_mean", summary.reference.accuracy_mean},
               {"seeds_missed", summary.candidate.missed}};
  v.max_ratio = summary.max_ratio;
  v.failures = summary.failures;
  v.passed = v.failures.empty();
  v.convergence = std::move(summary);
  return v;
}

}  // namespace ampbench
