#include "suite/case_reader.h"

#include <c10/util/Exception.h>

#include <cstring>
#include <iomanip>
#include <sstream>

#include "spec/workload_traits.h"

namespace ampbench::suite_detail {

const ModelFamily* SuiteContext::family(const std::string& name) const {
  const auto it = scripted.find(name);
  return it != scripted.end() ? it->second.get() : find_model_family(name);
}

std::vector<std::string> SuiteContext::model_names() const {
  std::vector<std::string> names = model_family_names();
  for (const auto& [name, f] : scripted) names.push_back(name);
  return names;
}

void require_tolerance_row(Reader& r, const std::string& key, const SuiteContext& ctx, const std::string& precision) {
  if (!ctx.tolerances.by_precision.count(precision))
    r.fail(key, "precision '" + precision + "' has no row in \"tolerances\" (add \"tolerances\": {\"" + precision +
                    "\": {...}} with its units, like fp16's)");
}

CaseSpec make_case(const SuiteContext& ctx, const std::string& workload, const std::string& model,
                   const std::string& precision, const std::string& optimizer, const TrainingSettings& s) {
  CaseSpec c;
  c.workload = &workload_traits(workload);
  c.model = ctx.family(model);
  c.precision = PrecisionPolicy::parse(precision);
  if (const auto scaling = fp8_scaling(c.precision)) {
    c.fp8 = Fp8Settings{fp8::RecipeOptions(*scaling), {}};
    // Blockwise tiles are 128 wide: a layer they do not divide keeps its precision.
    if (*scaling == fp8::Scaling::kBlockwise) c.fp8->conversion.alignment(fp8::kBlockwiseTileEdge);
  }
  c.scaler_enabled = c.precision.needs_scaler();
  c.optimizer = *optim::parse_kind(optimizer);
  c.optimizer_impl = s.optimizer_impl;
  c.cuda_graph = s.cuda_graph;
  c.resume_at = s.resume_at;
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
  c.world_size = workload_traits(workload).replicated() ? s.world_size : 1;
  c.scaler = s.scaler;
  c.optimizer_settings = s.optimizer_settings.at(optimizer);
  c.loss = s.loss;
  c.inject_inf_param = s.inject_inf_param;
  c.multi_coefficients = s.multi_coefficients;
  c.tolerance = ctx.tolerances.by_precision.at(precision);
  c.envelope = ctx.tolerances.envelope;
  c.engagement = ctx.engagement;
  c.throughput = ctx.throughput;
  c.expect = c.precision.verdict_required() ? Expect::kPass : Expect::kReport;
  c.gpu_sized = ctx.gpu_sized;
  if (c.workload->converges()) {
    if (!ctx.convergence)
      throw SuiteError(ctx.file + ": the " + workload + " workload needs a \"convergence\" section (docs/convergence.md)");
    c.convergence = *ctx.convergence;
    c.throughput.enabled = false;  // the run is the measurement: steps to target, not samples/s
  }
  return c;
}

namespace {

// A tag becomes part of the case id, of its dump folder's name and of the
// ranks' filter: printable, no separator those use, and short enough that
// every id fits a file name (255 bytes) with room to spare.
constexpr size_t kMaxTagLength = 64;

std::string tag_refusal(const std::string& tag) {
  if (tag.size() > kMaxTagLength)
    return "is " + std::to_string(tag.size()) + " characters long (at most " + std::to_string(kMaxTagLength) + ")";
  for (size_t i = 0; i < tag.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(tag[i]);
    if (ch <= 0x20 || ch >= 0x7f || std::strchr("/\\#:", ch)) {
      std::ostringstream why;
      why << "character " << i << " (0x" << std::hex << std::setw(2) << std::setfill('0') << int(ch)
          << ") is not allowed: a tag is printable ASCII without spaces, '/', '\\', '#' or ':'";
      return why.str();
    }
  }
  return "";
}

// The names that make an explicit case: each known, with sizes and a
// tolerance row, and a combination the workload and family can run.
struct CaseNames {
  std::string workload, model, precision, optimizer;
};

CaseNames read_names(const SuiteContext& ctx, Reader& r) {
  CaseNames n;
  n.workload = r.require<std::string>("workload");
  require_known(r, "workload", n.workload, workload_names(), "workload");
  n.model = r.require<std::string>("model");
  require_known(r, "model", n.model, ctx.model_names(), "model");
  if (!ctx.models.count(n.model)) r.fail("model", "model '" + n.model + "' has no sizes in \"models\"");
  if (const std::string why = model_refusal(n.workload, *ctx.family(n.model)); !why.empty()) r.fail("model", why);
  n.precision = r.require<std::string>("precision");
  try {
    PrecisionPolicy::parse(n.precision);
  } catch (const std::invalid_argument& e) {
    r.fail("precision", e.what());
  }
  require_tolerance_row(r, "precision", ctx, n.precision);
  const PrecisionPolicy precision = PrecisionPolicy::parse(n.precision);
  if (const std::string why = family_precision_refusal(n.workload, *ctx.family(n.model), precision); !why.empty())
    r.fail("precision", why);
  if (const std::string why = precision_refusal(n.workload, precision); !why.empty()) r.fail("precision", why);
  n.optimizer = r.require<std::string>("optimizer");
  require_known(r, "optimizer", n.optimizer, known_optimizers(), "optimizer");
  return n;
}

// Which optimizer's gradients get the injected inf: per case only (the
// matrix mixes workloads with one optimizer and multi's two).
void read_inject_inf_optimizer(Reader& r, CaseSpec& c) {
  c.inject_inf_optimizer = r.get("inject_inf_optimizer", 0);
  const std::string& workload = c.workload->name();
  const int optimizers = c.workload->models();
  if (c.inject_inf_optimizer < 0 || c.inject_inf_optimizer >= optimizers)
    r.fail("inject_inf_optimizer", "must be an optimizer index below " + std::to_string(optimizers) + " (the " +
                                       workload + " workload has " + std::to_string(optimizers) + "), got " +
                                       std::to_string(c.inject_inf_optimizer));
  if (c.inject_inf_optimizer != 0 && c.inject_inf_step < 0)
    r.fail("inject_inf_optimizer", "needs an \"inject_inf_step\"");
}

// The case's own settings beyond the defaults; a case that has any must
// name them in its tag, so two cases of one cell never share an id.
void read_overrides(Reader& r, CaseSpec& c) {
  bool overrides = r.has("inject_inf_optimizer") || r.has("fp8");
  for (const auto& key : kSettingKeys) overrides = overrides || r.has(key);
  // Throughput input mode: host batches (pinned, non_blocking copies) vs one
  // cached device batch, to tell input-bound from compute-bound.
  overrides = r.has("input") || overrides;
  // A case may size its model apart from the suite's "models" entry (every
  // key again), e.g. a Linear that blockwise FP8's 128-wide tiles divide.
  if (r.has("sizes")) {
    overrides = true;
    c.sizes = read_sizes(r.child("sizes"), *c.model);
  }
  // A case may widen or narrow its precision's tolerances (say why in its
  // tag), e.g. more skipped steps for a scaler that is made to grow often.
  if (r.has("tolerance")) {
    overrides = true;
    c.tolerance = read_rule(r.child("tolerance"), c.tolerance, c.tolerance.noise_factor);
  }
  c.throughput.input = read_input_mode(r, c.throughput.input);
  if (r.has("gate")) c.gate_min_effect = read_gate(r.child("gate")).min_effect;
  if (overrides && c.tag.empty()) r.fail("tag", "a case that overrides settings needs a \"tag\" naming them");
}

// mxfp8's "mx_scale_mode": floor (the OCP rule, the default) or rceil
// (cuBLAS's); ceil is a negative control's, not a setting.
void read_mx_scale_mode(Reader& f, fp8::RecipeOptions& recipe, const PrecisionPolicy& precision) {
  if (!f.has("mx_scale_mode")) return;
  if (recipe.scaling() != fp8::Scaling::kMxfp8)
    f.fail("mx_scale_mode", "an MXFP8 setting (mxfp8), not one of " + precision.name());
  const auto name = f.get<std::string>("mx_scale_mode", "floor");
  const auto mode = fp8::parse_mx_scale_mode(name);
  if (!mode || *mode == fp8::MxScaleMode::kCeil)
    f.fail("mx_scale_mode", "expected \"floor\" or \"rceil\", got \"" + name + "\"");
  recipe.mx_scale_mode(*mode);
}

// An FP8 case's "fp8" object: delayed scaling's arguments and whether the
// first and last Linear convert too; then the control's fault, checked
// against the recipe (a fault the recipe cannot make is refused).
void read_fp8(Reader& r, CaseSpec& c) {
  if (r.has("fp8") && !c.fp8) r.fail("fp8", "FP8 settings need an fp8_* precision, not " + c.precision.name());
  if (!c.fp8) {
    if (is_fp8_control(c.variant))
      r.fail("variant", "negative control '" + to_string(c.variant) +
                            "' is an FP8 mistake: it needs an fp8_* precision, not " + c.precision.name());
    return;
  }
  fp8::RecipeOptions& recipe = c.fp8->recipe;
  if (r.has("fp8")) {
    Reader f = r.child("fp8");
    recipe.history_len(f.get<int64_t>("history_len", recipe.history_len()));
    recipe.margin(f.get<int64_t>("margin", recipe.margin()));
    const auto algo = f.get<std::string>("amax_compute", fp8::amax_compute_name(recipe.amax_compute()));
    const auto parsed = fp8::parse_amax_compute(algo);
    if (!parsed) f.fail("amax_compute", "expected \"max\" or \"most_recent\", got \"" + algo + "\"");
    recipe.amax_compute(*parsed);
    c.fp8->conversion.convert_first(f.get("convert_first", false)).convert_last(f.get("convert_last", false));
    read_mx_scale_mode(f, recipe, c.precision);
    f.reject_unknown_keys();
    if (recipe.scaling() != fp8::Scaling::kDelayed && (f.has("history_len") || f.has("margin") || f.has("amax_compute")))
      f.fail("", "history_len, margin and amax_compute are delayed scaling's (fp8_delayed), not " + c.precision.name() + "'s");
  }
  if (const std::string why = apply_fp8_control(c.variant, c.precision, recipe); !why.empty()) r.fail("variant", why);
  // NVFP4's Hadamard signs and rounding stream follow the case's seed, so a
  // calibration over seeds varies them too.
  if (recipe.scaling() == fp8::Scaling::kNvfp4) recipe.nvfp4_seed(static_cast<int64_t>(c.seed % (uint64_t{1} << 31)));
  try {
    recipe.validate();
  } catch (const c10::Error& e) {
    r.fail("fp8", e.what_without_backtrace());
  }
}

void read_expectation(Reader& r, CaseSpec& c) {
  c.scaler_enabled = r.get("scaler_enabled", c.precision.needs_scaler());
  // Both controls train without a GradScaler (fp16_weights_no_master is O3's
  // recipe under an O2 name): the record says so, not what O2 would use.
  if (c.variant == Control::kNoScaler || c.variant == Control::kFp16WeightsNoMaster) c.scaler_enabled = false;
  if (c.scaler_enabled && !c.precision.allows_scaler()) r.fail("scaler_enabled", c.precision.scaler_refusal());
  const auto expect = r.get<std::string>("expect", to_string(c.expect));
  const auto parsed = parse_expect(expect);
  if (!parsed) r.fail("expect", "expected \"pass\", \"fail\" or \"report\", got \"" + expect + "\"");
  c.expect = *parsed;
  if (c.is_control() && c.expect != Expect::kFail)
    r.fail("expect", "negative control '" + to_string(c.variant) + "' must declare \"expect\": \"fail\"");
  c.throughput.enabled = c.throughput.enabled && c.expect != Expect::kFail;
}

}  // namespace

CaseSpec read_explicit_case(const SuiteContext& ctx, Reader r) {
  const CaseNames n = read_names(ctx, r);
  CaseSpec c = make_case(ctx, n.workload, n.model, n.precision, n.optimizer, read_settings(r, ctx.defaults));
  const auto variant = r.get<std::string>("variant", to_string(Control::kNone));
  require_known(r, "variant", variant, workload_traits(n.workload).variants(), "variant of " + n.workload);
  c.variant = *parse_control(variant);
  c.tag = r.get<std::string>("tag", "");
  if (const std::string why = tag_refusal(c.tag); !why.empty()) r.fail("tag", why);
  read_inject_inf_optimizer(r, c);
  if (c.variant == Control::kResumeWithoutScalerState && c.resume_at < 0)
    r.fail("variant", "resume_without_scaler_state needs a \"resume_at\"");
  if (c.variant == Control::kResumeWithoutFp8State && c.resume_at < 0)
    r.fail("variant", "resume_without_fp8_state needs a \"resume_at\"");
  read_overrides(r, c);
  read_fp8(r, c);
  read_expectation(r, c);
  r.reject_unknown_keys();
  return c;
}

}  // namespace ampbench::suite_detail
