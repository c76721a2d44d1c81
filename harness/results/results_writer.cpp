#include "results/results_writer.h"
#include "results/convergence_json.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>

#include "core/median.h"
#include "io/atomic_file.h"
#include "results/json_numbers.h"
#include "spec/case_identity.h"
#include "spec/fp8_settings_json.h"
#include "workloads/workload.h"

namespace ampbench {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? finite_or_null(*v) : json(nullptr); }

json throughput_to_json(const ThroughputRecord& t, const ThroughputStats& stats) {
  return {
      {"unit", "samples/s"},
      {"timing", t.timing_method},
      {"input", to_string(t.input)},
      {"warmup_steps", t.warmup_steps},
      {"measured_steps", t.measured_steps},
      {"repetitions", t.samples_per_s.size()},
      {"samples_per_s", t.samples_per_s},
      {"median", stats.median},
      {"min", stats.min},
      {"max", stats.max},
      {"iqr", stats.iqr},
      {"stddev", stats.stddev},
      {"cv", stats.cv},
      {"step_time_ms", stats.step_time_ms},
      {"training_flops_per_sample", t.training_flops_per_sample},
      {"achieved_flops_per_s", stats.achieved_flops_per_s},
      {"speedup_vs_fp32", optional_number(stats.speedup_vs_fp32)},
      {"model_flop_utilization", optional_number(stats.model_flop_utilization)},
      {"ceiling_speedup_vs_fp32", optional_number(stats.ceiling_speedup_vs_fp32)},
      {"peak_memory_bytes", t.peak_memory_bytes ? json(*t.peak_memory_bytes) : json(nullptr)},
      {"peak_memory_kind", t.peak_memory_kind},
  };
}

json grad_health_to_json(const GradHealthTrace& g) {
  return {
      {"scale", g.scale},
      {"underflow_fp16_fraction_at_scale_1", g.underflow_at_scale_1},
      {"underflow_fp16_fraction_at_scale", g.underflow_at_scale},
      {"nonfinite", g.nonfinite},
  };
}

json ddp_to_json(const ScalingRecord& d) {
  return {
      {"per_rank_samples_per_s", d.per_rank_samples_per_s},
      {"aggregate_samples_per_s", d.aggregate_samples_per_s},
      {"scaling_efficiency", d.scaling_efficiency},
      {"replicas", d.replicas},
      {"one_replica_samples_per_s", d.one_replica_samples_per_s},
      {"backend", d.backend},
  };
}

// Each metric's distance, envelope and bound (per step for the loss), and
// how close it came to its bound.
json bounds_to_json(const Verdict& v) {
  json out = json::object();
  for (const MetricCheck& m : v.checks) {
    out[m.name] = {{"distance", finite_or_null(m.distance)},
                   {"envelope", m.envelope.empty() ? json(nullptr) : finite_or_null(m.envelope)},
                   {"bound", finite_or_null(m.bound)},
                   {"max_ratio", finite_or_null(m.max_ratio)},
                   {"peak_step", m.peak_step},
                   {"exempt_steps", m.exempt_steps}};
  }
  return out;
}

json envelope_to_json(const Verdict& v) {
  if (!v.envelope) return nullptr;
  return {{"c", v.envelope_c},
          {"noise", to_string(v.envelope->noise)},
          {"replicas", v.envelope->replicas},
          {"unit_roundoff", v.envelope->unit_roundoff}};
}

// A borderline verdict's fresh-seed runs (check/confirmation.h).
json confirmations_to_json(const std::vector<Confirmation>& runs) {
  json out = json::array();
  for (const Confirmation& c : runs)
    out.push_back({{"seed", c.seed},
                   {"max_ratio", finite_or_null(c.max_ratio)},
                   {"passed", c.passed},
                   {"failure", c.failure.empty() ? json(nullptr) : json(c.failure)}});
  return out;
}

json verdict_to_json(const Verdict& v) {
  json metrics = json::object();
  for (const auto& [k, value] : v.metrics) metrics[k] = finite_or_null(value);
  json deviation = json::array();
  for (double d : v.deviation_per_step) deviation.push_back(finite_or_null(d));
  const ResolvedTolerances& t = v.tolerances;
  return {
      {"metrics", metrics},
      {"tolerances",
       {{"loss_rel", t.loss_rel},
        {"param_rel_l2", t.param_rel},
        {"optimizer_state_rel_l2", t.optimizer_state_rel},
        {"final_loss_ratio", t.final_loss_ratio},
        {"max_skipped_steps", t.max_skipped_steps},
        {"max_calibration_skips", t.max_calibration_skips},
        {"unit_roundoff", t.unit_roundoff},
        {"fp32_noise", t.fp32_noise}}},
      {"deviation_per_step", deviation},
      {"envelope", envelope_to_json(v)},
      {"bounds", bounds_to_json(v)},
      {"max_ratio", finite_or_null(v.max_ratio)},
      {"scale_audit_failed", v.scale_audit_failed},
      {"first_crossing_step", v.first_crossing_step ? json(*v.first_crossing_step) : json(nullptr)},
      {"failures", v.failures},
      // Steps the fp32 reference skipped to line up with this case's scaler.
      {"aligned_skips", v.aligned_skips},
      {"confirmations", confirmations_to_json(v.confirmations)},
      {"overruled_failures", v.overruled_failures},
  };
}

