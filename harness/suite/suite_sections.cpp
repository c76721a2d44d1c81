#include "suite/suite_sections.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "spec/workload_traits.h"

namespace ampbench::suite_detail {

using nlohmann::json;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool is_plain_name(const std::string& name) {
  if (name.empty() || name.size() > 128 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
           ch == '_' || ch == '-';
  });
}

void require_known(Reader& r, const std::string& key, const std::string& value,
                   const std::vector<std::string>& known, const std::string& what) {
  if (!contains(known, value)) r.fail(key, "unknown " + what + " '" + value + "' (known: " + join(known) + ")");
}

ScalerSettings read_scaler(Reader r, ScalerSettings s) {
  s.init_scale = r.get("init_scale", s.init_scale);
  s.growth_factor = r.get("growth_factor", s.growth_factor);
  s.backoff_factor = r.get("backoff_factor", s.backoff_factor);
  s.growth_interval = r.get("growth_interval", s.growth_interval);
  require_positive(r, "init_scale", s.init_scale);
  // The scale is a float32 tensor: any finite float32 is a legal start (2^100
  // is a real test of the growth guard; float32 overflows past 3.4e38).
  if (!(s.init_scale <= std::numeric_limits<float>::max()))
    r.fail("init_scale", "must be finite in float32 (at most 3.4e38), got " + number(s.init_scale));
  if (!(s.growth_factor > 1 && s.growth_factor <= 1e3)) r.fail("growth_factor", "must be in (1, 1000]");
  if (!(s.backoff_factor > 0 && s.backoff_factor < 1)) r.fail("backoff_factor", "must be in (0, 1)");
  require_in(r, "growth_interval", s.growth_interval, 1, 1e9);
  r.reject_unknown_keys();
  return s;
}

const std::vector<std::string> kSettingKeys = {"steps", "seed", "lr", "cosine_schedule", "iters_to_accumulate",
                                               "max_norm", "clip_value", "loss_multiplier", "inject_inf_step",
                                               "world_size", "scaler", "resume_at", "optimizer_settings",
                                               "loss", "label_smoothing", "inject_inf_param", "multi_coefficients"};

TrainingSettings read_settings(Reader& r, TrainingSettings s) {
  s.steps = r.get("steps", s.steps);
  require_in(r, "steps", s.steps, 1, kMaxSteps);
  s.seed = r.get<std::uint64_t>("seed", s.seed);
  if (r.has("lr")) {
    const json& lr = r.raw("lr");
    if (lr.is_number()) {
      for (auto& [opt, value] : s.lr) value = lr.get<double>();
    } else {
      Reader lr_reader = r.child("lr");
      for (const auto& opt : known_optimizers()) s.lr[opt] = lr_reader.get(opt, s.lr[opt]);
      lr_reader.reject_unknown_keys();
    }
    for (const auto& [opt, value] : s.lr) {
      require_positive(r, "lr", value);
      require_in(r, "lr", value, 0, kMaxFactor);
    }
  }
  s.cosine_schedule = r.get("cosine_schedule", s.cosine_schedule);
  s.iters_to_accumulate = r.get("iters_to_accumulate", s.iters_to_accumulate);
  require_in(r, "iters_to_accumulate", s.iters_to_accumulate, 1, kMaxAccumulation);
  s.max_norm = r.get("max_norm", s.max_norm);
  require_positive(r, "max_norm", s.max_norm);
  require_in(r, "max_norm", s.max_norm, 0, kMaxFactor);
  s.clip_value = r.get("clip_value", s.clip_value);
  require_positive(r, "clip_value", s.clip_value);
  require_in(r, "clip_value", s.clip_value, 0, kMaxFactor);
  s.loss_multiplier = r.get("loss_multiplier", s.loss_multiplier);
  require_positive(r, "loss_multiplier", s.loss_multiplier);
  require_in(r, "loss_multiplier", s.loss_multiplier, 0, kMaxFactor);
  s.inject_inf_step = r.get("inject_inf_step", s.inject_inf_step);
  if (s.inject_inf_step < -1) r.fail("inject_inf_step", "must be -1 (none) or a step index, got " + std::to_string(s.inject_inf_step));
  if (s.inject_inf_step >= s.steps) r.fail("inject_inf_step", "must be below steps (" + std::to_string(s.steps) + ")");
  s.world_size = r.get("world_size", s.world_size);
  require_in(r, "world_size", s.world_size, 1, kMaxWorldSize);
  if (r.has("scaler")) s.scaler = read_scaler(r.child("scaler"), s.scaler);
  s.resume_at = r.get("resume_at", s.resume_at);
  if (s.resume_at != -1 && !(s.resume_at >= 1 && s.resume_at < s.steps))
    r.fail("resume_at", "must be -1 (never) or a step in [1, steps) (steps " + std::to_string(s.steps) + "), got " +
                            std::to_string(s.resume_at));
  s.cuda_graph = r.get("cuda_graph", s.cuda_graph);
  if (r.has("optimizer_impl")) {
    try {
      s.optimizer_impl = optim::parse_impl(r.require<std::string>("optimizer_impl"));
    } catch (const std::invalid_argument& e) {
      r.fail("optimizer_impl", e.what());
    }
  }
  read_training_options(r, s);
  return s;
}

