#include "gate/results_file.h"
#include "io/json_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace ampbench::gate {

using nlohmann::json;

GateInputError::GateInputError(std::string file, std::string problem)
    : std::runtime_error(file + ": " + problem), file_(std::move(file)), problem_(std::move(problem)) {}

const char* to_string(InputKind kind) {
  return kind == InputKind::GoogleBenchmark ? "Google Benchmark JSON" : "ampbench results";
}

namespace {

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

// Error helpers naming the JSON location ("cases[3] (id \"x\")").
[[noreturn]] void fail(const std::string& path, const std::string& where, const std::string& problem) {
  throw GateInputError(path, where.empty() ? problem : where + ": " + problem);
}

const json& require(const json& obj, const char* key, const std::string& path, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(path, where, std::string("missing required key \"") + key + "\"");
  return *it;
}

std::string require_string(const json& obj, const char* key, const std::string& path, const std::string& where) {
  const json& v = require(obj, key, path, where);
  if (!v.is_string()) fail(path, where, std::string("\"") + key + "\" must be a string, got " + type_name(v));
  return v.get<std::string>();
}

std::string as_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "none";
  return v.dump();
}

std::optional<double> read_gate_object(const json& parent, const std::string& path, const std::string& where) {
  const auto it = parent.find("gate");
  if (it == parent.end() || it->is_null()) return std::nullopt;
  const std::string here = where.empty() ? "\"gate\"" : where + ": \"gate\"";
  if (!it->is_object()) fail(path, here, std::string("must be an object, got ") + type_name(*it));
  const auto me = it->find("min_effect");
  if (me == it->end() || me->is_null()) return std::nullopt;
  if (!me->is_number() || !std::isfinite(me->get<double>()) || me->get<double>() < 0.0) {
    fail(path, here, "\"min_effect\" must be a number >= 0 (a fraction: 0.05 = 5%)");
  }
  return me->get<double>();
}

std::optional<long long> optional_int(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}

}  // namespace

json read_json_file(const std::string& path) {
  try {
    return io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    throw GateInputError(e.file(), e.problem());
  }
}

InputKind detect_kind(const json& doc) {
  if (doc.is_object() && doc.contains("context") && doc.contains("benchmarks")) return InputKind::GoogleBenchmark;
  return InputKind::AmpbenchResults;
}

