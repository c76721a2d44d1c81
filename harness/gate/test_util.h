// Helpers for gate_tests: small results / Google Benchmark documents and a
// temporary folder.
#pragma once

#include <filesystem>
#include <fstream>
#include "core/json.h"  // nlohmann/json, version-checked
#include "io/temp_dir_test_util.h"
#include <random>
#include <string>
#include <vector>


namespace ampbench::gate::test {

using nlohmann::json;

inline json make_env(const std::string& device = "cpu", const std::string& gpu_name = "none",
                     const std::string& cpu_model = "Test CPU @ 2.0GHz", const std::string& torch = "2.11.0",
                     const std::string& cuda_runtime = "none") {
  return {{"host", "testhost"},          {"os", "Linux"},           {"cpu_model", cpu_model},
          {"cpu_cores", 2},              {"device", device},        {"gpu_name", gpu_name},
          {"compute_capability", "none"}, {"driver", "none"},       {"cuda_runtime", cuda_runtime},
          {"cudnn", "none"},             {"nccl", "none"},          {"libtorch_version", torch},
          {"compiler", "GCC 12.2.0"},    {"git_commit", "abc123"},  {"git_dirty", false}};
}

// A case; samples empty -> "throughput": null.
inline json make_case(const std::string& id, const std::vector<double>& samples = {},
                      const std::string& status = "pass", json conforms = true) {
  json c = {{"id", id},
            {"workload", "plain"},
            {"variant", "correct"},
            {"model", "mlp"},
            {"precision", "fp16"},
            {"optimizer", "sgd"},
            {"device", "cpu"},
            {"world_size", 1},
            {"batch_size", 64},
            {"steps", 20},
            {"seed", 1},
            {"expect", "pass"},
            {"status", status},
            {"conforms", status == "skipped" ? json() : conforms},
            {"reason", status == "pass" ? json() : json("reason for " + status)},
            {"baseline_id", "plain/mlp/fp32/sgd"},
            {"check", nullptr},
            {"throughput", nullptr},
            {"ddp", nullptr}};
  if (!samples.empty()) {
    c["throughput"] = {{"unit", "samples/s"},   {"input", "cached"},  {"warmup_steps", 3},
                       {"measured_steps", 10},  {"repetitions", samples.size()}, {"samples_per_s", samples},
                       {"median", samples[0]},  {"peak_memory_bytes", nullptr}};
  }
  return c;
}

inline json make_results(const std::vector<json>& cases, const json& env = make_env(),
                         const std::string& suite = "smoke") {
  return {{"schema", "ampbench.results"},
          {"schema_version", 1},
          {"suite", suite},
          {"suite_file", "suites/" + suite + ".json"},
          {"started_utc", "2026-11-29T10:00:00Z"},
          {"finished_utc", "2026-11-29T10:02:00Z"},
          {"complete", true},
          {"env", env},
          {"cases", cases}};
}

// n samples spread uniformly within +-rel_noise around center (deterministic).
inline std::vector<double> noisy(double center, double rel_noise, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-rel_noise, rel_noise);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center * (1.0 + u(gen)));
  return v;
}

// One Google Benchmark iteration entry per value of real_time (ns), plus the
// aggregates google benchmark appends (which the gate must ignore).
inline json gbench_entries(const std::string& name, const std::vector<double>& real_times_ns,
                           bool with_items = false) {
  json out = json::array();
  for (std::size_t i = 0; i < real_times_ns.size(); ++i) {
    json e = {{"name", name},         {"run_name", name},          {"run_type", "iteration"},
              {"repetitions", real_times_ns.size()}, {"repetition_index", i}, {"threads", 1},
              {"iterations", 1000},   {"real_time", real_times_ns[i]}, {"cpu_time", real_times_ns[i]},
              {"time_unit", "ns"}};
    if (with_items) e["items_per_second"] = 1e9 / real_times_ns[i];
    out.push_back(e);
  }
  for (const char* agg : {"mean", "median", "stddev"}) {
    out.push_back({{"name", name + "_" + agg}, {"run_name", name}, {"run_type", "aggregate"},
                   {"aggregate_name", agg}, {"real_time", 1.0}, {"cpu_time", 1.0}, {"time_unit", "ns"}});
  }
  return out;
}

inline json make_gbench(const std::vector<json>& entry_lists, json context = json::object()) {
  json ctx = {{"date", "2026-11-29T10:00:00+00:00"}, {"host_name", "testhost"}, {"executable", "./bench"},
              {"num_cpus", 2}, {"mhz_per_cpu", 2000}, {"library_build_type", "release"}};
  for (const auto& [k, v] : context.items()) ctx[k] = v;
  json benches = json::array();
  for (const auto& list : entry_lists) {
    for (const auto& e : list) benches.push_back(e);
  }
  return {{"context", ctx}, {"benchmarks", benches}};
}

using io::test::TempDir;

inline std::string write_json(const std::string& path, const json& doc) {
  std::ofstream(path) << doc.dump(2);
  return path;
}

inline std::string write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace ampbench::gate::test