ModelSizes read_sizes(Reader r, const ModelFamily& family) {
  ModelSizes s;
  s.batch = r.require<int>("batch");
  std::vector<std::pair<std::string, int>> dims = {{"batch", s.batch}};
  // A next-token model's classes are its vocabulary.
  if (family.target == TargetKind::kClass) {
    s.classes = r.require<int>("classes");
    dims.emplace_back("classes", s.classes);
  }
  for (const auto& [key, field] : family.size_keys) {
    s.*field = r.require<int>(key);
    dims.emplace_back(key, s.*field);
  }
  for (const auto& [key, field] : family.optional_size_keys) {
    s.*field = r.get(key, s.*field);
    dims.emplace_back(key, s.*field);
  }
  if (family.target == TargetKind::kNextToken) s.classes = s.vocab;
  if (family.reads_channels_last) s.channels_last = r.get("channels_last", false);
  r.reject_unknown_keys();
  for (const auto& [key, v] : dims) require_in(r, key, v, 1, kMaxDimension);
  if (family.sizes_refusal)
    if (const auto [key, why] = family.sizes_refusal(s); !why.empty()) r.fail(key, why);
  return s;
}

ToleranceRule read_rule(Reader r, ToleranceRule rule, double noise_factor) {
  rule.loss_rel_units = r.get("loss_rel_units", rule.loss_rel_units);
  rule.param_rel_units = r.get("param_rel_units", rule.param_rel_units);
  rule.optimizer_state_rel_units = r.get("optimizer_state_rel_units", rule.optimizer_state_rel_units);
  rule.final_loss_ratio_units = r.get("final_loss_ratio_units", rule.final_loss_ratio_units);
  rule.max_extra_skipped_steps = r.get("max_extra_skipped_steps", rule.max_extra_skipped_steps);
  rule.max_calibration_skips = r.get("max_calibration_skips", rule.max_calibration_skips);
  const std::pair<const char*, double> units[] = {{"loss_rel_units", rule.loss_rel_units},
                                                  {"param_rel_units", rule.param_rel_units},
                                                  {"optimizer_state_rel_units", rule.optimizer_state_rel_units},
                                                  {"final_loss_ratio_units", rule.final_loss_ratio_units}};
  for (const auto& [key, v] : units)
    if (!(v > 0 && v <= 1e6)) r.fail(key, "must be in (0, 1e6] units of the precision's unit roundoff");
  if (rule.max_extra_skipped_steps < 0) r.fail("max_extra_skipped_steps", "must be >= 0");
  if (rule.max_calibration_skips < 0) r.fail("max_calibration_skips", "must be >= 0");
  require_in(r, "max_extra_skipped_steps", rule.max_extra_skipped_steps, 0, kMaxSteps);
  require_in(r, "max_calibration_skips", rule.max_calibration_skips, 0, kMaxSteps);
  rule.noise_factor = noise_factor;
  r.reject_unknown_keys();
  return rule;
}