namespace {

// schema, schema_version, suite, complete, env and the suite's gate block.
void read_header(const json& doc, const std::string& path, ResultsFile& r) {
  const json& schema = require(doc, "schema", path, "");
  if (!schema.is_string() || schema.get<std::string>() != "ampbench.results") {
    fail(path, "", "wrong \"schema\" " + schema.dump() + " (expected \"ampbench.results\")");
  }
  const json& version = require(doc, "schema_version", path, "");
  // 2 added the equivalence envelope to each case's check; the gate reads
  // neither version's check beyond status and conforms.
  if (!version.is_number_integer() || version.get<long long>() < kOldestResultsSchemaVersion ||
      version.get<long long>() > kResultsSchemaVersion) {
    fail(path, "", "unsupported \"schema_version\" " + version.dump() + " (this reader supports " +
                       std::to_string(kOldestResultsSchemaVersion) + " to " + std::to_string(kResultsSchemaVersion) +
                       ")");
  }
  r.suite = require_string(doc, "suite", path, "");
  // Read, never assumed: a string "false" or a missing field once passed as
  // a finished run.
  const json& complete = require(doc, "complete", path, "");
  if (!complete.is_boolean()) fail(path, "", "\"complete\" must be true or false, got " + complete.dump());
  r.complete = complete.get<bool>();

  const json& env = require(doc, "env", path, "");
  if (!env.is_object()) fail(path, "\"env\"", std::string("must be an object, got ") + type_name(env));
  for (const char* key : {"device", "gpu_name", "cpu_model", "libtorch_version", "cuda_runtime"}) {
    r.env[key] = as_text(require(env, key, path, "\"env\""));
  }
  for (const auto& [key, value] : env.items()) {
    if (!r.env.count(key) && !value.is_object() && !value.is_array()) r.env[key] = as_text(value);
  }
  r.device = parse_device_kind(r.env.at("device"));
  r.suite_min_effect = read_gate_object(doc, path, "");
}

// A case's "throughput": an object with finite, non-negative samples, or null.
void read_throughput(const json& c, const std::string& path, const std::string& where, ResultsCase& rec) {
  const json& tp = require(c, "throughput", path, where);
  if (tp.is_null()) return;
  if (!tp.is_object()) fail(path, where, std::string("\"throughput\" must be an object or null, got ") + type_name(tp));
  rec.has_throughput = true;
  const std::string tw = where + ": \"throughput\"";
  const json& samples = require(tp, "samples_per_s", path, tw);
  if (!samples.is_array()) fail(path, tw, std::string("\"samples_per_s\" must be an array, got ") + type_name(samples));
  for (const json& s : samples) {
    if (!s.is_number() || !std::isfinite(s.get<double>()) || s.get<double>() < 0.0) {
      fail(path, tw, "\"samples_per_s\" must hold finite numbers >= 0, found " + s.dump());
    }
    rec.samples.push_back(s.get<double>());
  }
  if (const auto u = tp.find("unit"); u != tp.end() && u->is_string()) rec.unit = u->get<std::string>();
  if (const auto in = tp.find("input"); in != tp.end() && in->is_string()) rec.input = in->get<std::string>();
}

ResultsCase read_case(const json& c, const std::string& path, std::string where) {
  if (!c.is_object()) fail(path, where, std::string("must be an object, got ") + type_name(c));
  ResultsCase rec;
  rec.id = require_string(c, "id", path, where);
  where += " (id \"" + rec.id + "\")";
  const std::string status = require_string(c, "status", path, where);
  const std::optional<CaseStatus> parsed = parse_case_status(status);
  if (!parsed) fail(path, where, "unknown \"status\" \"" + status + "\" (expected pass, fail, skipped or error)");
  rec.status = *parsed;
  const json& conforms = require(c, "conforms", path, where);
  if (conforms.is_boolean()) {
    rec.conforms = conforms.get<bool>();
  } else if (!conforms.is_null()) {
    fail(path, where, std::string("\"conforms\" must be true, false or null, got ") + type_name(conforms));
  }
  if (const auto it = c.find("reason"); it != c.end() && it->is_string()) rec.reason = it->get<std::string>();
  if (const auto it = c.find("expect"); it != c.end() && it->is_string()) {
    const std::optional<Expect> expect = parse_expect(it->get<std::string>());
    if (!expect) fail(path, where, "unknown \"expect\" " + it->dump() + " (expected pass, fail or report)");
    rec.expect = *expect;
  }
  if (const auto chk = c.find("check"); chk != c.end() && chk->is_object()) {
    if (const auto f = chk->find("failures"); f != chk->end() && f->is_array()) {
      for (const json& s : *f) rec.failures.push_back(as_text(s));
    }
  }
  rec.batch_size = optional_int(c, "batch_size");
  rec.world_size = optional_int(c, "world_size");
  read_throughput(c, path, where, rec);
  rec.min_effect = read_gate_object(c, path, where);
  return rec;
}

}  // namespace

ResultsFile parse_results(const json& doc, const std::string& path) {
  if (!doc.is_object()) fail(path, "", std::string("top level must be a JSON object, got ") + type_name(doc));
  ResultsFile r;
  r.path = path;
  r.doc = doc;
  read_header(doc, path, r);
  const json& cases = require(doc, "cases", path, "");
  if (!cases.is_array()) fail(path, "\"cases\"", std::string("must be an array, got ") + type_name(cases));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ResultsCase rec = read_case(cases[i], path, "cases[" + std::to_string(i) + "]");
    if (!seen.insert(rec.id).second)
      fail(path, "cases[" + std::to_string(i) + "] (id \"" + rec.id + "\")", "duplicate case id");
    r.cases.push_back(std::move(rec));
  }
  return r;
}

ResultsFile load_results(const std::string& path) {
  const json doc = read_json_file(path);
  if (detect_kind(doc) == InputKind::GoogleBenchmark) {
    throw GateInputError(path, "is Google Benchmark JSON, expected an ampbench results file");
  }
  return parse_results(doc, path);
}

std::vector<std::string> env_differences(const ResultsFile& baseline, const ResultsFile& current) {
  std::vector<std::string> out;
  auto get = [](const ResultsFile& f, const char* key) {
    const auto it = f.env.find(key);
    return it == f.env.end() ? std::string("none") : it->second;
  };
  std::vector<const char*> keys = {"device", "gpu_name"};
  if (baseline.device == DeviceKind::kCpu || current.device == DeviceKind::kCpu) keys.push_back("cpu_model");
  keys.push_back("libtorch_version");
  keys.push_back("cuda_runtime");
  for (const char* key : keys) {
    const std::string b = get(baseline, key);
    const std::string c = get(current, key);
    if (b != c) out.push_back(std::string(key) + ": \"" + b + "\" vs \"" + c + "\"");
  }
  return out;
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
