#include "gate/results_file.h"

#include "results/json_fields.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace ampbench::gate {

using nlohmann::json;
using namespace json_fields;

const char* to_string(InputKind kind) {
  return kind == InputKind::GoogleBenchmark ? "Google Benchmark JSON" : "ampbench results";
}

json read_json_file(const std::string& path) { return json_fields::read_json_file(path); }

InputKind detect_kind(const json& doc) {
  return is_google_benchmark_json(doc) ? InputKind::GoogleBenchmark : InputKind::AmpbenchResults;
}

std::optional<BenchMetric> parse_bench_metric(const std::string& text) {
  if (text == "auto") return BenchMetric::Auto;
  if (text == "real_time") return BenchMetric::RealTime;
  if (text == "cpu_time") return BenchMetric::CpuTime;
  if (text == "items_per_second") return BenchMetric::ItemsPerSecond;
  return std::nullopt;
}

const char* to_string(BenchMetric metric) {
  switch (metric) {
    case BenchMetric::Auto: return "auto";
    case BenchMetric::RealTime: return "real_time";
    case BenchMetric::CpuTime: return "cpu_time";
    case BenchMetric::ItemsPerSecond: return "items_per_second";
  }
  return "auto";
}

BenchFile parse_gbench(const json& doc, const std::string& path) {
  if (!doc.is_object()) fail(path, "", std::string("top level must be a JSON object, got ") + type_name(doc));
  BenchFile f;
  f.path = path;
  f.context = require(doc, "context", path, "");
  if (!f.context.is_object()) fail(path, "\"context\"", std::string("must be an object, got ") + type_name(f.context));
  const json& benches = require(doc, "benchmarks", path, "");
  if (!benches.is_array()) fail(path, "\"benchmarks\"", std::string("must be an array, got ") + type_name(benches));
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < benches.size(); ++i) {
    const json& b = benches[i];
    std::string where = "benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) fail(path, where, std::string("must be an object, got ") + type_name(b));
    const std::string name = require_string(b, "name", path, where);
    where += " (\"" + name + "\")";
    const std::string run_type = b.contains("run_type") && b["run_type"].is_string() ? b["run_type"].get<std::string>() : "iteration";
    if (run_type != "iteration") continue;  // aggregates (mean, median, stddev, cv, BigO, RMS)
    auto [it, inserted] = index.emplace(name, f.series.size());
    if (inserted) f.series.push_back(BenchSeries{name, {}, 0});
    BenchSeries& s = f.series[it->second];
    if (const auto err = b.find("error_occurred"); err != b.end() && err->is_boolean() && err->get<bool>()) {
      ++s.errors;
      continue;
    }
    double scale = 1.0;
    const std::string unit = b.contains("time_unit") && b["time_unit"].is_string() ? b["time_unit"].get<std::string>() : "ns";
    if (unit == "ns") scale = 1.0;
    else if (unit == "us") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else fail(path, where, "unknown \"time_unit\" \"" + unit + "\"");
    BenchEntry e;
    for (const char* key : {"real_time", "cpu_time"}) {
      const json& v = require(b, key, path, where);
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0.0) {
        fail(path, where, std::string("\"") + key + "\" must be a finite number >= 0, got " + v.dump());
      }
      (std::string(key) == "real_time" ? e.real_time_ns : e.cpu_time_ns) = v.get<double>() * scale;
    }
    if (const auto ips = b.find("items_per_second"); ips != b.end()) {
      if (!ips->is_number() || !std::isfinite(ips->get<double>())) {
        fail(path, where, "\"items_per_second\" must be a finite number, got " + ips->dump());
      }
      e.items_per_second = ips->get<double>();
    }
    s.entries.push_back(e);
  }
  return f;
}

std::vector<std::string> context_differences(const BenchFile& baseline, const BenchFile& current) {
  std::vector<std::string> out;
  for (const char* key : {"library_build_type", "num_cpus", "device", "gpu_name", "cpu_model", "libtorch_version",
                          "cuda_runtime"}) {
    const auto b = baseline.context.find(key);
    const auto c = current.context.find(key);
    if (b == baseline.context.end() || c == current.context.end()) continue;
    if (*b != *c) out.push_back(std::string(key) + ": " + b->dump() + " vs " + c->dump());
  }
  return out;
}

}  // namespace ampbench::gate