EnvelopeSettings read_envelope(Reader r) {
  EnvelopeSettings e;
  e.replicas = r.get("replicas", e.replicas);
  if (e.replicas < 0 || e.replicas > 16) r.fail("replicas", "must be in [0, 16] (0: floors only)");
  e.c = r.get("c", e.c);
  if (!(e.c >= 1 && e.c <= 1000)) r.fail("c", "must be in [1, 1000]");
  const std::string noise = r.get<std::string>("noise", to_string(e.noise));
  const auto model = parse_noise_model(noise);
  if (!model) r.fail("noise", "expected \"grad\", \"init\" or \"grad+init\", got \"" + noise + "\"");
  e.noise = *model;
  r.reject_unknown_keys();
  return e;
}

ToleranceTable read_tolerances(Reader r) {
  ToleranceTable table;
  const double noise_factor = r.get("noise_factor", 10.0);
  if (!(noise_factor >= 0 && noise_factor <= 1e6)) r.fail("noise_factor", "must be in [0, 1e6]");
  if (r.has("envelope")) table.envelope = read_envelope(r.child("envelope"));
  for (const std::string& precision : PrecisionPolicy::names()) {
    // tf32, o2 and o3 came later: only a suite that runs them must declare
    // their rows (require_tolerance_row); the original three stay required.
    if (!r.has(precision)) {
      if (PrecisionPolicy::parse(precision).tolerance_row_optional()) continue;
      r.fail(precision, "missing required field (tolerances are declared per precision)");
    }
    table.by_precision[precision] = read_rule(r.child(precision), ToleranceRule{}, noise_factor);
  }
  r.reject_unknown_keys();
  return table;
}

InputMode read_input_mode(Reader& r, InputMode fallback) {
  if (!r.has("input")) return fallback;
  const std::string input = r.get<std::string>("input", "cached");
  if (input == "cached") return InputMode::kCached;
  if (input == "host") return InputMode::kHost;
  r.fail("input", "expected \"cached\" or \"host\", got \"" + input + "\"");
}

EngagementRule read_engagement(Reader r) {
  EngagementRule e;
  e.clip_norm_min_steps = r.get("clip_norm_min_steps", e.clip_norm_min_steps);
  if (!(e.clip_norm_min_steps > 0 && e.clip_norm_min_steps <= 1)) r.fail("clip_norm_min_steps", "must be in (0, 1]");
  e.clip_value_min_fraction = r.get("clip_value_min_fraction", e.clip_value_min_fraction);
  if (!(e.clip_value_min_fraction > 0 && e.clip_value_min_fraction <= 1))
    r.fail("clip_value_min_fraction", "must be in (0, 1]");
  e.penalty_min_ratio = r.get("penalty_min_ratio", e.penalty_min_ratio);
  if (!(e.penalty_min_ratio > 0 && e.penalty_min_ratio <= 1e6)) r.fail("penalty_min_ratio", "must be in (0, 1e6]");
  r.reject_unknown_keys();
  return e;
}

GateSettings read_gate(Reader r) {
  GateSettings g;
  if (r.has("min_effect")) {
    g.min_effect = r.get<double>("min_effect", 0);
    if (!(*g.min_effect > 0 && *g.min_effect < 1)) r.fail("min_effect", "must be in (0, 1), e.g. 0.05 for 5%");
  }
  r.reject_unknown_keys();
  return g;
}

ThroughputSettings read_throughput(Reader r) {
  ThroughputSettings t;
  t.enabled = r.get("enabled", t.enabled);
  t.warmup_steps = r.get("warmup_steps", t.warmup_steps);
  t.measured_steps = r.get("measured_steps", t.measured_steps);
  t.repetitions = r.get("repetitions", t.repetitions);
  require_in(r, "warmup_steps", t.warmup_steps, 0, kMaxSteps);
  require_in(r, "measured_steps", t.measured_steps, 1, kMaxSteps);
  require_in(r, "repetitions", t.repetitions, 1, kMaxRepetitions);
  t.input = read_input_mode(r, t.input);
  r.reject_unknown_keys();
  return t;
}

