#include "suite/suite.h"
#include "core/build_info.h"
#include "io/json_file.h"
#include "suite/memory_estimate.h"
#include "suite/suite_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ampbench {

using nlohmann::json;

const std::vector<std::string>& known_workloads() {
  static const std::vector<std::string> names = {"plain", "clip_norm", "clip_value", "accumulation",
                                                 "penalty", "multi", "dataparallel", "ddp"};
  return names;
}

// Negative controls: each is one known AMP mistake (README "Negative controls"), written next to the
// correct workload it breaks.
const std::vector<std::string>& known_variants(const std::string& workload) {
  static const std::map<std::string, std::vector<std::string>> variants = {
      {"plain", {"correct", "no_scaler", "fresh_scaler_each_step"}},
      {"clip_norm", {"correct", "clip_before_unscale"}},
      {"clip_value", {"correct", "clip_before_unscale"}},
      {"accumulation", {"correct", "step_every_microbatch"}},
      {"penalty", {"correct", "penalty_from_scaled_grads"}},
      {"multi", {"correct", "update_per_optimizer"}},
      {"ddp", {"correct", "rank_disagreement"}},
  };
  static const std::vector<std::string> none = {"correct"};
  const auto it = variants.find(workload);
  return it == variants.end() ? none : it->second;
}

const std::vector<std::string>& known_models() {
  static const std::vector<std::string> names = {"mlp", "cnn", "transformer"};
  return names;
}

const std::vector<std::string>& known_optimizers() {
  static const std::vector<std::string> names = {"sgd", "adamw"};
  return names;
}

std::string make_case_id(const CaseSpec& spec) {
  std::string id = spec.workload;
  if (spec.variant != "correct") id += "+" + spec.variant;
  id += "/" + spec.model + "/" + spec.precision.name();
  // fp32 with a scaler is the exact-scaling check, distinct from its baseline.
  if (spec.scaler_enabled && !spec.precision.needs_scaler()) id += "+scaler";
  id += "/" + spec.optimizer;
  if (!spec.tag.empty()) id += "@" + spec.tag;
  return id;
}

