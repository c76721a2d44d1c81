#include "gate/compare.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "gate/compare_rows.h"
#include "gate/fdr.h"
#include "gate/format.h"
#include "gate/mann_whitney.h"
#include "gate/wilcoxon.h"

namespace ampbench::gate {

const char* to_string(GateVerdict v) {
  switch (v) {
    case GateVerdict::Pass: return "pass";
    case GateVerdict::Improvement: return "improvement";
    case GateVerdict::Skipped: return "skipped";
    case GateVerdict::Warning: return "warning";
    case GateVerdict::Regression: return "regression";
  }
  return "pass";
}

std::size_t GateReport::count(GateVerdict v) const {
  return static_cast<std::size_t>(
      std::count_if(checks.begin(), checks.end(), [v](const CheckResult& c) { return c.verdict == v; }));
}

std::size_t GateReport::count(GateVerdict v, const std::string& check) const {
  return static_cast<std::size_t>(std::count_if(checks.begin(), checks.end(), [&](const CheckResult& c) {
    return c.verdict == v && c.check == check;
  }));
}

std::size_t repetitions_needed(double alpha) {
  for (std::size_t k = 1; k < 1000; ++k) {
    if (mwu_min_attainable_p(k, k) < alpha) return k;
  }
  return 1000;
}

std::string value_cell(double v, const std::string& unit, std::size_t n) {
  std::string s;
  if (unit == "ns") s = fmt_time_ns(v);
  else if (unit == "samples/s" || unit == "items/s") s = fmt_number(v) + "/s";
  else s = fmt_number(v) + (unit.empty() ? "" : " " + unit);
  return s + " n=" + std::to_string(n);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

CheckResult skipped_row(const std::string& id, const std::string& check, const std::string& label,
                        const std::string& detail, GateVerdict verdict) {
  CheckResult r;
  r.id = id;
  r.check = check;
  r.verdict = verdict;
  r.label = label;
  r.detail = detail;
  return r;
}

std::vector<std::string> ordered_ids(const std::vector<std::string>& baseline_ids,
                                     const std::vector<std::string>& current_ids) {
  std::vector<std::string> order = current_ids;
  const std::set<std::string> in_current(current_ids.begin(), current_ids.end());
  for (const auto& id : baseline_ids) {
    if (!in_current.count(id)) order.push_back(id);
  }
  return order;
}

namespace {

std::string value_text(double v, const std::string& unit) {
  return unit == "ns" ? fmt_time_ns(v) : fmt_number(v) + " " + unit;
}

std::string list_ids(const std::vector<std::string>& ids, std::size_t max_shown = 8) {
  std::vector<std::string> shown(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), max_shown)));
  std::string out = join(shown, ", ");
  if (ids.size() > max_shown) out += ", ... (" + std::to_string(ids.size() - max_shown) + " more)";
  return out;
}

void add_sample_notices(GateReport& report) {
  std::vector<std::string> insufficient;
  for (const auto& c : report.checks) {
    if (c.label.rfind("insufficient ", 0) == 0) insufficient.push_back(c.id);
  }
  if (!insufficient.empty()) {
    const std::string what = report.options.paired ? "pairs" : report.run_medians ? "runs" : "repetitions";
    std::size_t needed = repetitions_needed(report.options.alpha);
    if (report.options.paired) {
      needed = 1;
      while (needed < 1000 && wilcoxon_min_attainable_p(needed) >= report.options.alpha) ++needed;
    }
    report.notices.push_back(
        "warning: insufficient " + what + " for " + std::to_string(insufficient.size()) +
        " comparison(s): with so few samples no p-value can fall below alpha " + fmt_number(report.options.alpha) +
        ", so they were not judged (use at least " + std::to_string(needed) + " " +
        what + (report.options.paired ? "" : " per side") + "): " + list_ids(insufficient));
  }
}

// Regression, improvement or ok from the change already in `r` and its
// p-value, or its q-value once the report's rows have been corrected.
void decide(CheckResult& r, double alpha) {
  const double p = r.q_value ? *r.q_value : *r.p_value;
  const bool significant = p < alpha;
  const std::string numbers = r.evidence + (r.q_value ? ", Benjamini-Hochberg q=" + fmt_p(r.q_value) : "");
  // Positive "worse" means the median moved in the bad direction.
  const double worse = r.higher_is_better ? -*r.change : *r.change;
  if (significant && worse > r.min_effect) {
    r.verdict = GateVerdict::Regression;
    r.label = "REGRESSION";
    r.detail = "slower: " + numbers;
  } else if (significant && -worse > r.min_effect) {
    r.verdict = GateVerdict::Improvement;
    r.label = "improved";
    r.detail = "faster: " + numbers;
  } else {
    r.verdict = GateVerdict::Pass;
    r.label = "ok";
    r.detail = (significant ? "significant but within the min effect: " : "no significant change: ") + numbers;
  }
}

// A row the test could judge: enough samples and a baseline median.
bool judged(const CheckResult& r, double alpha) {
  return r.p_value && r.min_attainable_p && *r.min_attainable_p < alpha && r.change;
}

