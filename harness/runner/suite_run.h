// Runs a suite's cases in order: each fp32 baseline once (kept in memory and
// reused by every precision), each other case checked against it, every
// result written out as soon as it exists.
#pragma once

#include <functional>
#include <ostream>
#include <regex>
#include <string>

#include "results/results_writer.h"
#include "runner/runner.h"
#include "suite/suite.h"

namespace ampbench {

struct SuiteRunSummary {
  int cases = 0;
  int passed = 0;           // conforming: pass as expected, or control caught
  int nonconforming = 0;    // unexpected fail, uncaught control, or error
  int skipped = 0;
  int controls = 0;         // negative controls run
  int controls_caught = 0;
  bool ok() const { return nonconforming == 0; }
};

// Cases whose id matches `filter` (ECMAScript regex, search), plus the
// baselines they need. An empty filter keeps everything.
std::vector<CaseSpec> select_cases(const Suite& suite, const std::string& filter);

SuiteRunSummary run_cases(const std::vector<CaseSpec>& cases, const Runner& runner, ResultsWriter& writer,
                          std::ostream& progress);

}  // namespace ampbench
