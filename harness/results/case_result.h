// CaseResult: one case's outcome, typed and computed once. The checker's
// verdict, the engagement summary, the status the results report, and the
// throughput statistics (median, spread, speedup over fp32, utilisation of
// the measured ceiling). The writer only serialises it; the progress line
// and the run's summary read it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "check/checker.h"
#include "check/engagement.h"
#include "results/case_status.h"
#include "runner/case_record.h"

namespace ampbench {


// Measured matrix ceilings per precision ("fp32", "bf16", ...), FLOP/s
// (`ampbench qualify`); empty without them.
using Ceilings = std::map<std::string, double>;

struct ThroughputStats {
  double median = 0, mean = 0, min = 0, max = 0, iqr = 0, stddev = 0, cv = 0;
  double step_time_ms = 0;
  double achieved_flops_per_s = 0;
  std::optional<double> speedup_vs_fp32;          // median over the fp32 baseline's median
  std::optional<double> model_flop_utilization;   // achieved over this precision's ceiling
  std::optional<double> ceiling_speedup_vs_fp32;  // what the ceilings promise over fp32
};

// From the samples alone (speedup and utilisation are set by with_context).
ThroughputStats throughput_stats(const ThroughputRecord& t);

struct CaseResult {
  CaseRecord record;
  std::optional<Verdict> verdict;                 // non-baselines that ran
  std::optional<EngagementSummary> engagement;    // cases that ran
  CaseStatus status = CaseStatus::kSkipped;
  std::optional<bool> conforms;                   // none for a skipped case
  std::string reason;                             // why not "pass": the first failure, error or skip reason
  std::optional<ThroughputStats> throughput;

  const std::string& id() const { return record.spec.id; }
  bool is_control() const { return record.spec.expect == Expect::kFail; }
  // The verdict's largest distance/bound over its metrics (infinity when not
  // finite); none without a verdict.
  std::optional<double> max_ratio() const;
};

// Status, conformance and reason from the record and verdict; throughput
// statistics from the samples, with the speedup over `fp32_median` (the
// baseline's median samples/s, when measured) and utilisation of `ceilings`.
CaseResult make_case_result(CaseRecord record, std::optional<Verdict> verdict,
                            std::optional<EngagementSummary> engagement, std::optional<double> fp32_median,
                            const Ceilings& ceilings);

}  // namespace ampbench
