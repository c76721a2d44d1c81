#include "results/case_result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/sample_stats.h"

namespace ampbench {
namespace {

CaseStatus status_of(const CaseRecord& r, const std::optional<Verdict>& v) {
  switch (r.status) {
    case RunStatus::kSkipped: return CaseStatus::kSkipped;
    case RunStatus::kError: return CaseStatus::kError;
    case RunStatus::kRan: break;
  }
  return !v || v->passed ? CaseStatus::kPass : CaseStatus::kFail;
}

std::string fixed2(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

// "passed on fresh seeds: at the suite's seed 1.32x its bound (...); within
// it at seed 7920 (0.61x)".
std::string cleared_reason(const Verdict& v) {
  const Confirmation& last = v.confirmations.back();
  std::string out = "passed on fresh seeds: at the suite's seed " + fixed2(v.max_ratio) + "x its bound (" +
                    v.overruled_failures.front() + ")";
  for (const Confirmation& c : v.confirmations)
    if (&c != &last) out += "; " + fixed2(c.max_ratio) + "x at seed " + std::to_string(c.seed);
  return out + "; within it at seed " + std::to_string(last.seed) + " (" + fixed2(last.max_ratio) + "x)";
}

std::optional<double> ceiling(const Ceilings& ceilings, const std::string& precision) {
  const auto it = ceilings.find(precision);
  if (it == ceilings.end() || !(it->second > 0)) return std::nullopt;
  return it->second;
}

}  // namespace

ThroughputStats throughput_stats(const ThroughputRecord& t) {
  const std::vector<double>& s = t.samples_per_s;
  ThroughputStats out;
  if (s.empty()) return out;
  out.median = median(s);
  out.mean = mean_of(s);
  out.min = *std::min_element(s.begin(), s.end());
  out.max = *std::max_element(s.begin(), s.end());
  out.iqr = iqr_of(s);
  out.stddev = stddev_of(s);
  out.cv = out.mean > 0 ? out.stddev / out.mean : 0.0;
  out.step_time_ms = out.median > 0 ? 1e3 * t.samples_per_step / out.median : 0.0;
  out.achieved_flops_per_s = out.median * t.training_flops_per_sample;
  return out;
}

std::optional<double> CaseResult::max_ratio() const {
  if (!verdict) return std::nullopt;
  return std::isfinite(verdict->max_ratio) ? verdict->max_ratio : INFINITY;
}

CaseResult make_case_result(CaseRecord record, std::optional<Verdict> verdict,
                            std::optional<EngagementSummary> engagement, std::optional<double> fp32_median,
                            const Ceilings& ceilings) {
  CaseResult r;
  r.status = status_of(record, verdict);
  // A reported-only verdict (O3) conforms either way: it is shown, not required.
  if (r.status == CaseStatus::kPass || r.status == CaseStatus::kFail)
    r.conforms = record.spec.expect == Expect::kReport ||
                 (r.status == CaseStatus::kFail) == (record.spec.expect == Expect::kFail);
  if (r.status == CaseStatus::kError) r.conforms = false;
  r.reason = record.reason;
  if (r.status == CaseStatus::kFail && verdict && !verdict->failures.empty()) r.reason = verdict->failures.front();
  if (r.status == CaseStatus::kPass && verdict && !verdict->overruled_failures.empty())
    r.reason = cleared_reason(*verdict);
  if (record.throughput) {
    ThroughputStats t = throughput_stats(*record.throughput);
    if (fp32_median && *fp32_median > 0) t.speedup_vs_fp32 = t.median / *fp32_median;
    if (const auto own = ceiling(ceilings, record.spec.precision.ceiling_name())) {
      t.model_flop_utilization = t.achieved_flops_per_s / *own;
      if (const auto fp32 = ceiling(ceilings, "fp32")) t.ceiling_speedup_vs_fp32 = *own / *fp32;
    }
    r.throughput = t;
  }
  r.record = std::move(record);
  r.verdict = std::move(verdict);
  r.engagement = std::move(engagement);
  return r;
}

}  // namespace ampbench