namespace {

using suite_detail::number;
using suite_detail::Reader;
using suite_detail::require_in;
using suite_detail::require_positive;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Upper bounds far beyond every suite in suites/ (at most 30 steps, batch
// 512, hidden 4096) and low enough that a typo cannot start a run of days or
// an allocation of terabytes (the memory estimate below catches products).
constexpr int kMaxSteps = 100000;
constexpr int kMaxDimension = 1 << 20;  // any one model size, batch included
constexpr int kMaxWorldSize = 1024;     // the machine's own cap is checked at run time
constexpr int kMaxAccumulation = 1024;
constexpr int kMaxRepetitions = 1000;
constexpr double kMaxFactor = 1e6;      // lr, clipping thresholds, loss multiplier

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

// Per-case training settings that a suite's "defaults" sets and a case may
// override.
struct TrainingSettings {
  int steps = 10;
  std::uint64_t seed = 1;
  std::map<std::string, double> lr = {{"sgd", 0.05}, {"adamw", 0.003}};
  bool cosine_schedule = false;
  int iters_to_accumulate = 2;
  double max_norm = 1.0;
  double clip_value = 0.05;
  double loss_multiplier = 1.0;
  int inject_inf_step = -1;
  int world_size = 1;  // dataparallel replicas; ddp ranks (a launch's own world size wins)
  ScalerSettings scaler;
};

const std::vector<std::string> kSettingKeys = {"steps", "seed", "lr", "cosine_schedule", "iters_to_accumulate",
                                               "max_norm", "clip_value", "loss_multiplier", "inject_inf_step",
                                               "world_size", "scaler"};

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
  return s;
}

ModelSizes read_sizes(Reader r, const std::string& model) {
  ModelSizes s;
  s.batch = r.require<int>("batch");
  s.classes = r.require<int>("classes");
  if (model == "mlp") {
    s.in_features = r.require<int>("in_features");
    s.hidden = r.require<int>("hidden");
  } else if (model == "cnn") {
    s.channels = r.require<int>("channels");
    s.image = r.require<int>("image");
  } else {
    s.seq = r.require<int>("seq");
    s.d_model = r.require<int>("d_model");
    s.heads = r.require<int>("heads");
    s.ffn = r.require<int>("ffn");
    if (s.heads <= 0 || s.d_model % s.heads != 0) r.fail("heads", "must divide d_model");
  }
  r.reject_unknown_keys();
  const std::pair<const char*, int> dims[] = {{"batch", s.batch},   {"classes", s.classes}, {"in_features", s.in_features},
                                              {"hidden", s.hidden}, {"channels", s.channels}, {"image", s.image},
                                              {"seq", s.seq},       {"d_model", s.d_model}, {"heads", s.heads},
                                              {"ffn", s.ffn}};
  for (const auto& [key, v] : dims) require_in(r, key, v, 1, kMaxDimension);
  return s;
}

struct ToleranceTable {
  std::map<std::string, ToleranceRule> by_precision;
  EnvelopeSettings envelope;
};

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
    // tf32 came later: only a suite that runs it must declare its row
    // (require_tolerance_row); the original three stay required everywhere.
    if (!r.has(precision)) {
      if (precision == "tf32") continue;
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

struct SuiteContext {
  std::string file;
  std::string device;
  TrainingSettings defaults;
  std::map<std::string, ModelSizes> models;
  ToleranceTable tolerances;
  ThroughputSettings throughput;
  EngagementRule engagement;
};

// A case's precision must have a row in "tolerances" (tf32's is optional
// until a suite runs tf32).
void require_tolerance_row(Reader& r, const std::string& key, const SuiteContext& ctx, const std::string& precision) {
  if (!ctx.tolerances.by_precision.count(precision))
    r.fail(key, "precision '" + precision + "' has no row in \"tolerances\" (add \"tolerances\": {\"" + precision +
                    "\": {...}} with its units, like fp16's)");
}

CaseSpec make_case(const SuiteContext& ctx, const std::string& workload, const std::string& model,
                   const std::string& precision, const std::string& optimizer, const TrainingSettings& s) {
  CaseSpec c;
  c.workload = workload;
  c.model = model;
  c.precision = PrecisionPolicy::parse(precision);
  c.scaler_enabled = c.precision.needs_scaler();
  c.optimizer = optimizer;
  c.device = ctx.device;
  c.steps = s.steps;
  c.seed = s.seed;
  c.lr = s.lr.at(optimizer);
  c.cosine_schedule = s.cosine_schedule;
  c.sizes = ctx.models.at(model);
  c.iters_to_accumulate = s.iters_to_accumulate;
  c.max_norm = s.max_norm;
  c.clip_value = s.clip_value;
  c.loss_multiplier = s.loss_multiplier;
  c.inject_inf_step = s.inject_inf_step;
  c.world_size = workload == "dataparallel" || workload == "ddp" ? s.world_size : 1;
  c.scaler = s.scaler;
  c.tolerance = ctx.tolerances.by_precision.at(precision);
  c.envelope = ctx.tolerances.envelope;
  c.engagement = ctx.engagement;
  c.throughput = ctx.throughput;
  return c;
}

CaseSpec read_explicit_case(const SuiteContext& ctx, Reader r) {
  const auto workload = r.require<std::string>("workload");
  require_known(r, "workload", workload, known_workloads(), "workload");
  const auto model = r.require<std::string>("model");
  require_known(r, "model", model, known_models(), "model");
  if (!ctx.models.count(model)) r.fail("model", "model '" + model + "' has no sizes in \"models\"");
  const auto precision = r.require<std::string>("precision");
  try {
    PrecisionPolicy::parse(precision);
  } catch (const std::invalid_argument& e) {
    r.fail("precision", e.what());
  }
  require_tolerance_row(r, "precision", ctx, precision);
  const auto optimizer = r.require<std::string>("optimizer");
  require_known(r, "optimizer", optimizer, known_optimizers(), "optimizer");

  TrainingSettings settings = read_settings(r, ctx.defaults);
  CaseSpec c = make_case(ctx, workload, model, precision, optimizer, settings);
  c.variant = r.get<std::string>("variant", "correct");
  require_known(r, "variant", c.variant, known_variants(workload), "variant of " + workload);
  c.tag = r.get<std::string>("tag", "");
  // Which optimizer's gradients get the injected inf: per case only (the
  // matrix mixes workloads with one optimizer and multi's two).
  c.inject_inf_optimizer = r.get("inject_inf_optimizer", 0);
  const int optimizers = workload == "multi" ? 2 : 1;
  if (c.inject_inf_optimizer < 0 || c.inject_inf_optimizer >= optimizers)
    r.fail("inject_inf_optimizer", "must be an optimizer index below " + std::to_string(optimizers) + " (the " +
                                       workload + " workload has " + std::to_string(optimizers) + "), got " +
                                       std::to_string(c.inject_inf_optimizer));
  if (c.inject_inf_optimizer != 0 && c.inject_inf_step < 0)
    r.fail("inject_inf_optimizer", "needs an \"inject_inf_step\"");
  bool overrides = r.has("inject_inf_optimizer");
  for (const auto& key : kSettingKeys) overrides = overrides || r.has(key);
  // Throughput input mode: host batches (pinned, non_blocking copies) vs one
  // cached device batch, to tell input-bound from compute-bound.
  overrides = r.has("input") || overrides;
  // A case may widen or narrow its precision's tolerances (say why in its
  // tag), e.g. more skipped steps for a scaler that is made to grow often.
  if (r.has("tolerance")) {
    overrides = true;
    c.tolerance = read_rule(r.child("tolerance"), c.tolerance, c.tolerance.noise_factor);
  }
  c.throughput.input = read_input_mode(r, c.throughput.input);
  if (r.has("gate")) {
    c.gate_min_effect = read_gate(r.child("gate")).min_effect;
  }
  if (overrides && c.tag.empty()) r.fail("tag", "a case that overrides settings needs a \"tag\" naming them");

  c.scaler_enabled = r.get("scaler_enabled", c.precision.needs_scaler());
  if (c.variant == "no_scaler") c.scaler_enabled = false;
  if (c.scaler_enabled && !c.precision.allows_scaler()) r.fail("scaler_enabled", c.precision.scaler_refusal());
  const auto expect = r.get<std::string>("expect", "pass");
  if (expect != "pass" && expect != "fail") r.fail("expect", "expected \"pass\" or \"fail\", got \"" + expect + "\"");
  c.expect = expect == "fail" ? Expect::kFail : Expect::kPass;
  if (c.variant != "correct" && c.expect != Expect::kFail)
    r.fail("expect", "negative control '" + c.variant + "' must declare \"expect\": \"fail\"");
  c.throughput.enabled = c.throughput.enabled && c.expect == Expect::kPass;
  r.reject_unknown_keys();
  return c;
}

// The fp32 run every other case is compared with: same workload, model,
// optimizer, settings and data; correct procedure; no scaler.
CaseSpec baseline_for(const CaseSpec& c, const SuiteContext& ctx) {
  CaseSpec b = c;
  b.precision = PrecisionPolicy(Precision::kFp32);
  b.variant = "correct";
  b.scaler_enabled = false;
  b.expect = Expect::kPass;
  b.tolerance = ctx.tolerances.by_precision.at("fp32");
  b.throughput = ctx.throughput;
  b.throughput.input = c.throughput.input;  // speedups compare like with like
  b.gate_min_effect = c.gate_min_effect;
  b.baseline_id.clear();
  b.id = make_case_id(b);
  return b;
}

bool needs_baseline(const CaseSpec& c) {
  return c.precision.precision() != Precision::kFp32 || c.scaler_enabled || c.variant != "correct";
}

// The baseline measures an envelope for every reduced precision compared
// with it (an fp32 case, e.g. the exact fp32+scaler check, needs none).
void request_envelope(CaseSpec& base, const CaseSpec& c) {
  const Precision p = c.precision.precision();
  if (p == Precision::kFp32 || c.envelope.replicas == 0) return;
  auto& wanted = base.envelope_precisions;
  if (std::find(wanted.begin(), wanted.end(), p) == wanted.end()) wanted.push_back(p);
}

void add_case(std::vector<CaseSpec>& cases, std::set<std::string>& ids, CaseSpec c, const SuiteContext& ctx,
              const std::string& where) {
  if (needs_baseline(c)) {
    CaseSpec base = baseline_for(c, ctx);
    c.baseline_id = base.id;
    if (!ids.count(base.id)) {
      ids.insert(base.id);
      cases.push_back(base);
    }
    for (CaseSpec& existing : cases)
      if (existing.id == base.id) request_envelope(existing, c);
  }
  c.id = make_case_id(c);
  if (ids.count(c.id)) {
    // A matrix case and an explicit case may coincide only if identical.
    if (!needs_baseline(c)) return;
    throw SuiteError(ctx.file + ": " + where + ": duplicate case id '" + c.id + "' (give it a distinct \"tag\")");
  }
  ids.insert(c.id);
  cases.push_back(std::move(c));
}

std::vector<std::string> read_list(Reader& r, const std::string& key, const std::vector<std::string>& known,
                                   const std::string& what) {
  auto values = r.require<std::vector<std::string>>(key);
  if (values.empty()) r.fail(key, "must not be empty");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!contains(known, values[i]))
      r.fail(key + "[" + std::to_string(i) + "]", "unknown " + what + " '" + values[i] + "' (known: " + join(known) + ")");
  }
  return values;
}

}  // namespace