json fingerprint_to_json(const CaseFingerprint& f) {
  return {{"algorithm", "fnv1a64"},
          {"hash", f.combined},
          {"loss", f.loss},
          {"final_params", f.final_params},
          {"optimizer_state", f.optimizer_state}};
}

template <typename T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// Per step and per case: what the workload's mechanism did.
json engagement_to_json(const CaseRecord& r, const EngagementSummary& s) {
  json steps = json::array();
  for (const Engagement& e : r.engagement) {
    json step = json::object();
    if (e.grad_norm) step["grad_norm"] = finite_or_null(*e.grad_norm);
    if (e.clipped) step["clipped"] = *e.clipped;
    if (e.clipped_norm) step["clipped_norm"] = finite_or_null(*e.clipped_norm);
    if (e.clipped_fraction) step["clipped_fraction"] = *e.clipped_fraction;
    if (e.clipped_max_abs) step["clipped_max_abs"] = finite_or_null(*e.clipped_max_abs);
    if (e.penalty_ratio) step["penalty_ratio"] = finite_or_null(*e.penalty_ratio);
    if (e.micro_batches) step["micro_batches"] = *e.micro_batches;
    steps.push_back(std::move(step));
  }
  return {{"clipped_steps", optional_json(s.clipped_steps)},
          {"min_grad_norm", optional_json(s.min_grad_norm)},
          {"max_grad_norm", optional_json(s.max_grad_norm)},
          {"worst_clipped_ratio", optional_json(s.worst_clipped_ratio)},
          {"mean_clipped_fraction", optional_json(s.mean_clipped_fraction)},
          {"mean_penalty_ratio", optional_json(s.mean_penalty_ratio)},
          {"min_micro_batches", optional_json(s.min_micro_batches)},
          {"scale_growths", s.scale_growths},
          {"scale_backoffs", s.scale_backoffs},
          {"optimizer_steps", s.optimizer_steps},
          {"optimizer_skips", s.optimizer_skips},
          {"per_step", steps}};
}

}  // namespace

// An FP8 case's recipe and, once it ran, each Linear layer's choice; null
// for the other precisions.
json fp8_json(const CaseSpec& s, const CaseRecord& r) {
  if (!s.fp8) return nullptr;
  json j = fp8_settings_json(*s.fp8);
  json layers = json::array();
  size_t converted = 0;  // index into each step of fp8_scales
  for (const fp8::LinearChoice& c : r.fp8_layers) {
    json layer = {{"name", c.name},
                  {"in_features", c.in_features},
                  {"out_features", c.out_features},
                  {"converted", c.converted},
                  {"reason", c.converted ? json(nullptr) : json(c.reason)}};
    if (c.converted && !r.fp8_scales.empty()) {
      json scales = {{"input", json::array()}, {"weight", json::array()}, {"grad_output", json::array()}};
      for (const auto& step : r.fp8_scales) {
        scales["input"].push_back(finite_or_null(step.at(converted)[0]));
        scales["weight"].push_back(finite_or_null(step.at(converted)[1]));
        scales["grad_output"].push_back(finite_or_null(step.at(converted)[2]));
      }
      layer["scales"] = scales;
    }
    if (c.converted && converted < r.fp8_range.size()) {
      const CaseRecord::Fp8RangeCounts& n = r.fp8_range[converted];
      json range;
      const char* operands[] = {"input", "weight", "grad_output"};
      for (size_t k = 0; k < 3; ++k)
        range[operands[k]] = {{"saturated", n.saturated[k]}, {"flushed", n.flushed[k]}, {"elements", n.elements[k]}};
      layer["range"] = range;
    }
    converted += c.converted ? 1 : 0;
    layers.push_back(layer);
  }
  j["layers"] = layers;
  return j;
}

// How torch.compile took a compiled case, what compiling cost, and the
// compiled loop's speed over the eager C++ loop's on the same case.
json compiled_to_json(const CompiledRun& c, const std::optional<ThroughputStats>& compiled_speed) {
  json breaks = json::array();
  for (const std::string& why : c.graph_breaks) breaks.push_back({{"reason", why}});
  json eager = nullptr;
  json speedup = nullptr;
  if (!c.eager_samples_per_s.empty()) {
    const double eager_median = median(c.eager_samples_per_s);
    eager = {{"samples_per_s", c.eager_samples_per_s}, {"median", eager_median}};
    if (compiled_speed && eager_median > 0) speedup = compiled_speed->median / eager_median;
  }
  return {{"mode", c.mode},
          {"compile_step", c.compile_step},
          {"fault", c.fault.empty() ? json(nullptr) : json(c.fault)},
          {"torch_version", c.torch_version},
          {"graphs", c.graphs},
          {"graph_break_count", c.graph_breaks.size()},
          {"graph_breaks", breaks},
          {"recompiles", c.recompiles},
          {"ran_eager", c.ran_eager},
          {"fullgraph", {{"ok", c.fullgraph}, {"reason", c.fullgraph_refusal.empty() ? json(nullptr) : json(c.fullgraph_refusal)}}},
          {"compile_seconds", {{"cold", finite_or_null(c.seconds_cold)},
                               {"warm", finite_or_null(c.seconds_warm)},
                               {"cold_cache_reused", c.cache_reused}}},
          {"eager_throughput", eager},
          {"speedup_vs_eager", speedup},
          {"emulated_max_ratio", c.emulated_max_ratio ? finite_or_null(*c.emulated_max_ratio) : json(nullptr)}};
}