// O2 and O3 cast one process's model; the replicated workloads keep float32
// replicas (DataParallel) or bucket float32 gradients (DDP).
std::string model_refusal(const std::string& workload, const ModelFamily& family) {
  if (workload_traits(workload).replication() != Replication::kThreads || family.replicable) return "";
  return workload + " replicates the model, and model family '" + family.name + "' cannot be replicated" +
         (family.scripted ? " (DataParallel's replicate clones LibTorch modules; a TorchScript module is not one: use ddp)"
                          : "");
}

std::string family_precision_refusal(const std::string& workload, const ModelFamily& family,
                                    const PrecisionPolicy& precision) {
  if (!workload_traits(workload).second_order()) return "";
  if (!family.first_order_only.empty())
    return workload + " differentiates the backward pass, and model family '" + family.name + "' cannot: " +
           family.first_order_only;
  if (!family.small_layernorm_inputs ||
      precision.model_dtype() != c10::ScalarType::Half)
    return "";
  return workload + " differentiates the backward pass, and " + precision.name() + " casts model family '" +
         family.name + "''s LayerNorms to float16, whose double backward overflows on its 0.02-scale embeddings " +
         "(use fp16 or bf16 autocast for this workload)";
}

std::string precision_refusal(const std::string& workload, const PrecisionPolicy& precision) {
  const WorkloadTraits& traits = workload_traits(workload);
  // The FP8 Linear's backward is not itself differentiable (_scaled_mm has
  // no derivative; torchao's Float8Linear fails a gradient penalty too). Delayed scaling's
  // state lives in the module a replica is cloned from, and under DDP would
  // need its amaxes all-reduced across ranks, as Transformer Engine does; the
  // dynamic recipes keep no state and replicate as torchao's do.
  if (precision.is_fp8() && traits.second_order())
    return precision.name() + ": " + workload +
           " differentiates the backward pass, which the FP8 Linear's GEMMs cannot (at::_scaled_mm has no "
           "derivative; torchao's Float8Linear cannot either)";
  if (precision.precision() == Precision::kFp8Delayed && traits.replicated())
    return precision.name() + " runs the single-process workloads only; " + workload +
           " replicates the model, and delayed scaling's amax history would need to be shared by the replicas "
           "(all-reduced across ranks, as Transformer Engine's reduce_amax does), which this harness does not do; "
           "fp8_tensorwise, fp8_rowwise and mxfp8 keep no state and run it";
  if (precision.model_dtype() == c10::ScalarType::Float || !traits.replicated()) return "";
  return precision.name() + " runs the single-process workloads only; " + workload +
         " replicates the model (use fp16 for its O1 column)";
}

// What a CUDA-graph capture cannot hold: a host read of the inf flag or of
// a step count (only the fused optimizers keep both on the device), a batch
// that changes, a learning rate that changes, a workload whose step reads
// the loss scale on the host or runs replicas, or optimizer state that the
// first step would create inside the capture.
std::string graph_refusal(const CaseSpec& c) {
  if (!c.cuda_graph) return "";
  if (!c.workload->capturable())
    return "the " + c.workload->name() + " workload cannot be captured (it reads values on the host or runs replicas)";
  if (c.optimizer_impl != optim::Impl::kFused)
    return "needs \"optimizer_impl\": \"fused\" (a captured step cannot read the inf flag or a step count on the "
           "host)";
  if (c.throughput.input != InputMode::kCached) return "needs the cached input (a capture reads one static batch)";
  if (c.cosine_schedule) return "a capture fixes the learning rate: no cosine_schedule";
  if (c.throughput.warmup_steps < 1)
    return "needs throughput.warmup_steps >= 1 (the first step creates the optimizer state, which must exist "
           "before the capture)";
  return "";
}

}  // namespace ampbench::suite_detail
