#include "gate/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "gate/fdr.h"
#include "gate/format.h"
#include "gate/mann_whitney.h"
#include "gate/run_set.h"
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

namespace {

std::string value_cell(double v, const std::string& unit, std::size_t n) {
  std::string s;
  if (unit == "ns") s = fmt_time_ns(v);
  else if (unit == "samples/s" || unit == "items/s") s = fmt_number(v) + "/s";
  else s = fmt_number(v) + (unit.empty() ? "" : " " + unit);
  return s + " n=" + std::to_string(n);
}

std::string value_text(double v, const std::string& unit) {
  return unit == "ns" ? fmt_time_ns(v) : fmt_number(v) + " " + unit;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string list_ids(const std::vector<std::string>& ids, std::size_t max_shown = 8) {
  std::vector<std::string> shown(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), max_shown)));
  std::string out = join(shown, ", ");
  if (ids.size() > max_shown) out += ", ... (" + std::to_string(ids.size() - max_shown) + " more)";
  return out;
}

CheckResult skipped_row(const std::string& id, const std::string& check, const std::string& label,
                        const std::string& detail, GateVerdict verdict = GateVerdict::Skipped) {
  CheckResult r;
  r.id = id;
  r.check = check;
  r.verdict = verdict;
  r.label = label;
  r.detail = detail;
  return r;
}

// Conformance state of one case in one file.
enum class State { Ok, Fail, Error, Skipped, Absent };

State state_of(const ResultsCase* c) {
  if (!c) return State::Absent;
  if (c->status == "skipped") return State::Skipped;
  if (c->conforms && *c->conforms) return State::Ok;
  return c->status == "error" ? State::Error : State::Fail;
}

const char* cell(State s, bool in_baseline) {
  switch (s) {
    case State::Ok: return "ok";
    case State::Fail: return "FAIL";
    case State::Error: return "ERROR";
    case State::Skipped: return "skipped";
    case State::Absent: return in_baseline ? "-" : "missing";
  }
  return "";
}

std::string why(const ResultsCase& c) {
  std::vector<std::string> parts;
  if (!c.reason.empty()) parts.push_back(c.reason);
  for (const auto& f : c.failures) {
    if (f != c.reason) parts.push_back(f);
  }
  std::string head = "status \"" + c.status + "\"";
  if (c.status != "skipped" && c.status != c.expect) head += " (expected \"" + c.expect + "\")";
  if (parts.empty()) return head;
  return head + ": " + join(parts, "; ");
}

CheckResult conformance_row(const std::string& id, const ResultsCase* b, const ResultsCase* c, const GateOptions& o) {
  CheckResult r;
  r.id = id;
  r.check = "conformance";
  const State sb = state_of(b);
  const State sc = state_of(c);
  r.baseline = cell(sb, true);
  r.current = cell(sc, false);
  const bool c_bad = sc == State::Fail || sc == State::Error;
  const bool b_bad = sb == State::Fail || sb == State::Error;
  if (sc == State::Absent) {
    r.verdict = o.allow_missing ? GateVerdict::Warning : GateVerdict::Regression;
    r.label = o.allow_missing ? "missing (allowed)" : "MISSING";
    r.detail = "case is in the baseline but not in the current results";
  } else if (sb == State::Absent) {
    if (c_bad) {
      r.verdict = GateVerdict::Regression;
      r.label = "NEW FAILURE";
      r.detail = "new case does not conform: " + why(*c);
    } else if (sc == State::Skipped) {
      r.verdict = GateVerdict::Skipped;
      r.label = "new, skipped";
      r.detail = "new case, skipped: " + why(*c);
    } else {
      r.verdict = GateVerdict::Pass;
      r.label = "new";
      r.detail = "new case, conforms";
    }
  } else if (sc == State::Ok) {
    r.verdict = b_bad ? GateVerdict::Improvement : GateVerdict::Pass;
    r.label = b_bad ? "fixed" : "ok";
    r.detail = b_bad ? "conforms again (baseline: " + why(*b) + ")" : "conforms";
  } else if (sc == State::Skipped) {
    if (sb == State::Skipped) {
      r.verdict = GateVerdict::Skipped;
      r.label = "skipped";
      r.detail = "skipped in both: " + why(*c);
    } else {
      r.verdict = o.allow_new_skips ? GateVerdict::Warning : GateVerdict::Regression;
      r.label = o.allow_new_skips ? "newly skipped (allowed)" : "NEWLY SKIPPED";
      r.detail = "ran in the baseline, skipped now: " + why(*c);
    }
  } else {  // current fails or errors
    if (b_bad) {
      r.verdict = GateVerdict::Warning;
      r.label = "known failure";
      r.detail = "fails in the baseline too: " + why(*c);
    } else {
      r.verdict = GateVerdict::Regression;
      r.label = sb == State::Skipped ? "NEW FAILURE" : "REGRESSION";
      r.detail = (sb == State::Skipped ? "skipped in the baseline, fails now: " : "conformed in the baseline, fails now: ") +
                 why(*c);
    }
  }
  return r;
}

