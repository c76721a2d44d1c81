#include "session/compiled_record.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "io/json_file.h"

namespace ampbench {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& path, const std::string& field, const std::string& why) {
  throw std::invalid_argument(path + ": " + field + ": " + why);
}

const json& field(const json& doc, const char* key, const std::string& path) {
  const auto it = doc.find(key);
  if (it == doc.end()) bad(path, key, "missing");
  return *it;
}

// A number, or null for a value JSON cannot carry (nan, inf).
double number_or_nan(const json& v, const std::string& path, const std::string& where) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) bad(path, where, "expected a number or null, got " + std::string(v.type_name()));
  return v.get<double>();
}

template <typename T>
std::vector<T> numbers(const json& doc, const char* key, const std::string& path, std::optional<int> length) {
  const json& a = field(doc, key, path);
  if (!a.is_array()) bad(path, key, "expected an array");
  if (length && a.size() != static_cast<std::size_t>(*length))
    bad(path, key, std::to_string(a.size()) + " values, expected one per step (" + std::to_string(*length) + ")");
  std::vector<T> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(static_cast<T>(number_or_nan(a[i], path, std::string(key) + "[" + std::to_string(i) + "]")));
  return out;
}

std::vector<bool> flags(const json& a, const std::string& path, const std::string& where) {
  if (!a.is_array()) bad(path, where, "expected an array of booleans");
  std::vector<bool> out;
  for (const json& b : a) {
    if (!b.is_boolean()) bad(path, where, "expected booleans");
    out.push_back(b.get<bool>());
  }
  return out;
}

CompiledRun read_compile_facts(const json& doc, const std::string& path) {
  CompiledRun run;
  const json& c = field(doc, "compile", path);
  if (!c.is_object()) bad(path, "compile", "expected an object");
  run.mode = field(doc, "mode", path).get<std::string>();
  run.compile_step = field(doc, "compile_step", path).get<bool>();
  const json& fault = field(doc, "fault", path);
  run.fault = fault.is_string() ? fault.get<std::string>() : "";
  run.torch_version = field(doc, "torch_version", path).get<std::string>();
  run.graphs = field(c, "graphs", path).get<int>();
  for (const json& b : field(c, "graph_breaks", path))
    run.graph_breaks.push_back(b.is_object() ? b.value("reason", std::string("(no reason given)")) : b.dump());
  run.recompiles = field(c, "recompiles", path).get<int>();
  run.ran_eager = field(c, "ran_eager", path).get<bool>();
  const json& full = field(c, "fullgraph", path);
  run.fullgraph = field(full, "ok", path).get<bool>();
  if (const auto why = full.find("reason"); why != full.end() && why->is_string()) run.fullgraph_refusal = *why;
  run.seconds_cold = number_or_nan(field(c, "seconds_cold", path), path, "compile.seconds_cold");
  run.seconds_warm = number_or_nan(field(c, "seconds_warm", path), path, "compile.seconds_warm");
  if (const auto emptied = c.find("cache_emptied"); emptied != c.end()) {
    if (!emptied->is_boolean()) bad(path, "compile.cache_emptied", "expected true or false");
    run.cache_reused = !emptied->get<bool>();
  }
  return run;
}

}  // namespace

CompiledRecord read_compiled_record(const std::string& path, const std::string& expected_id, int steps) {
  const json doc = io::read_json_file(path);
  if (!doc.is_object()) bad(path, "(top level)", "expected an object");
  if (doc.value("schema", std::string()) != kCompiledRecordSchema || doc.value("schema_version", 0) != kCompiledRecordVersion)
    bad(path, "schema", std::string("expected ") + kCompiledRecordSchema + " schema_version " +
                            std::to_string(kCompiledRecordVersion));
  CompiledRecord r;
  try {
    r.case_id = field(doc, "case_id", path).get<std::string>();
    if (r.case_id != expected_id) bad(path, "case_id", "'" + r.case_id + "', expected '" + expected_id + "'");
    r.loss = numbers<double>(doc, "loss", path, steps);
    r.scale = numbers<double>(doc, "scale", path, steps);
    r.skipped = flags(field(doc, "skipped", path), path, "skipped");
    if (r.skipped.size() != static_cast<std::size_t>(steps)) bad(path, "skipped", "expected one per step");
    for (const json& step : field(doc, "optimizer_skipped", path))
      r.optimizer_skipped.push_back(flags(step, path, "optimizer_skipped"));
    r.initial_params = numbers<float>(doc, "initial_params", path, std::nullopt);
    r.final_params = numbers<float>(doc, "final_params", path, std::nullopt);
    r.optimizer_state = numbers<float>(doc, "optimizer_state", path, std::nullopt);
    if (doc.contains("final_probe")) r.final_probe = numbers<float>(doc, "final_probe", path, std::nullopt);
    r.run = read_compile_facts(doc, path);
    if (const auto tp = doc.find("throughput"); tp != doc.end() && tp->is_object())
      r.samples_per_s = numbers<double>(*tp, "samples_per_s", path, std::nullopt);
  } catch (const json::exception& e) {
    bad(path, "(content)", e.what());
  }
  return r;
}

void apply_compiled_record(CaseRecord& rec, CompiledRecord compiled) {
  const std::string& where = rec.spec.id;
  auto same_size = [&](const char* what, std::size_t eager, std::size_t ours) {
    if (eager != ours)
      throw std::invalid_argument(where + ": the compiled run's " + what + " has " + std::to_string(ours) +
                                  " values, the eager run's " + std::to_string(eager) +
                                  ": not the same model or not the runner's order");
  };
  same_size("final_params", rec.final_params.size(), compiled.final_params.size());
  same_size("optimizer_state", rec.optimizer_state.size(), compiled.optimizer_state.size());
  if (!rec.final_probe.empty()) same_size("final_probe", rec.final_probe.size(), compiled.final_probe.size());
  // The same start: the compiled run began from the eager run's dump.
  if (compiled.initial_params != rec.initial_params)
    throw std::invalid_argument(where + ": the compiled run did not start from the eager run's initial parameters");
  rec.loss = std::move(compiled.loss);
  rec.scale = std::move(compiled.scale);
  rec.skipped = std::move(compiled.skipped);
  if (!compiled.optimizer_skipped.empty()) rec.optimizer_skipped = std::move(compiled.optimizer_skipped);
  rec.final_params = std::move(compiled.final_params);
  rec.optimizer_state = std::move(compiled.optimizer_state);
  if (!rec.final_probe.empty()) rec.final_probe = std::move(compiled.final_probe);
  rec.nonfinite_values = 0;
  for (const float v : rec.final_params) rec.nonfinite_values += std::isfinite(v) ? 0 : 1;
  // A diagnosis and a hash of the eager run would be taken for the compiled
  // one's; what the recipe engaged and the gradients' health are the recipe's.
  rec.nonfinite.reset();
  rec.fingerprint.reset();
  rec.compiled = std::move(compiled.run);
  if (rec.throughput) {
    rec.compiled->eager_samples_per_s = rec.throughput->samples_per_s;
    if (compiled.samples_per_s.empty()) {
      rec.throughput.reset();  // the eager loop's speed is not the compiled one's
    } else {
      rec.throughput->samples_per_s = std::move(compiled.samples_per_s);
      // Timed in Python as bench.py times (the results schema's names).
      rec.throughput->timing_method =
          rec.spec.device == DeviceKind::kCuda ? "python_cuda_events" : "python_perf_counter";
      rec.throughput->peak_memory_bytes.reset();
    }
  }
}

}  // namespace ampbench
