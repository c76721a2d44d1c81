// ampbench results against results: a conformance row per case, and a
// throughput row per case both sides measured.
#include <map>
#include <optional>

#include "gate/compare.h"
#include "gate/compare_rows.h"
#include "gate/format.h"
#include "gate/mann_whitney.h"
#include "gate/run_set.h"

namespace ampbench::gate {
namespace {

// Conformance state of one case in one file.
enum class State { Ok, Fail, Error, Skipped, Absent };

State state_of(const ResultsCase* c) {
  if (!c) return State::Absent;
  if (c->status == CaseStatus::kSkipped) return State::Skipped;
  if (c->conforms && *c->conforms) return State::Ok;
  return c->status == CaseStatus::kError ? State::Error : State::Fail;
}

const char* cell(State s, bool in_baseline) {
  switch (s) {
    case State::Ok:
      return "ok";
    case State::Fail:
      return "FAIL";
    case State::Error:
      return "ERROR";
    case State::Skipped:
      return "skipped";
    case State::Absent:
      return in_baseline ? "-" : "missing";
  }
  return "";
}

std::string why(const ResultsCase& c) {
  std::vector<std::string> parts;
  if (!c.reason.empty()) parts.push_back(c.reason);
  for (const auto& f : c.failures) {
    if (f != c.reason) parts.push_back(f);
  }
  std::string head = "status \"" + to_string(c.status) + "\"";
  const bool as_expected = (c.status == CaseStatus::kPass && c.expect == Expect::kPass) ||
                           (c.status == CaseStatus::kFail && c.expect == Expect::kFail);
  if (c.status != CaseStatus::kSkipped && !as_expected) head += " (expected \"" + to_string(c.expect) + "\")";
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
      r.detail =
          (sb == State::Skipped ? "skipped in the baseline, fails now: " : "conformed in the baseline, fails now: ") +
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

// The runs both sides measured, lined up by run index.
CheckResult paired_row(const std::string& id, const std::string& check, const ResultsCase& b, const ResultsCase& c,
                       double min_effect, double alpha) {
  std::map<std::size_t, double> by_run;
  for (std::size_t i = 0; i < b.samples.size() && i < b.sample_runs.size(); ++i)
    by_run[b.sample_runs[i]] = b.samples[i];
  std::vector<double> bv;
  std::vector<double> cv;
  for (std::size_t i = 0; i < c.samples.size() && i < c.sample_runs.size(); ++i) {
    if (const auto it = by_run.find(c.sample_runs[i]); it != by_run.end()) {
      bv.push_back(it->second);
      cv.push_back(c.samples[i]);
    }
  }
  if (bv.empty())
    return skipped_row(id, check, "no pairs", "no run measured this case on both sides", GateVerdict::Warning);
  return compare_paired(id, check, bv, cv, min_effect, alpha, c.unit);
}

bool has_samples(const ResultsFile& f) {
  for (const ResultsCase& c : f.cases)
    if (c.has_throughput && !c.samples.empty()) return true;
  return false;
}

// A current run measured without throughput (--no-throughput) against a
// baseline that has it turned every throughput row into a warning and passed.
void refuse_current_without_samples(const ResultsFile& baseline, const ResultsFile& current,
                                    const GateOptions& options) {
  if (options.conformance_only || !has_samples(baseline) || has_samples(current)) return;
  throw GateInputError(current.path,
                       "holds no throughput samples, while the baseline has them (a --no-throughput run?): "
                       "rerun with throughput, or gate conformance alone with --conformance-only");
}

// Refuses results that cannot be compared as asked (another suite, an
// unfinished run), then says how the throughput observations are read and
// what differs between the sides.
void add_results_notices(GateReport& report, const ResultsFile& baseline, const ResultsFile& current,
                         const GateOptions& options) {
  if (options.paired) {
    report.notices.push_back("note: paired runs: run i of the baseline with run i of the current (" +
                             std::to_string(current.runs) +
                             " pairs); Wilcoxon signed-rank test on the per-pair throughput ratios");
  } else if (report.run_medians) {
    report.notices.push_back("note: throughput observations are per-run medians (" + std::to_string(baseline.runs) +
                             " baseline runs, " + std::to_string(current.runs) + " current runs)");
  } else if (baseline.runs > 1 || current.runs > 1) {
    report.notices.push_back("warning: " + std::to_string(baseline.runs) + " baseline run(s) vs " +
                             std::to_string(current.runs) +
                             " current run(s): per-run medians need two or more runs per side, so the repetitions "
                             "are pooled and run-to-run noise is not accounted for");
  }

  if (baseline.suite != current.suite && !options.allow_suite_mismatch) {
    throw GateInputError(current.path, "suite \"" + current.suite + "\" is not the baseline's \"" + baseline.suite +
                                           "\" (" + baseline.path +
                                           "); pass --allow-suite-mismatch to compare "
                                           "the cases they share");
  }
  if (!current.complete && !options.allow_incomplete) {
    throw GateInputError(current.path,
                         "the run did not finish (complete=false); rerun it, or pass "
                         "--allow-incomplete to gate the cases it has");
  }
  if (!baseline.complete && !options.allow_incomplete_baseline) {
    throw GateInputError(baseline.path,
                         "the baseline run did not finish (complete=false): its missing cases would pass as new; "
                         "store a complete run, or pass --allow-incomplete-baseline");
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
  if (report.throughput_compared) refuse_current_without_samples(baseline, current, options);
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
}

// A compiled case's graph breaks on both sides: more than the baseline's is
// a regression (an upgrade that breaks the graph falls back to eager where
// it compiled before), fewer an improvement.
std::optional<CheckResult> graph_break_row(const std::string& id, const ResultsCase& b, const ResultsCase& c) {
  if (!b.graph_breaks || !c.graph_breaks) return std::nullopt;
  CheckResult r;
  r.id = id;
  r.check = "graph_breaks";
  const std::size_t nb = b.graph_breaks->size();
  const std::size_t nc = c.graph_breaks->size();
  r.baseline = std::to_string(nb);
  r.current = std::to_string(nc);
  r.verdict = nc > nb ? GateVerdict::Regression : nc < nb ? GateVerdict::Improvement : GateVerdict::Pass;
  r.label = nc > nb ? "MORE BREAKS" : nc < nb ? "fewer breaks" : "ok";
  r.detail = "torch.compile graph breaks " + r.baseline + " -> " + r.current;
  if (nc > nb) r.detail += " (first new: " + c.graph_breaks->at(nb) + ")";
  return r;
}

// The throughput row of a case on both sides, or none when neither measured it.
std::optional<CheckResult> throughput_row(const std::string& id, const ResultsCase& b, const ResultsCase& c,
                                          const GateReport& report, const ResultsFile& current,
                                          const std::string& env_text) {
  const GateOptions& options = report.options;
  const bool b_has = b.has_throughput && !b.samples.empty();
  const bool c_has = c.has_throughput && !c.samples.empty();
  if (!b_has && !c_has) return std::nullopt;
  const std::string check = "throughput";
  if (options.conformance_only) {
    CheckResult r = skipped_row(id, check, "not gated", "throughput shown, not gated (--conformance-only)");
    informative_medians(r, b, c);
    return r;
  } else if (!report.throughput_compared) {
    CheckResult r = skipped_row(id, check, "env mismatch", "not compared: environments differ (" + env_text + ")");
    informative_medians(r, b, c);
    return r;
  } else if (!c_has) {
    if (c.status == CaseStatus::kSkipped) {
      return skipped_row(id, check, "skipped", "case skipped in the current results");
    } else {
      return skipped_row(id, check, "not measured", "measured in the baseline, not in the current results",
                         GateVerdict::Warning);
    }
  } else if (!b_has) {
    return skipped_row(id, check, "no baseline", "not measured in the baseline");
  } else if (const auto diffs = config_differences(b, c); !diffs.empty()) {
    return skipped_row(id, check, "not comparable", "measurement settings differ: " + join(diffs, ", "));
  } else {
    const double min_effect = c.min_effect               ? *c.min_effect
                              : current.suite_min_effect ? *current.suite_min_effect
                                                         : options.min_effect;
    return options.paired ? paired_row(id, check, b, c, min_effect, options.alpha)
                          : compare_samples(id, check, b.samples, c.samples, true, min_effect, options.alpha, c.unit,
                                            report.run_medians);
  }
}

}  // namespace

GateReport compare_results(const ResultsFile& baseline, const ResultsFile& current, const GateOptions& options) {
  GateReport report = start_report(InputKind::AmpbenchResults, baseline.path, current.path, options);
  report.suite = current.suite;
  report.baseline_runs = baseline.runs;
  report.current_runs = current.runs;
  report.run_medians = baseline.run_medians && current.run_medians;
  report.notices = baseline.notices;
  report.notices.insert(report.notices.end(), current.notices.begin(), current.notices.end());
  const auto pairs = pair_by_name(
      baseline.cases, current.cases, [](const ResultsCase& c) { return c.id; }, baseline.path, current.path, "case ids",
      "cases");
  add_results_notices(report, baseline, current, options);
  const std::string env_text = join(report.env_differences, ", ");
  for (const NamedPair<ResultsCase>& pair : pairs) {
    report.checks.push_back(conformance_row(pair.id, pair.baseline, pair.current, options));
    if (pair.baseline && pair.current) {
      if (auto row = throughput_row(pair.id, *pair.baseline, *pair.current, report, current, env_text))
        report.checks.push_back(*row);
      if (auto row = graph_break_row(pair.id, *pair.baseline, *pair.current)) report.checks.push_back(*row);
    }
  }
  finish_report(report);
  return report;
}

}  // namespace ampbench::gate
