// Loading and validating the gate's inputs: ampbench results files (schema in
// harness/results/SCHEMA.md) and Google Benchmark JSON. Every problem with an
// input is a GateInputError naming the file and the problem; the CLI turns it
// into "ampbench gate: error: FILE: problem" and exit status 2.
#pragma once

#include <map>
#include "core/json.h"  // nlohmann/json, version-checked
#include "results/case_status.h"
#include "results/schema_version.h"
#include "spec/device_kind.h"
#include "spec/expect.h"
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ampbench::gate {

class GateInputError : public std::runtime_error {
 public:
  GateInputError(std::string file, std::string problem);
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

enum class InputKind { AmpbenchResults, GoogleBenchmark };

const char* to_string(InputKind kind);

// Reads and parses a JSON file. Throws GateInputError for a missing or
// unreadable file and for malformed JSON (with the parser's position).
nlohmann::json read_json_file(const std::string& path);

// "context" + "benchmarks" keys: Google Benchmark; otherwise an ampbench
// results file (validated by parse_results).
InputKind detect_kind(const nlohmann::json& doc);

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

// The env fields whose mismatch makes throughput incomparable: device,
// gpu_name, cpu_model (only when device is "cpu"), libtorch_version,
// cuda_runtime. Returns "field: baseline-value vs current-value" per
// difference; empty when they match.
std::vector<std::string> env_differences(const ResultsFile& baseline, const ResultsFile& current);

// Google Benchmark JSON (--benchmark_format=json / --benchmark_out).
enum class BenchMetric { Auto, RealTime, CpuTime, ItemsPerSecond };

std::optional<BenchMetric> parse_bench_metric(const std::string& text);  // auto|real_time|cpu_time|items_per_second
const char* to_string(BenchMetric metric);

struct BenchEntry {
  double real_time_ns = 0.0;
  double cpu_time_ns = 0.0;
  std::optional<double> items_per_second;
};

struct BenchSeries {
  std::string name;                 // benchmark "name" of the iteration entries
  std::vector<BenchEntry> entries;  // one per repetition (run_type "iteration")
  std::size_t errors = 0;           // entries with error_occurred (not used)
};

struct BenchFile {
  std::string path;
  nlohmann::json context;
  std::vector<BenchSeries> series;  // first-appearance order
};

// Validates Google Benchmark JSON: "benchmarks" array of objects with a
// string "name"; iteration entries need numeric "real_time" and "cpu_time"
// ("time_unit" ns|us|ms|s, default ns). Entries with run_type "aggregate" are
// ignored; a missing run_type counts as "iteration".
BenchFile parse_gbench(const nlohmann::json& doc, const std::string& path);

// Context fields compared between two Google Benchmark files when both have
// them: library_build_type, num_cpus, and the ampbench env fields (device,
// gpu_name, cpu_model, libtorch_version, cuda_runtime) when a benchmark binary
// adds them as custom context.
std::vector<std::string> context_differences(const BenchFile& baseline, const BenchFile& current);

}  // namespace ampbench::gate
