// Runs a suite's cases in order: each fp32 baseline once (kept in memory and
// reused by every precision), each other case checked against it, every
// result written out as soon as it exists.
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "results/results_file.h"
#include "results/results_writer.h"
#include "runner/runner.h"
#include "suite/suite.h"

namespace ampbench {

// What the summary counts of one case: from its CaseResult, or from the
// JSON a rank process wrote.
struct CaseTally {
  std::string id;
  CaseStatus status = CaseStatus::kError;
  bool control = false;
  bool conforms = false;
  std::optional<double> max_ratio;  // none without a verdict
};
CaseTally tally_of(const CaseResult& result);
CaseTally tally_of(const ResultsCase& read);  // a case read back (the ranks' results)

struct SuiteRunSummary {
  int cases = 0;
  int passed = 0;           // conforming: pass as expected, or control caught
  int nonconforming = 0;    // unexpected fail, uncaught control, or error
  int skipped = 0;
  int controls = 0;         // negative controls run
  int controls_caught = 0;
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
  // "teeth: ..." (empty when nothing was compared).
  std::string teeth() const;
};

// Cases selected by `filter`, plus the fp32 baselines they need. Two forms:
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

SuiteRunSummary run_cases(const std::vector<CaseSpec>& cases, const Runner& runner, ResultsWriter& writer,
                          std::ostream& progress, const Ceilings& ceilings = {});

}  // namespace ampbench
