// Case-by-case comparison of two result files (or two Google Benchmark JSON
// files) into a plain GateReport that the text, Markdown and JUnit writers
// print. No I/O here except compare_files, which loads its inputs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gate/results_file.h"

namespace ampbench::gate {

// Order matters only for sorting by severity (Regression is the worst).
enum class GateVerdict {
  Pass,         // as good as the baseline (or new and fine)
  Improvement,  // significantly faster, or a failing case that now conforms
  Skipped,      // not compared: skipped case, env mismatch, not measured
  Warning,      // not a regression but needs a look: insufficient repetitions,
                // known failure, allowed missing/newly skipped case
  Regression,   // fails the gate (exit status 1)
};

const char* to_string(GateVerdict v);  // "pass", "improvement", "skipped", "warning", "regression"

// How the throughput rows of one report share alpha.
enum class Correction {
  None,               // each row tested at alpha
  BenjaminiHochberg,  // rows rejected on their BH q-value < alpha (gate/fdr.h)
};

struct GateOptions {
  double alpha = 0.05;        // significance level of the two-sided tests
  double min_effect = 0.05;   // relative median change that counts (0.05 = 5%)
  bool allow_env_mismatch = false;  // compare throughput across env fingerprints
  bool allow_missing = false;       // missing cases: warning instead of regression
  bool allow_new_skips = false;     // newly skipped cases: warning instead of regression
  // Without these, results of another suite or an unfinished current run are
  // unusable input (exit 2): they showed as dozens of "missing" regressions.
  bool allow_suite_mismatch = false;
  bool allow_incomplete = false;
  bool allow_incomplete_baseline = false;  // a baseline that did not finish is refused unless this
  bool conformance_only = false;  // show throughput, never gate it (shared, noisy runners)
  bool paired = false;  // runs were interleaved (B1 C1 B2 C2 ...): pair run i with run i
  // Results made with a test-only fault switch (--inject-slowdown/-bitflip)
  // are refused unless this says the comparison is a rehearsal of the gate.
  bool rehearsal = false;
  Correction correction = Correction::BenjaminiHochberg;
  BenchMetric metric = BenchMetric::Auto;  // Google Benchmark input only
};

struct CheckResult {
  std::string id;     // case id, or benchmark name
  std::string check;  // "conformance", "throughput"; Google Benchmark: the
                      // metric ("real_time", "cpu_time", "items_per_second")
                      // or "presence" for missing/new benchmarks
  GateVerdict verdict = GateVerdict::Pass;
  std::string label;     // short text for the verdict column ("ok", "REGRESSION", ...)
  std::string baseline;  // cell text
  std::string current;   // cell text
  std::string detail;    // one sentence with the numbers or the reason

  // Filled for sample comparisons (throughput / benchmark metrics):
  std::optional<double> baseline_median;
  std::optional<double> current_median;
  std::optional<double> change;   // current_median / baseline_median - 1
  std::optional<double> p_value;  // two-sided Mann-Whitney U or Wilcoxon signed-rank
  std::optional<double> q_value;  // Benjamini-Hochberg over the report's judged rows
  std::string evidence;           // the numbers behind the verdict, for the detail text
  std::optional<double> min_attainable_p;
  double min_effect = 0.0;
  std::size_t n_baseline = 0;
  std::size_t n_current = 0;
  std::string unit;              // "samples/s", "ns", "items/s"
  bool higher_is_better = true;  // throughput: yes; time: no
};

struct GateReport {
  InputKind kind = InputKind::AmpbenchResults;
  std::string baseline_path;
  std::string current_path;
  std::string suite;  // results files: current "suite"
  GateOptions options;
  std::vector<std::string> env_differences;  // "field: a vs b"
  bool throughput_compared = true;           // false: skipped for env mismatch
  std::vector<std::string> notices;          // "note: ..." / "warning: ..." lines
  std::vector<CheckResult> checks;
  std::size_t baseline_runs = 1;  // results files per side (gate/run_set.h)
  std::size_t current_runs = 1;
  bool run_medians = false;       // throughput observations: per-run medians, not repetitions

  std::size_t count(GateVerdict v) const;
  std::size_t count(GateVerdict v, const std::string& check) const;
  bool passed() const { return count(GateVerdict::Regression) == 0; }
  int exit_code() const { return passed() ? 0 : 1; }
};

// Statistics for one pair of sample sets: U test + minimum effect size.
//   regression:  p < alpha AND the median moved the bad way by more than
//                min_effect (relative to the baseline median);
//   improvement: p < alpha AND it moved the good way by more than min_effect;
//   warning "insufficient repetitions" (or runs, when `per_run` says the
//                samples are per-run medians): the smallest attainable
//                p-value for these sample sizes is >= alpha, so no verdict is
//                possible.
CheckResult compare_samples(const std::string& id, const std::string& check, const std::vector<double>& baseline,
                            const std::vector<double>& current, bool higher_is_better, double min_effect,
                            double alpha, const std::string& unit, bool per_run = false);

// Paired runs (baseline[i] and current[i] measured back to back, both per-run
// medians): the Wilcoxon signed-rank test on log(current[i] / baseline[i])
// and the median pair ratio as the change, judged like compare_samples
// ("insufficient pairs" when even n pairs of one sign cannot reach alpha:
// 5 or fewer at alpha 0.05). Throws std::invalid_argument on series of
// different lengths.
CheckResult compare_paired(const std::string& id, const std::string& check, const std::vector<double>& baseline,
                           const std::vector<double>& current, double min_effect, double alpha,
                           const std::string& unit);

// Smallest k such that k repetitions per side can reach p < alpha.
std::size_t repetitions_needed(double alpha);

// Both ampbench results, each possibly merged from several runs
// (gate/run_set.h). Throws GateInputError(current.path, ...) when the files
// share no case id.
GateReport compare_results(const ResultsFile& baseline, const ResultsFile& current, const GateOptions& options);

// Both Google Benchmark JSON. Throws GateInputError when no benchmark name is
// shared.
GateReport compare_gbench(const BenchFile& baseline, const BenchFile& current, const GateOptions& options);

// Loads every file, checks they are all of one kind, merges each side's runs
// (per-run medians when both sides have two or more), compares. Several
// files per side are for ampbench results only. Throws GateInputError for
// any unusable input.
GateReport compare_files(const std::vector<std::string>& baseline_paths, const std::vector<std::string>& current_paths,
                         const GateOptions& options);
GateReport compare_files(const std::string& baseline_path, const std::string& current_path,
                         const GateOptions& options);

}  // namespace ampbench::gate
