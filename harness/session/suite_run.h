// Runs a suite's cases in order: each fp32 baseline once (kept in memory and
// reused by every precision), each other case checked against it, every
// result written out as soon as it exists.
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "check/confirmation.h"
#include "results/results_file.h"
#include "results/results_writer.h"
#include "runner/runner.h"
#include "session/compiled_case.h"
#include "suite/suite.h"

namespace ampbench {

// What the summary counts of one case: from its CaseResult, or from the
// JSON a rank process wrote.
struct CaseTally {
  std::string id;
  CaseStatus status = CaseStatus::kError;
  bool control = false;
  bool reported = false;  // a reported-only verdict (O3): shown, not required
  bool conforms = false;
  std::optional<double> max_ratio;  // none without a verdict
  int confirmations = 0;            // fresh-seed runs of a borderline case (check/confirmation.h)
  bool cleared = false;             // ...one of which passed
  bool audited = false;  // failed a scale audit: an exact rule, whatever its distances
};
CaseTally tally_of(const CaseResult& result);
CaseTally tally_of(const ResultsCase& read);  // a case read back (the ranks' results)

// The cases counted by what was expected of them, as the report counts them
// (reports/tally.py): a caught control's "fail" is the checker doing its job
// and a reported-only verdict is not required, so neither is a failure.
struct SuiteRunSummary {
  int cases = 0;
  int nonconforming = 0;    // unexpected fail, uncaught control, error, or unfinished
  int correct_passed = 0;
  int correct_failed = 0;
  int controls = 0;         // negative controls run
  int controls_caught = 0;
  int reported = 0;         // reported-only cases run
  int reported_unpassed = 0;
  int errors = 0;
  int skipped = 0;
  int unfinished = 0;       // ddp cases whose ranks wrote no result
  int borderline = 0;       // cases re-decided from fresh seeds (check/confirmation.h)
  int confirmation_runs = 0;
  int cleared = 0;          // ...that a fresh seed cleared
  // Set when a case proved the suite's input unusable as it ran (a
  // convergence target fp32 never reaches): the run stopped there, exit 2.
  std::string unusable_input;
  // Teeth: how close the worst correct case came to its bound (max
  // distance/bound over its metrics) and how far beyond its bound the
  // mildest numerically caught control landed. Controls caught only by the
  // scale audit or the skipped-step rule are counted apart.
  double worst_correct_ratio = 0;
  std::string worst_correct_id;
  double mildest_control_ratio = INFINITY;
  std::string mildest_control_id;
  int controls_caught_by_audit = 0;
  bool ok() const { return nonconforming == 0; }
  void add(const CaseTally& c);
  void add_unfinished(int count);
  // "152 correct cases passed; 9 of 9 negative controls caught; 2 reported
  // only; 0 skipped": a failure, a missed control or an error only when
  // there is one. The report's verdict line says the same.
  std::string counts() const;
  // "teeth: ..." (empty when nothing was compared).
  std::string teeth() const;
  // The teeth margin: the mildest control caught by a bound over the worst
  // correct case's distance/bound; none when either is missing.
  std::optional<double> teeth_margin() const;
  // results.json's "summary": these counts and the teeth, with the lines
  // above, so the report states what the terminal stated.
  nlohmann::json to_json() const;

 private:
  void add_ratio(const CaseTally& c, double ratio);
};

// Cases selected by `filter`, plus the fp32 baselines they need (each with
// envelope replicas for the selected precisions only). Two forms:
//  - fields: "workload=clip,precision=fp16,model=mlp" (keys workload,
//    variant, model, precision, optimizer, tag; different keys must all
//    match, a repeated key or "a|b" matches either; workload=clip matches
//    clip_norm and clip_value);
//  - otherwise an RE2 regular expression searched in the case id
//    (runner/case_filter.h).
// An empty filter keeps everything. Throws std::invalid_argument on a bad
// regex or an unknown field.
std::vector<CaseSpec> select_cases(const Suite& suite, const std::string& filter);

// The ceilings `ampbench qualify` measured, from a results file's env.
Ceilings ceilings_from_env(const nlohmann::json& env);

// What judging a case needs beyond its records: the measured ceilings (for
// utilisation) and the decision rule for borderline verdicts.
struct RunContext {
  Ceilings ceilings;
  ConfirmationRule confirmation;
  std::optional<CompiledSettings> compiled;  // run --implementation compiled
};

SuiteRunSummary run_cases(const std::vector<CaseSpec>& cases, const Runner& runner, ResultsWriter& writer,
                          std::ostream& progress, const RunContext& context = {});

}  // namespace ampbench
