// Loading and validating the gate's inputs: ampbench results files (read by
// results/results_file.h) and Google Benchmark JSON. Every problem with an
// input is a GateInputError naming the file and the problem; the CLI turns it
// into "ampbench gate: error: FILE: problem" and exit status 2.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/json.h"  // nlohmann/json, version-checked
#include "results/results_file.h"  // ResultsFile, parse_results, load_results

namespace ampbench::gate {

using GateInputError = InputFileError;
using ampbench::env_differences;
using ampbench::load_results;
using ampbench::parse_results;
using ampbench::ResultsCase;
using ampbench::ResultsFile;

enum class InputKind { AmpbenchResults, GoogleBenchmark };

const char* to_string(InputKind kind);

// Reads and parses a JSON file. Throws GateInputError for a missing or
// unreadable file and for malformed JSON (with the parser's position).
nlohmann::json read_json_file(const std::string& path);

// "context" + "benchmarks" keys: Google Benchmark; otherwise an ampbench
// results file (validated by parse_results).
InputKind detect_kind(const nlohmann::json& doc);

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