// Measurement settings that make two throughput sample sets incomparable.
std::vector<std::string> config_differences(const ResultsCase& b, const ResultsCase& c) {
  std::vector<std::string> out;
  if (b.unit != c.unit) out.push_back("unit \"" + b.unit + "\" vs \"" + c.unit + "\"");
  if (!b.input.empty() && !c.input.empty() && b.input != c.input) {
    out.push_back("input \"" + b.input + "\" vs \"" + c.input + "\"");
  }
  if (b.batch_size && c.batch_size && *b.batch_size != *c.batch_size) {
    out.push_back("batch_size " + std::to_string(*b.batch_size) + " vs " + std::to_string(*c.batch_size));
  }
  if (b.world_size && c.world_size && *b.world_size != *c.world_size) {
    out.push_back("world_size " + std::to_string(*b.world_size) + " vs " + std::to_string(*c.world_size));
  }
  return out;
}

// Medians and change shown for information on rows that are not judged.
void informative_medians(CheckResult& r, const ResultsCase& b, const ResultsCase& c) {
  if (b.samples.empty() || c.samples.empty()) return;
  r.unit = c.unit;
  r.baseline_median = median(b.samples);
  r.current_median = median(c.samples);
  r.n_baseline = b.samples.size();
  r.n_current = c.samples.size();
  r.baseline = value_cell(*r.baseline_median, b.unit, b.samples.size());
  r.current = value_cell(*r.current_median, c.unit, c.samples.size());
  if (*r.baseline_median > 0.0 && b.unit == c.unit) r.change = *r.current_median / *r.baseline_median - 1.0;
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

// The runs both sides measured, lined up by run index.
CheckResult paired_row(const std::string& id, const std::string& check, const ResultsCase& b, const ResultsCase& c,
                       double min_effect, double alpha) {
  std::map<std::size_t, double> by_run;
  for (std::size_t i = 0; i < b.samples.size() && i < b.sample_runs.size(); ++i) by_run[b.sample_runs[i]] = b.samples[i];
  std::vector<double> bv;
  std::vector<double> cv;
  for (std::size_t i = 0; i < c.samples.size() && i < c.sample_runs.size(); ++i) {
    if (const auto it = by_run.find(c.sample_runs[i]); it != by_run.end()) {
      bv.push_back(it->second);
      cv.push_back(c.samples[i]);
    }
  }
  if (bv.empty()) return skipped_row(id, check, "no pairs", "no run measured this case on both sides", GateVerdict::Warning);
  return compare_paired(id, check, bv, cv, min_effect, alpha, c.unit);
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

}  // namespace

namespace {

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

GateReport compare_results(const ResultsFile& baseline, const ResultsFile& current, const GateOptions& options) {
  GateReport report;
  report.kind = InputKind::AmpbenchResults;
  report.baseline_path = baseline.path;
  report.current_path = current.path;
  report.suite = current.suite;
  report.options = options;
  report.baseline_runs = baseline.runs;
  report.current_runs = current.runs;
  report.run_medians = baseline.run_medians && current.run_medians;
  report.notices = baseline.notices;
  report.notices.insert(report.notices.end(), current.notices.begin(), current.notices.end());
  if (options.paired) {
    report.notices.push_back("note: paired runs: run i of the baseline with run i of the current (" +
                             std::to_string(current.runs) +
                             " pairs); Wilcoxon signed-rank test on the per-pair throughput ratios");
  } else if (report.run_medians) {
    report.notices.push_back("note: throughput observations are per-run medians (" +
                             std::to_string(baseline.runs) + " baseline runs, " + std::to_string(current.runs) +
                             " current runs)");
  } else if (baseline.runs > 1 || current.runs > 1) {
    report.notices.push_back("warning: " + std::to_string(baseline.runs) + " baseline run(s) vs " +
                             std::to_string(current.runs) +
                             " current run(s): per-run medians need two or more runs per side, so the repetitions "
                             "are pooled and run-to-run noise is not accounted for");
  }

  std::map<std::string, const ResultsCase*> base_by_id;
  std::map<std::string, const ResultsCase*> cur_by_id;
  std::vector<std::string> base_ids;
  std::vector<std::string> cur_ids;
  for (const auto& c : baseline.cases) {
    base_by_id[c.id] = &c;
    base_ids.push_back(c.id);
  }
  std::size_t common = 0;
  for (const auto& c : current.cases) {
    cur_by_id[c.id] = &c;
    cur_ids.push_back(c.id);
    common += base_by_id.count(c.id);
  }
  if (common == 0) {
    throw GateInputError(current.path, "no case ids in common with the baseline " + baseline.path + " (" +
                                           std::to_string(baseline.cases.size()) + " baseline cases, " +
                                           std::to_string(current.cases.size()) + " current cases)");
  }

  if (baseline.suite != current.suite && !options.allow_suite_mismatch) {
    throw GateInputError(current.path, "suite \"" + current.suite + "\" is not the baseline's \"" + baseline.suite +
                                           "\" (" + baseline.path + "); pass --allow-suite-mismatch to compare "
                                           "the cases they share");
  }
  if (!current.complete && !options.allow_incomplete) {
    throw GateInputError(current.path, "the run did not finish (complete=false); rerun it, or pass "
                                       "--allow-incomplete to gate the cases it has");
  }
  if (baseline.suite != current.suite) {
    report.notices.push_back("note: suites differ (baseline \"" + baseline.suite + "\", current \"" + current.suite +
                             "\"); comparing the cases they share");
  }
  if (!baseline.complete) report.notices.push_back("warning: the baseline results are incomplete (complete=false)");
  if (!current.complete) {
    report.notices.push_back(
        "warning: the current results are incomplete (complete=false): cases not yet run show as missing");
  }

  report.env_differences = env_differences(baseline, current);
  report.throughput_compared = report.env_differences.empty() || options.allow_env_mismatch;
  const std::string env_text = join(report.env_differences, ", ");
  if (options.conformance_only) {
    report.notices.push_back("note: --conformance-only: throughput medians are shown, not gated");
  }
  if (!report.env_differences.empty()) {
    report.notices.push_back(options.allow_env_mismatch
                                 ? "warning: environments differ (" + env_text +
                                       "); comparing throughput anyway (--allow-env-mismatch)"
                                 : "note: environments differ (" + env_text +
                                       "); throughput not compared, conformance only (pass --allow-env-mismatch "
                                       "to compare anyway)");
  }

  for (const auto& id : ordered_ids(base_ids, cur_ids)) {
    const auto bi = base_by_id.find(id);
    const auto ci = cur_by_id.find(id);
    const ResultsCase* b = bi == base_by_id.end() ? nullptr : bi->second;
    const ResultsCase* c = ci == cur_by_id.end() ? nullptr : ci->second;
    report.checks.push_back(conformance_row(id, b, c, options));
    if (!b || !c) continue;

    const bool b_has = b->has_throughput && !b->samples.empty();
    const bool c_has = c->has_throughput && !c->samples.empty();
    if (!b_has && !c_has) continue;
    const std::string check = "throughput";
    if (options.conformance_only) {
      CheckResult r = skipped_row(id, check, "not gated", "throughput shown, not gated (--conformance-only)");
      informative_medians(r, *b, *c);
      report.checks.push_back(r);
    } else if (!report.throughput_compared) {
      CheckResult r = skipped_row(id, check, "env mismatch", "not compared: environments differ (" + env_text + ")");
      informative_medians(r, *b, *c);
      report.checks.push_back(r);
    } else if (!c_has) {
      if (c->status == "skipped") {
        report.checks.push_back(skipped_row(id, check, "skipped", "case skipped in the current results"));
      } else {
        report.checks.push_back(skipped_row(id, check, "not measured",
                                            "measured in the baseline, not in the current results",
                                            GateVerdict::Warning));
      }
    } else if (!b_has) {
      report.checks.push_back(skipped_row(id, check, "no baseline", "not measured in the baseline"));
    } else if (const auto diffs = config_differences(*b, *c); !diffs.empty()) {
      report.checks.push_back(
          skipped_row(id, check, "not comparable", "measurement settings differ: " + join(diffs, ", ")));
    } else {
      const double min_effect = c->min_effect       ? *c->min_effect
                                : current.suite_min_effect ? *current.suite_min_effect
                                                           : options.min_effect;
      report.checks.push_back(options.paired ? paired_row(id, check, *b, *c, min_effect, options.alpha)
                                             : compare_samples(id, check, b->samples, c->samples, true, min_effect,
                                                               options.alpha, c->unit, report.run_medians));
    }
  }
  apply_correction(report);
  add_sample_notices(report);
  return report;
}

GateReport compare_gbench(const BenchFile& baseline, const BenchFile& current, const GateOptions& options) {
  GateReport report;
  report.kind = InputKind::GoogleBenchmark;
  report.baseline_path = baseline.path;
  report.current_path = current.path;
  report.options = options;

  std::map<std::string, const BenchSeries*> base_by;
  std::map<std::string, const BenchSeries*> cur_by;
  std::vector<std::string> base_ids;
  std::vector<std::string> cur_ids;
  for (const auto& s : baseline.series) {
    base_by[s.name] = &s;
    base_ids.push_back(s.name);
  }
  std::size_t common = 0;
  for (const auto& s : current.series) {
    cur_by[s.name] = &s;
    cur_ids.push_back(s.name);
    common += base_by.count(s.name);
  }
  if (common == 0) {
    throw GateInputError(current.path, "no benchmark names in common with the baseline " + baseline.path + " (" +
                                           std::to_string(baseline.series.size()) + " baseline benchmarks, " +
                                           std::to_string(current.series.size()) + " current benchmarks)");
  }
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

  for (const auto& id : ordered_ids(base_ids, cur_ids)) {
    const auto bi = base_by.find(id);
    const auto ci = cur_by.find(id);
    const BenchSeries* b = bi == base_by.end() ? nullptr : bi->second;
    const BenchSeries* c = ci == cur_by.end() ? nullptr : ci->second;
    if (!c) {
      CheckResult r = skipped_row(id, "presence", options.allow_missing ? "missing (allowed)" : "MISSING",
                                  "benchmark is in the baseline but not in the current results",
                                  options.allow_missing ? GateVerdict::Warning : GateVerdict::Regression);
      r.baseline = "present";
      r.current = "missing";
      report.checks.push_back(r);
      continue;
    }
    if (!b) {
      CheckResult r = skipped_row(id, "presence", "new", "new benchmark", GateVerdict::Pass);
      r.baseline = "-";
      r.current = "present";
      report.checks.push_back(r);
      continue;
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
      report.checks.push_back(skipped_row(id, check, "ERROR",
                                          "no successful repetition in the current results (" +
                                              std::to_string(c->errors) + " errored)",
                                          GateVerdict::Regression));
      continue;
    }
    if (b->entries.empty()) {
      report.checks.push_back(skipped_row(id, check, "no baseline", "no successful repetition in the baseline"));
      continue;
    }
    if (options.conformance_only) {
      report.checks.push_back(skipped_row(id, check, "not gated", "timings not gated (--conformance-only)"));
      continue;
    }
    if (!report.throughput_compared) {
      report.checks.push_back(skipped_row(id, check, "env mismatch", "not compared: contexts differ (" + env_text + ")"));
      continue;
    }
    std::vector<double> bv;
    std::vector<double> cv;
    bool missing_metric = false;
    const auto extract = [&](const BenchSeries* s, std::vector<double>& out) {
      for (const auto& e : s->entries) {
        if (metric == BenchMetric::RealTime) out.push_back(e.real_time_ns);
        else if (metric == BenchMetric::CpuTime) out.push_back(e.cpu_time_ns);
        else if (e.items_per_second) out.push_back(*e.items_per_second);
        else missing_metric = true;
      }
    };
    extract(b, bv);
    extract(c, cv);
    if (missing_metric) {
      report.checks.push_back(skipped_row(id, check, "no metric", "items_per_second is not reported by every repetition",
                                          GateVerdict::Warning));
      continue;
    }
    const bool higher = metric == BenchMetric::ItemsPerSecond;
    report.checks.push_back(
        compare_samples(id, check, bv, cv, higher, options.min_effect, options.alpha, higher ? "items/s" : "ns"));
  }
  apply_correction(report);
  add_sample_notices(report);
  return report;
}

namespace {

struct Side {
  std::vector<std::string> paths;
  std::vector<nlohmann::json> docs;
  std::vector<InputKind> kinds;
};

Side load_side(const std::vector<std::string>& paths, const char* which) {
  if (paths.empty()) throw GateInputError(std::string("--") + which, "no file given");
  Side side{paths, {}, {}};
  for (const auto& p : paths) {
    side.docs.push_back(read_json_file(p));
    side.kinds.push_back(detect_kind(side.docs.back()));
  }
  return side;
}

std::vector<ResultsFile> parse_side(const Side& side) {
  std::vector<ResultsFile> runs;
  for (std::size_t i = 0; i < side.docs.size(); ++i) runs.push_back(parse_results(side.docs[i], side.paths[i]));
  return runs;
}

}  // namespace

GateReport compare_files(const std::vector<std::string>& baseline_paths, const std::vector<std::string>& current_paths,
                         const GateOptions& options) {
  const Side base = load_side(baseline_paths, "baseline");
  const Side cur = load_side(current_paths, "current");
  const InputKind kind = base.kinds[0];
  for (const Side* side : {&base, &cur}) {
    for (std::size_t i = 0; i < side->docs.size(); ++i) {
      if (side->kinds[i] == kind) continue;
      // Validate each on its own first so a broken file is named for what it is.
      if (kind == InputKind::AmpbenchResults) parse_results(base.docs[0], base.paths[0]);
      if (side->kinds[i] == InputKind::AmpbenchResults) parse_results(side->docs[i], side->paths[i]);
      throw GateInputError(side->paths[i], std::string("is ") + to_string(side->kinds[i]) + " but the baseline " +
                                               base.paths[0] + " is " + to_string(kind) +
                                               "; compare files of one kind");
    }
  }
  if (kind == InputKind::GoogleBenchmark) {
    if (options.paired) {
      throw GateInputError(cur.paths[0], "--paired pairs runs of ampbench results; Google Benchmark JSON holds its "
                                         "repetitions in one file");
    }
    for (const Side* side : {&base, &cur}) {
      if (side->paths.size() > 1) {
        throw GateInputError(side->paths[1], "one Google Benchmark file per side: repeat inside one file with "
                                             "--benchmark_repetitions instead");
      }
    }
    return compare_gbench(parse_gbench(base.docs[0], base.paths[0]), parse_gbench(cur.docs[0], cur.paths[0]), options);
  }
  if (options.paired && (base.paths.size() != cur.paths.size() || cur.paths.size() < 2)) {
    throw GateInputError(cur.paths.back(), "--paired needs the same number of runs on both sides, at least 2 (got " +
                                               std::to_string(base.paths.size()) + " baseline, " +
                                               std::to_string(cur.paths.size()) + " current)");
  }
  const bool per_run = use_run_medians(base.paths.size(), cur.paths.size());
  return compare_results(merge_runs(parse_side(base), per_run), merge_runs(parse_side(cur), per_run), options);
}

GateReport compare_files(const std::string& baseline_path, const std::string& current_path,
                         const GateOptions& options) {
  return compare_files(std::vector<std::string>{baseline_path}, std::vector<std::string>{current_path}, options);
}

}  // namespace ampbench::gate
