// Google Benchmark JSON against Google Benchmark JSON: one row per benchmark
// name, on the chosen metric (items_per_second when every repetition has it).
#include <algorithm>

#include "gate/compare.h"
#include "gate/compare_rows.h"

namespace ampbench::gate {
namespace {

// One benchmark's row: presence, errors, or its metric's comparison.
CheckResult benchmark_row(const std::string& id, const BenchSeries* b, const BenchSeries* c, const GateReport& report,
                          const std::string& env_text) {
  const GateOptions& options = report.options;
  if (!c) {
    CheckResult r = skipped_row(id, "presence", options.allow_missing ? "missing (allowed)" : "MISSING",
                                "benchmark is in the baseline but not in the current results",
                                options.allow_missing ? GateVerdict::Warning : GateVerdict::Regression);
    r.baseline = "present";
    r.current = "missing";
    return r;
  }
  if (!b) {
    CheckResult r = skipped_row(id, "presence", "new", "new benchmark", GateVerdict::Pass);
    r.baseline = "-";
    r.current = "present";
    return r;
  }
  BenchMetric metric = options.metric;
  if (metric == BenchMetric::Auto) {
    const auto all_ips = [](const BenchSeries* s) {
      return !s->entries.empty() && std::all_of(s->entries.begin(), s->entries.end(),
                                                [](const BenchEntry& e) { return e.items_per_second.has_value(); });
    };
    metric = all_ips(b) && all_ips(c) ? BenchMetric::ItemsPerSecond : BenchMetric::RealTime;
  }
  const std::string check = to_string(metric);
  if (c->entries.empty()) {
    return skipped_row(id, check, "ERROR",
                       "no successful repetition in the current results (" + std::to_string(c->errors) + " errored)",
                       GateVerdict::Regression);
  }
  if (b->entries.empty()) {
    return skipped_row(id, check, "no baseline", "no successful repetition in the baseline");
  }
  if (options.conformance_only) {
    return skipped_row(id, check, "not gated", "timings not gated (--conformance-only)");
  }
  if (!report.throughput_compared) {
    return skipped_row(id, check, "env mismatch", "not compared: contexts differ (" + env_text + ")");
  }
  std::vector<double> bv;
  std::vector<double> cv;
  bool missing_metric = false;
  const auto extract = [&](const BenchSeries* s, std::vector<double>& out) {
    for (const auto& e : s->entries) {
      if (metric == BenchMetric::RealTime)
        out.push_back(e.real_time_ns);
      else if (metric == BenchMetric::CpuTime)
        out.push_back(e.cpu_time_ns);
      else if (e.items_per_second)
        out.push_back(*e.items_per_second);
      else
        missing_metric = true;
    }
  };
  extract(b, bv);
  extract(c, cv);
  if (missing_metric) {
    return skipped_row(id, check, "no metric", "items_per_second is not reported by every repetition",
                       GateVerdict::Warning);
  }
  const bool higher = metric == BenchMetric::ItemsPerSecond;
  return compare_samples(id, check, bv, cv, higher, options.min_effect, options.alpha, higher ? "items/s" : "ns");
}

}  // namespace

GateReport compare_gbench(const BenchFile& baseline, const BenchFile& current, const GateOptions& options) {
  GateReport report = start_report(InputKind::GoogleBenchmark, baseline.path, current.path, options);

  const auto pairs = pair_by_name(
      baseline.series, current.series, [](const BenchSeries& s) { return s.name; }, baseline.path, current.path,
      "benchmark names", "benchmarks");
  report.env_differences = context_differences(baseline, current);
  report.throughput_compared = report.env_differences.empty() || options.allow_env_mismatch;
  const std::string env_text = join(report.env_differences, ", ");
  if (!report.env_differences.empty()) {
    report.notices.push_back(options.allow_env_mismatch
                                 ? "warning: benchmark contexts differ (" + env_text +
                                       "); comparing anyway (--allow-env-mismatch)"
                                 : "note: benchmark contexts differ (" + env_text +
                                       "); timings not compared (pass --allow-env-mismatch to compare anyway)");
  }

  for (const NamedPair<BenchSeries>& pair : pairs)
    report.checks.push_back(benchmark_row(pair.id, pair.baseline, pair.current, report, env_text));
  finish_report(report);
  return report;
}

}  // namespace ampbench::gate