// The verdict of a freshly tested row from r.evidence. `what` names the
// observations ("repetitions", "runs", "pairs") in the insufficient-sample
// warning.
void judge(CheckResult& r, double alpha, const std::string& what, const std::string& sizes) {
  if (*r.min_attainable_p >= alpha) {
    r.verdict = GateVerdict::Warning;
    r.label = "insufficient " + (what == "repetitions" ? std::string("reps") : what);
    r.detail = "insufficient " + what + ": the smallest p-value attainable with n=" + sizes + " is " +
               fmt_p(r.min_attainable_p) + " >= alpha " + fmt_number(alpha) + "; not judged (" + r.evidence + ")";
  } else if (!r.change) {
    r.verdict = GateVerdict::Warning;
    r.label = "no baseline";
    r.detail = "baseline median is 0; not judged (" + r.evidence + ")";
  } else {
    decide(r, alpha);
  }
}

// Replaces each judged row's significance with its Benjamini-Hochberg
// q-value over all judged rows of the report.
void apply_correction(GateReport& report) {
  if (report.options.correction != Correction::BenjaminiHochberg) return;
  std::vector<CheckResult*> rows;
  std::vector<double> p;
  for (auto& c : report.checks) {
    if (judged(c, report.options.alpha)) {
      rows.push_back(&c);
      p.push_back(*c.p_value);
    }
  }
  const std::vector<double> q = benjamini_hochberg(p);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i]->q_value = q[i];
    decide(*rows[i], report.options.alpha);
  }
}

CheckResult sample_row(const std::string& id, const std::string& check, const std::vector<double>& baseline,
                       const std::vector<double>& current, bool higher_is_better, double min_effect,
                       const std::string& unit) {
  CheckResult r;
  r.id = id;
  r.check = check;
  r.unit = unit;
  r.higher_is_better = higher_is_better;
  r.min_effect = min_effect;
  r.n_baseline = baseline.size();
  r.n_current = current.size();
  r.baseline_median = median(baseline);
  r.current_median = median(current);
  r.baseline = value_cell(*r.baseline_median, unit, baseline.size());
  r.current = value_cell(*r.current_median, unit, current.size());
  return r;
}

}  // namespace

GateReport start_report(InputKind kind, const std::string& baseline_path, const std::string& current_path,
                        const GateOptions& options) {
  GateReport report;
  report.kind = kind;
  report.baseline_path = baseline_path;
  report.current_path = current_path;
  report.options = options;
  return report;
}

void finish_report(GateReport& report) {
  apply_correction(report);
  add_sample_notices(report);
}

CheckResult compare_samples(const std::string& id, const std::string& check, const std::vector<double>& baseline,
                            const std::vector<double>& current, bool higher_is_better, double min_effect,
                            double alpha, const std::string& unit, bool per_run) {
  CheckResult r = sample_row(id, check, baseline, current, higher_is_better, min_effect, unit);
  if (*r.baseline_median > 0.0) r.change = *r.current_median / *r.baseline_median - 1.0;
  const MannWhitneyResult u = mann_whitney_u(baseline, current);
  r.p_value = u.p_value;
  r.min_attainable_p = mwu_min_attainable_p(baseline.size(), current.size());
  const std::string sizes = std::to_string(baseline.size()) + "/" + std::to_string(current.size());
  r.evidence = "median " + value_text(*r.baseline_median, unit) + " -> " +
                              value_text(*r.current_median, unit) +
                              (r.change ? " (" + fmt_percent(r.change) + ")" : "") + ", p=" + fmt_p(r.p_value) +
                              (u.exact ? " exact" : " normal approx.") + ", alpha " + fmt_number(alpha) +
                              ", min effect " + fmt_percent(min_effect).substr(1) + ", n=" + sizes +
                              (per_run ? " runs" : "");
  judge(r, alpha, per_run ? "runs" : "repetitions", sizes);
  return r;
}

CheckResult compare_paired(const std::string& id, const std::string& check, const std::vector<double>& baseline,
                           const std::vector<double>& current, double min_effect, double alpha,
                           const std::string& unit) {
  if (baseline.size() != current.size() || baseline.empty()) {
    throw std::invalid_argument("compare_paired: needs two equally long, non-empty series");
  }
  CheckResult r = sample_row(id, check, baseline, current, true, min_effect, unit);
  std::vector<double> ratios;
  std::vector<double> log_ratios;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (!(baseline[i] > 0.0) || !(current[i] > 0.0)) continue;
    ratios.push_back(current[i] / baseline[i]);
    log_ratios.push_back(std::log(ratios.back()));
  }
  const std::string sizes = std::to_string(baseline.size()) + " pairs";
  if (ratios.empty()) {
    r.verdict = GateVerdict::Warning;
    r.label = "no baseline";
    r.detail = "no pair has a positive throughput on both sides; not judged";
    return r;
  }
  // The change is the typical within-pair ratio, not a ratio of medians:
  // each pair ran at the same moment, so only its ratio is free of drift.
  r.change = median(ratios) - 1.0;
  const WilcoxonResult w = wilcoxon_signed_rank(log_ratios);
  r.p_value = w.p_value;
  r.min_attainable_p = wilcoxon_min_attainable_p(ratios.size());
  r.evidence = "median " + value_text(*r.baseline_median, unit) + " -> " +
                              value_text(*r.current_median, unit) + ", median pair ratio " +
                              fmt_percent(r.change) + ", Wilcoxon signed-rank p=" + fmt_p(r.p_value) +
                              (w.exact ? " exact" : " normal approx.") + ", alpha " + fmt_number(alpha) +
                              ", min effect " + fmt_percent(min_effect).substr(1) + ", n=" + sizes;
  judge(r, alpha, "pairs", sizes);
  return r;
}

}  // namespace ampbench::gate
