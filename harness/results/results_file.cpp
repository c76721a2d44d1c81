#include "results/results_file.h"

#include <cmath>
#include <set>
#include <utility>

#include "results/json_fields.h"

namespace ampbench {

using nlohmann::json;
using namespace json_fields;

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
  if (const auto m = tp.find("median"); m != tp.end() && m->is_number()) rec.median = m->get<double>();
  if (const auto s = tp.find("speedup_vs_fp32"); s != tp.end() && s->is_number())
    rec.speedup_vs_fp32 = s->get<double>();
  if (const auto in = tp.find("input"); in != tp.end() && in->is_string()) rec.input = in->get<std::string>();
}

// What reports show of a case's "check" (failures, the ratio to its bounds,
// the metrics and tolerances); the rest is the Python oracle's.
void read_check(const json& chk, ResultsCase& rec) {
  if (const auto f = chk.find("failures"); f != chk.end() && f->is_array())
    for (const json& s : *f) rec.failures.push_back(as_text(s));
  const auto ratio = chk.find("max_ratio");
  rec.max_ratio = ratio != chk.end() && ratio->is_number() ? ratio->get<double>() : INFINITY;
  if (const auto a = chk.find("scale_audit_failed"); a != chk.end() && a->is_boolean()) rec.scale_audit_failed = a->get<bool>();
  for (const char* key : {"metrics", "tolerances"})
    if (const auto part = chk.find(key); part != chk.end() && part->is_object())
      for (const auto& [k, v] : part->items()) rec.check_details.emplace_back(std::string(key) + "." + k, as_text(v));
  if (const auto step = chk.find("first_crossing_step"); step != chk.end() && !step->is_null())
    rec.check_details.emplace_back("first_crossing_step", as_text(*step));
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
  if (const auto chk = c.find("check"); chk != c.end() && chk->is_object()) read_check(*chk, rec);
  if (const auto compiled = c.find("compiled"); compiled != c.end() && compiled->is_object()) {
    const auto breaks = compiled->find("graph_breaks");
    if (breaks == compiled->end() || !breaks->is_array()) fail(path, where, "\"compiled.graph_breaks\" must be an array");
    rec.graph_breaks.emplace();
    for (const json& b : *breaks) rec.graph_breaks->push_back(b.is_object() ? as_text(b.value("reason", json())) : as_text(b));
  }
  if (const auto p = c.find("precision"); p != c.end() && p->is_string()) rec.precision = p->get<std::string>();
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

bool is_google_benchmark_json(const json& doc) {
  return doc.is_object() && doc.contains("context") && doc.contains("benchmarks");
}

ResultsFile load_results(const std::string& path) {
  const json doc = read_json_file(path);
  if (is_google_benchmark_json(doc))
    throw InputFileError(path, "is Google Benchmark JSON, expected an ampbench results file");
  return parse_results(doc, path);
}

std::vector<std::string> env_differences(const ResultsFile& baseline, const ResultsFile& current) {
  std::vector<std::string> out;
  // Results from before the implementation was recorded are eager's.
  auto get = [](const ResultsFile& f, const std::string& key) {
    const auto it = f.env.find(key);
    return it != f.env.end() ? it->second : key == "implementation" ? std::string("eager") : std::string("none");
  };
  std::vector<const char*> keys = {"device", "gpu_name"};
  if (baseline.device == DeviceKind::kCpu || current.device == DeviceKind::kCpu) keys.push_back("cpu_model");
  keys.push_back("libtorch_version");
  keys.push_back("implementation");
  keys.push_back("cuda_runtime");
  for (const char* key : keys) {
    const std::string b = get(baseline, key);
    const std::string c = get(current, key);
    if (b != c) out.push_back(std::string(key) + ": \"" + b + "\" vs \"" + c + "\"");
  }
  // The CPU's generation and the kernels' ceiling change a CPU run's speed
  // under one model name; files from before they were recorded lack them,
  // and are compared on the name alone.
  if (baseline.device == DeviceKind::kCpu || current.device == DeviceKind::kCpu) {
    for (const char* key : {"cpu_id", "cpu_capability", "onednn_max_cpu_isa"}) {
      const auto b = baseline.env.find(key);
      const auto c = current.env.find(key);
      if (b == baseline.env.end() || c == current.env.end() || b->second == c->second) continue;
      out.push_back(std::string(key) + ": \"" + b->second + "\" vs \"" + c->second + "\"");
    }
  }
  return out;
}

std::vector<std::string> injected_faults(const ResultsFile& f) {
  std::vector<std::string> out;
  for (const auto& [key, flag] : {std::pair{"injected_slowdown", "--inject-slowdown"},
                                  std::pair{"injected_bitflip_step", "--inject-bitflip"},
                                  std::pair{"injected_compile_fault", "--inject-compile-fault"}}) {
    if (const auto it = f.env.find(key); it != f.env.end()) out.push_back(std::string(flag) + " " + it->second);
  }
  return out;
}

}  // namespace ampbench
