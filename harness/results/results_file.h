// The one reader of results.json (the schema: harness/results/SCHEMA.md), as
// typed records: the gate, the run's JUnit, its summary table and its tally,
// and the merge of a local ranks' results all read through it. Free of
// LibTorch. Every problem with a file is an InputFileError naming it and the
// place ("cases[3] (id \"x\"): ...").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"  // nlohmann/json, version-checked
#include "results/case_status.h"
#include "results/json_fields.h"
#include "results/schema_version.h"
#include "spec/device_kind.h"
#include "spec/expect.h"

namespace ampbench {

// One case of a results file, reduced to what the gate reads.
struct ResultsCase {
  std::string id;
  CaseStatus status = CaseStatus::kError;
  Expect expect = Expect::kPass;   // "expect" (absent -> pass)
  std::optional<bool> conforms;    // null for skipped
  std::string reason;              // "" when null
  std::vector<std::string> failures;  // check.failures, when present
  bool has_throughput = false;     // "throughput" is an object
  std::vector<double> samples;     // throughput.samples_per_s; after merge_runs
                                   // with RunMedians: one median per run
  std::size_t runs = 1;            // results files the case was found in
  std::vector<std::size_t> sample_runs;  // with run medians: the run (0-based) of each
  std::string unit = "samples/s";  // throughput.unit
  std::string input;               // throughput.input ("" when absent)
  std::optional<long long> batch_size;
  std::optional<long long> world_size;
  std::optional<double> min_effect;  // case "gate": {"min_effect": x}
  std::string precision;             // "precision" ("" when absent)
  std::optional<double> median;           // throughput.median
  std::optional<double> speedup_vs_fp32;  // throughput.speedup_vs_fp32
  // When the case has a "check": its max_ratio (infinite when the check holds
  // no finite one), and its metrics, tolerances and first_crossing_step as
  // "metrics.KEY" -> text, in the file's order, for reports.
  std::optional<double> max_ratio;
  bool scale_audit_failed = false;  // check.scale_audit_failed
  // A compiled case: its graph breaks (compiled.graph_breaks), each reason.
  std::optional<std::vector<std::string>> graph_breaks;
  std::vector<std::pair<std::string, std::string>> check_details;
};

struct ResultsFile {
  std::string path;
  std::string suite;
  bool complete = true;                     // "complete" (required, a boolean)
  std::map<std::string, std::string> env;   // env values as text ("none" when absent)
  std::optional<DeviceKind> device;         // env "device", when it names one
  std::optional<double> suite_min_effect;   // top-level "gate": {"min_effect": x}
  std::vector<ResultsCase> cases;            // file order
  nlohmann::json doc;                       // the whole document (first run's after merge_runs)
  std::size_t runs = 1;                     // results files merged into this one (gate/run_set.h)
  bool run_medians = false;                 // samples are per-run medians, not repetitions
  std::vector<std::string> notices;         // what merge_runs wants the report to say
};

// Validates an ampbench results document. Required: "schema" ==
// "ampbench.results", integer "schema_version" from kOldestResultsSchemaVersion
// to kResultsSchemaVersion, "suite" (string), "env"
// (object with device, gpu_name, cpu_model, libtorch_version, cuda_runtime),
// "cases" (array); per case "id" (string, unique), "status" (string),
// "conforms" (bool or null) and "throughput" (object or null; when an object,
// "samples_per_s" is an array of finite numbers >= 0). Unknown keys are
// ignored. `path` is only used in error messages.
ResultsFile parse_results(const nlohmann::json& doc, const std::string& path);
ResultsFile load_results(const std::string& path);

// Google Benchmark's JSON ("context" and "benchmarks"), the gate's other
// input: load_results names it rather than its first missing key.
bool is_google_benchmark_json(const nlohmann::json& doc);

// The env fields whose mismatch makes throughput incomparable: device,
// gpu_name, cpu_model (only when device is "cpu"), libtorch_version,
// implementation, cuda_runtime; on a CPU also cpu_id, cpu_capability and
// onednn_max_cpu_isa where both files record them. Returns "field: baseline-value vs current-value" per
// difference; empty when they match.
std::vector<std::string> env_differences(const ResultsFile& baseline, const ResultsFile& current);

// The test-only fault switches a run was made with, as the flags that made
// them ("--inject-slowdown 0.2"), read from env.injected_*: such a run
// measured the fault, not the build, so it is a rehearsal, never a
// measurement. Empty for an ordinary run.
std::vector<std::string> injected_faults(const ResultsFile& f);

}  // namespace ampbench