std::string resolve_suite_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json")
    return name_or_path;
  const std::string path = std::string(build_info::source_dir()) + "/suites/" + name_or_path + ".json";
  if (!fs::exists(path)) {
    std::string known;
    for (const auto& entry : fs::directory_iterator(std::string(build_info::source_dir()) + "/suites"))
      if (entry.path().extension() == ".json") known += (known.empty() ? "" : ", ") + entry.path().stem().string();
    throw SuiteError("unknown suite '" + name_or_path + "' (known: " + known + ")");
  }
  return path;
}

namespace {
Suite parse_suite_root(const json& root, const std::string& path, const std::string& device);
}  // namespace

Suite parse_suite(const std::string& json_text, const std::string& path, const std::string& device) {
  try {
    return parse_suite_root(io::parse_json_text(json_text, path), path, device);
  } catch (const io::JsonFileError& e) {
    throw SuiteError(e.what());
  }
}

namespace {

Suite parse_suite_root(const json& root, const std::string& path, const std::string& device) {
  Reader top(root, path, "");
  Suite suite;
  suite.path = path;
  suite.name = top.require<std::string>("name");
  // The name becomes part of the default output folder (results/NAME-...):
  // "../../x" must not steer it out of results/.
  if (!is_plain_name(suite.name))
    top.fail("name", "'" + suite.name + "' is not a plain name (letters, digits, '.', '_', '-'; not starting with '.')");
  suite.description = top.get<std::string>("description", "");

  SuiteContext ctx;
  ctx.file = path;
  ctx.device = device;
  {
    Reader defaults = top.child("defaults");
    ctx.defaults = read_settings(defaults, TrainingSettings{});
    defaults.reject_unknown_keys();
  }
  if (!top.has("models")) top.fail("models", "missing required field");
  Reader models = top.child("models");
  for (const auto& name : models.keys()) {
    require_known(models, name, name, known_models(), "model");
    ctx.models[name] = read_sizes(models.child(name), name);
  }
  if (!top.has("tolerances")) top.fail("tolerances", "missing required field");
  ctx.tolerances = read_tolerances(top.child("tolerances"));
  ctx.throughput = read_throughput(top.child("throughput"));
  if (top.has("engagement")) ctx.engagement = read_engagement(top.child("engagement"));
  suite.gate = read_gate(top.child("gate"));

  std::vector<CaseSpec> cases;
  std::set<std::string> ids;
  if (top.has("matrix")) {
    Reader m = top.child("matrix");
    const auto workloads = read_list(m, "workloads", known_workloads(), "workload");
    const auto model_names = read_list(m, "models", known_models(), "model");
    const auto precisions = read_list(m, "precisions", PrecisionPolicy::names(), "precision");
    for (size_t i = 0; i < precisions.size(); ++i)
      require_tolerance_row(m, "precisions[" + std::to_string(i) + "]", ctx, precisions[i]);
    const auto optimizers = read_list(m, "optimizers", known_optimizers(), "optimizer");
    m.reject_unknown_keys();
    for (const auto& model : model_names)
      if (!ctx.models.count(model)) m.fail("models", "model '" + model + "' has no sizes in \"models\"");
    for (const auto& w : workloads)
      for (const auto& model : model_names)
        for (const auto& opt : optimizers)
          for (const auto& p : precisions)
            add_case(cases, ids, make_case(ctx, w, model, p, opt, ctx.defaults), ctx, "matrix");
  }
  if (top.has("cases")) {
    const json& list = top.raw("cases");
    if (!list.is_array()) top.fail("cases", "expected a list of cases");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = "cases[" + std::to_string(i) + "]";
      add_case(cases, ids, read_explicit_case(ctx, Reader(list[i], path, where)), ctx, where);
    }
  }
  top.reject_unknown_keys();
  if (cases.empty()) top.fail("matrix", "the suite expands to no cases");
  const double memory = static_cast<double>(physical_memory_bytes());
  for (const CaseSpec& c : cases)
    if (const std::string why = memory_refusal(c, memory); !why.empty())
      throw SuiteError(path + ": case " + c.id + " cannot fit: " + why + " (check the model sizes and steps)");
  suite.cases = std::move(cases);
  return suite;
}

}  // namespace

Suite load_suite(const std::string& name_or_path, const std::string& device) {
  const std::string path = resolve_suite_path(name_or_path);
  json root;
  try {
    root = io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    throw SuiteError(e.what());
  }
  return parse_suite_root(root, path, device);
}

std::string to_string(Expect expect) { return expect == Expect::kPass ? "pass" : "fail"; }
std::string to_string(InputMode mode) { return mode == InputMode::kCached ? "cached" : "host"; }

std::string to_string(NoiseModel noise) {
  switch (noise) {
    case NoiseModel::kGrad: return "grad";
    case NoiseModel::kInit: return "init";
    case NoiseModel::kGradInit: return "grad+init";
  }
  return "grad";
}

std::optional<NoiseModel> parse_noise_model(const std::string& name) {
  for (NoiseModel m : {NoiseModel::kGrad, NoiseModel::kInit, NoiseModel::kGradInit})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

}  // namespace ampbench