json case_to_json(const CaseResult& result) {
  const CaseRecord& r = result.record;
  const CaseSpec& s = r.spec;
  const std::optional<Verdict>& verdict = result.verdict;
  const std::optional<EngagementSummary>& engagement = result.engagement;
  json losses = json::array();
  for (double l : r.loss) losses.push_back(finite_or_null(l));
  json noise = nullptr;
  if (r.noise_loss_rel) noise = {{"loss_rel", *r.noise_loss_rel}, {"param_rel_l2", r.noise_param_rel.value_or(0)}};
  json j = case_identity_json(s);
  j.update({
      {"tag", s.tag},
      {"scaler_enabled", s.scaler_enabled},
      {"device", to_string(s.device)},
      {"world_size", s.world_size},
      {"batch_size", find_workload(s.workload->name()).effective_batch(s)},
      {"steps", s.steps},
      {"seed", s.seed},
      {"expect", to_string(s.expect)},
      {"status", to_string(result.status)},
      {"conforms", result.conforms ? json(*result.conforms) : json(nullptr)},
      {"reason", result.reason.empty() ? json(nullptr) : json(result.reason)},
      {"baseline_id", s.baseline_id.empty() ? json(nullptr) : json(s.baseline_id)},
      {"trajectory", {{"loss", losses}, {"scale", r.scale}, {"skipped", r.skipped}}},
      {"fp32_noise", noise},
      {"check", verdict && r.status == RunStatus::kRan ? verdict_to_json(*verdict) : json(nullptr)},
      {"engagement", engagement && r.status != RunStatus::kSkipped ? engagement_to_json(r, *engagement) : json(nullptr)},
      {"grad_health", r.grad_health && r.status == RunStatus::kRan ? grad_health_to_json(*r.grad_health) : json(nullptr)},
      {"throughput", r.throughput && result.throughput ? throughput_to_json(*r.throughput, *result.throughput)
                                                       : json(nullptr)},
      {"ddp", r.ddp ? ddp_to_json(*r.ddp) : json(nullptr)},
      {"wall_seconds", r.wall_seconds},
      {"ranks_agreed", r.ranks_agreed > 0 ? json(r.ranks_agreed) : json(nullptr)},
      {"nonfinite", r.nonfinite ? json{{"first_step", r.nonfinite->step}, {"where", r.nonfinite->where}} : json(nullptr)},
      {"gate", s.gate_min_effect ? json{{"min_effect", *s.gate_min_effect}} : json(nullptr)},
      {"attention_backend", r.attention_backend.empty() ? json(nullptr) : json(r.attention_backend)},
  });
  // Only under --deterministic: absent, a reader cannot mistake "not asked"
  // for "asked and empty".
  j["fp8"] = fp8_json(s, r);
  // Only in converge cases: every other case's JSON is unchanged.
  if (s.convergence) j["convergence"] = convergence_to_json(r, r.status == RunStatus::kRan ? verdict : std::nullopt);
  if (r.fingerprint && r.status == RunStatus::kRan) j["fingerprint"] = fingerprint_to_json(*r.fingerprint);
  // Only in a compiled run's cases: an eager results file is unchanged.
  if (s.implementation == Implementation::kCompiled) {
    j["implementation"] = to_string(s.implementation);
    j["compiled"] = r.compiled ? compiled_to_json(*r.compiled, result.throughput) : json(nullptr);
  }
  return j;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ResultsWriter::ResultsWriter(std::string path, std::string suite_name, std::string suite_file, json env)
    : path_(std::move(path)) {
  doc_ = {
      {"schema", "ampbench.results"},
      {"schema_version", kResultsSchemaVersion},
      {"suite", std::move(suite_name)},
      {"suite_file", std::move(suite_file)},
      {"started_utc", utc_now_iso8601()},
      {"finished_utc", nullptr},
      {"complete", false},
      {"env", std::move(env)},
      {"cases", json::array()},
  };
  flush();
}

void ResultsWriter::add_json(json case_json) {
  doc_["cases"].push_back(std::move(case_json));
  flush();
}

void ResultsWriter::set(const std::string& key, json value) {
  doc_[key] = std::move(value);
  flush();
}

void ResultsWriter::finish() {
  doc_["finished_utc"] = utc_now_iso8601();
  doc_["complete"] = true;
  flush();
}

void ResultsWriter::flush() { io::write_file_atomically(path_, doc_.dump(1)); }

}  // namespace ampbench
