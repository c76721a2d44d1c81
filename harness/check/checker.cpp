#include "check/checker.h"

#include "check/fp8_scale_audit.h"
#include "check/mx_scale_audit.h"
#include "check/rowwise_scale_audit.h"
#include "check/blockwise_scale_audit.h"
#include "check/nvfp4_scale_audit.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/distance.h"

namespace ampbench {
namespace {

std::string fmt(double v) {
  std::ostringstream out;
  out.precision(3);
  out << v;
  return out.str();
}

void require(Verdict& v, bool ok, const std::string& message) {
  if (ok) return;
  v.passed = false;
  v.failures.push_back(message);
}

int count(const std::vector<bool>& flags) { return static_cast<int>(std::count(flags.begin(), flags.end(), true)); }

// Holds `distance` (per step or one value) to max(c x envelope, floor),
// except at `exempt` steps.
MetricCheck hold(const std::string& name, std::vector<double> distance, std::vector<double> envelope, double c,
                 double floor, const std::vector<int>& exempt = {}) {
  MetricCheck m;
  m.name = name;
  m.distance = std::move(distance);
  m.envelope = std::move(envelope);
  m.exempt_steps = exempt;
  m.max_ratio = 0;
  for (size_t i = 0; i < m.distance.size(); ++i) {
    const double env = i < m.envelope.size() ? m.envelope[i] : 0.0;
    m.bound.push_back(std::max(c * env, floor));
    if (std::find(exempt.begin(), exempt.end(), static_cast<int>(i)) != exempt.end()) continue;
    const double ratio = std::isfinite(m.distance[i]) ? m.distance[i] / m.bound.back() : INFINITY;
    if (!(ratio <= m.max_ratio)) {
      m.max_ratio = std::isnan(ratio) ? INFINITY : ratio;
      m.peak_step = static_cast<int>(i);
    }
  }
  return m;
}

std::vector<double> one(double v) { return {v}; }

// Steps whose loss is not compared: skipped by the scaler with a non-finite
// loss (see MetricCheck::exempt_steps). A non-finite loss on a step that was
// NOT skipped is still a failure.
std::vector<int> skipped_nonfinite_steps(const CaseRecord& rec) {
  std::vector<int> steps;
  for (size_t i = 0; i < rec.loss.size() && i < rec.skipped.size(); ++i)
    if (rec.skipped[i] && !std::isfinite(rec.loss[i])) steps.push_back(static_cast<int>(i));
  return steps;
}

// The last step whose loss is compared (the final-loss ratio's step).
std::optional<size_t> last_compared(size_t steps, const std::vector<int>& exempt) {
  for (size_t i = steps; i-- > 0;)
    if (std::find(exempt.begin(), exempt.end(), static_cast<int>(i)) == exempt.end()) return i;
  return std::nullopt;
}

}  // namespace

ResolvedTolerances resolve_tolerances(const CaseSpec& spec, const CaseRecord& baseline) {
  const ToleranceRule& rule = spec.tolerance;
  ResolvedTolerances t;
  t.unit_roundoff = spec.precision.unit_roundoff();
  t.fp32_noise = std::max(baseline.noise_loss_rel.value_or(0), baseline.noise_param_rel.value_or(0));
  const double noise = rule.noise_factor * t.fp32_noise;
  t.loss_rel = std::max(rule.loss_rel_units * t.unit_roundoff, noise);
  t.param_rel = std::max(rule.param_rel_units * t.unit_roundoff, noise);
  t.optimizer_state_rel = std::max(rule.optimizer_state_rel_units * t.unit_roundoff, noise);
  t.final_loss_ratio = std::max(rule.final_loss_ratio_units * t.unit_roundoff, noise);
  t.max_skipped_steps = rule.max_extra_skipped_steps;
  t.max_calibration_skips = rule.max_calibration_skips;
  return t;
}

std::optional<int> first_scale_mismatch(const CaseSpec& spec, const std::vector<double>& scale,
                                        const std::vector<bool>& skipped) {
  if (!spec.scaler_enabled) return std::nullopt;
  double expected = spec.scaler.init_scale;
  int tracker = 0;
  for (size_t i = 0; i < scale.size(); ++i) {
    if (skipped[i]) {
      expected *= spec.scaler.backoff_factor;
      tracker = 0;
    } else if (++tracker == spec.scaler.growth_interval) {
      const double grown = expected * spec.scaler.growth_factor;
      if (std::isfinite(static_cast<float>(grown))) expected = grown;
      tracker = 0;
    }
    if (scale[i] != expected) return static_cast<int>(i);
  }
  return std::nullopt;
}

int unexplained_skips(const std::vector<bool>& skipped, const std::vector<double>& scale, double init_scale,
                      const std::vector<bool>& baseline_skipped, int max_calibration_skips) {
  int unexplained = 0;
  bool calibrating = true;
  int growths = 0;  // scale growths since the last skip: levels the scale may have to come back down
  for (size_t t = 0; t < skipped.size(); ++t) {
    const double before = t >= 1 && t - 1 < scale.size() ? scale[t - 1] : init_scale;
    const double after = t < scale.size() ? scale[t] : before;
    calibrating = calibrating && skipped[t] && static_cast<int>(t) < max_calibration_skips;
    if (!skipped[t]) {
      if (after > before) ++growths;
      continue;
    }
    if (calibrating) continue;
    const bool baseline_too = t < baseline_skipped.size() && baseline_skipped[t];
    if (baseline_too) continue;
    if (growths > 0) {
      --growths;  // backing off a level the scale grew to
      continue;
    }
    ++unexplained;
  }
  return unexplained;
}

namespace {

// Loss per step, against the reference; steps the scaler skipped with a
// non-finite loss are exempt. Returns the exempt steps.
std::vector<int> check_loss(Verdict& v, const CaseRecord& rec, const CaseRecord& base, const Envelope& env, double c) {
  for (size_t i = 0; i < rec.loss.size() && i < base.loss.size(); ++i)
    v.deviation_per_step.push_back(loss_deviation(rec.loss[i], base.loss[i]));
  const std::vector<int> exempt = skipped_nonfinite_steps(rec);
  v.metrics["exempt_loss_steps"] = static_cast<double>(exempt.size());
  const MetricCheck& loss =
      v.checks.emplace_back(hold("loss_rel", v.deviation_per_step, env.loss_rel, c, v.tolerances.loss_rel, exempt));
  double worst = 0;
  for (size_t i = 0; i < loss.distance.size(); ++i) {
    if (std::find(exempt.begin(), exempt.end(), static_cast<int>(i)) != exempt.end()) continue;
    if (!(loss.distance[i] <= worst)) worst = std::isnan(loss.distance[i]) ? INFINITY : loss.distance[i];
    if (!v.first_crossing_step && !(loss.distance[i] <= loss.bound[i])) v.first_crossing_step = static_cast<int>(i);
  }
  v.metrics["max_loss_rel_dev"] = worst;
  if (v.first_crossing_step) {
    const int t = *v.first_crossing_step;
    require(v, false,
            "loss deviates from fp32 by " + fmt(loss.distance[t]) + " > " + fmt(loss.bound[t]) + " at step " +
                std::to_string(t) + " (first crossing; worst " + fmt(loss.max_ratio) + "x its bound at step " +
                std::to_string(loss.peak_step) + ")");
  }
  return exempt;
}

// Final parameters and optimizer state (relative L2), and the final loss of
// the last compared step (the last one, unless exempt).
void check_final_state(Verdict& v, const CaseRecord& rec, const CaseRecord& base, const Envelope& env, double c,
                       const std::vector<int>& exempt) {
  const ResolvedTolerances& tol = v.tolerances;
  const bool enveloped = v.envelope.has_value();
  const double param_rel = relative_l2(rec.final_params, base.final_params, base.initial_params);
  v.metrics["param_rel_l2"] = param_rel;
  const MetricCheck& params = v.checks.emplace_back(
      hold("param_rel_l2", one(param_rel), enveloped ? one(env.param_rel) : std::vector<double>{}, c, tol.param_rel));
  require(v, params.max_ratio <= 1,
          "final parameters differ from fp32 by " + fmt(param_rel) + " of the fp32 update > " + fmt(params.bound[0]));
  const double state_rel = relative_l2(rec.optimizer_state, base.optimizer_state, {});
  v.metrics["optimizer_state_rel_l2"] = state_rel;
  const MetricCheck& state = v.checks.emplace_back(
      hold("optimizer_state_rel_l2", one(state_rel), enveloped ? one(env.optimizer_state_rel) : std::vector<double>{},
           c, tol.optimizer_state_rel));
  require(v, state.max_ratio <= 1,
          "optimizer state differs from fp32 by " + fmt(state_rel) + " > " + fmt(state.bound[0]));

  const std::optional<size_t> last = last_compared(std::min(rec.loss.size(), base.loss.size()), exempt);
  const double ratio = last ? rec.loss[*last] / base.loss[*last] : NAN;
  v.metrics["final_loss_ratio"] = ratio;
  const std::vector<double> final_env =
      enveloped && last && *last < env.loss_rel.size() ? one(env.loss_rel[*last]) : std::vector<double>{};
  const MetricCheck& final_loss =
      v.checks.emplace_back(hold("final_loss_ratio", one(std::abs(ratio - 1)), final_env, c, tol.final_loss_ratio));
  require(v, final_loss.max_ratio <= 1,
          "final loss is " + fmt(ratio) + "x fp32's (allowed 1 +/- " + fmt(final_loss.bound[0]) + ")");
}

// BatchNorm networks: the probe batch's outputs (runner/probe.h), relative
// to how far fp32's outputs moved, with the parameters' floor.
void check_probe(Verdict& v, const CaseRecord& rec, const CaseRecord& base, const Envelope& env, double c) {
  if (rec.final_probe.empty() || base.final_probe.empty()) return;
  const double probe_rel = relative_l2(rec.final_probe, base.final_probe, base.initial_probe);
  v.metrics["probe_output_rel_l2"] = probe_rel;
  const MetricCheck& probe =
      v.checks.emplace_back(hold("probe_output_rel_l2", one(probe_rel),
                                 v.envelope ? one(env.probe_rel) : std::vector<double>{}, c, v.tolerances.param_rel));
  require(v, probe.max_ratio <= 1,
          "outputs on the probe batch differ from fp32's by " + fmt(probe_rel) + " of fp32's change > " +
              fmt(probe.bound[0]));
}

// Non-finite parameters, skipped steps beyond what the scaler explains, and
// the scale trajectory against GradScaler's update rule.
void check_skips_and_scale(Verdict& v, const CaseRecord& rec, const CaseRecord& baseline) {
  const ResolvedTolerances& tol = v.tolerances;
  v.metrics["nonfinite_values"] = static_cast<double>(rec.nonfinite_values);
  require(v, rec.nonfinite_values == 0, std::to_string(rec.nonfinite_values) + " non-finite values in final parameters");
  const int skipped = count(rec.skipped);
  const int unexplained = unexplained_skips(rec.skipped, rec.scale, rec.spec.scaler.init_scale, baseline.skipped,
                                            tol.max_calibration_skips);
  v.metrics["skipped_steps"] = skipped;
  v.metrics["unexplained_skipped_steps"] = unexplained;
  v.metrics["baseline_skipped_steps"] = count(baseline.skipped);
  require(v, unexplained <= tol.max_skipped_steps,
          std::to_string(skipped) + " skipped steps, " + std::to_string(unexplained) +
              " of them unexplained (not calibration, not the baseline's, not right after a growth) > " +
              std::to_string(tol.max_skipped_steps) + " allowed");
  if (const auto step = first_scale_mismatch(rec.spec, rec.scale, rec.skipped)) {
    v.metrics["scale_mismatch_step"] = *step;
    v.scale_audit_failed = true;
    require(v, false,
            "loss scale at step " + std::to_string(*step) + " is " + fmt(rec.scale[*step]) +
                ", GradScaler's update rule gives another value (scale not updated once per iteration?)");
  }
}

// The layer's name for a converted layer's index.
std::string converted_layer_name(const CaseRecord& rec, std::size_t index) {
  std::size_t converted = 0;
  for (const fp8::LinearChoice& c : rec.fp8_layers)
    if (c.converted && converted++ == index) return c.name;
  return "converted layer " + std::to_string(index);
}

// MXFP8: every cast's block exponents against the MX rule.
void check_mx_scales(Verdict& v, const CaseRecord& rec) {
  const auto mismatch = first_mx_scale_mismatch(rec.spec.fp8->recipe, rec.mx_casts);
  if (!mismatch) return;
  v.metrics["fp8_scale_mismatch_cast"] = static_cast<double>(mismatch->cast);
  v.scale_audit_failed = true;
  require(v, false,
          "MX scales of " + converted_layer_name(rec, mismatch->layer) + "'s " + fp8_operand_name(mismatch->operand) +
              " at cast " + std::to_string(mismatch->cast) + ": " + mismatch->what +
              " (scales rounded the wrong way, blocks of another size, or exponents past E8M0's range?)");
}

// Rowwise: every row's scale against torchao's rowwise rule.
void check_rowwise_scales(Verdict& v, const CaseRecord& rec) {
  const auto mismatch = first_rowwise_scale_mismatch(rec.rowwise_casts);
  if (!mismatch) return;
  v.metrics["fp8_scale_mismatch_cast"] = static_cast<double>(mismatch->cast);
  v.scale_audit_failed = true;
  require(v, false,
          "rowwise scales of " + converted_layer_name(rec, mismatch->layer) + "'s " +
              fp8_operand_name(mismatch->operand) + " at cast " + std::to_string(mismatch->cast) + ": " +
              mismatch->what + " (scales not rounded down to a power of two, or along the wrong dimension?)");
}

// NVFP4: every cast's block scales, stochastic draws and Hadamard transform
// against the recipe.
void check_nvfp4_casts(Verdict& v, const CaseRecord& rec) {
  const auto mismatch = first_nvfp4_mismatch(rec.spec.fp8->recipe, rec.nvfp4_casts);
  if (!mismatch) return;
  v.metrics["fp8_scale_mismatch_cast"] = static_cast<double>(mismatch->cast);
  v.scale_audit_failed = true;
  require(v, false,
          "NVFP4 casts of " + converted_layer_name(rec, mismatch->layer) + "'s " +
              fp8_operand_name(mismatch->operand) + " at cast " + std::to_string(mismatch->cast) + ": " +
              mismatch->what +
              " (blocks of another size, no tensor scale, the rounding stream reseeded, or no Hadamard transform?)");
}

// Blockwise: every tile's scale against torchao's blockwise rule.
void check_blockwise_scales(Verdict& v, const CaseRecord& rec) {
  const auto mismatch = first_blockwise_scale_mismatch(rec.blockwise_casts);
  if (!mismatch) return;
  v.metrics["fp8_scale_mismatch_cast"] = static_cast<double>(mismatch->cast);
  v.scale_audit_failed = true;
  require(v, false,
          "blockwise scales of " + converted_layer_name(rec, mismatch->layer) + "'s " +
              fp8_operand_name(mismatch->operand) + " at cast " + std::to_string(mismatch->cast) + ": " +
              mismatch->what + " (tiles of another size, or scales not from the tile's own amax?)");
}

// FP8: every traced cast's scale against the recipe's rule.
void check_fp8_scales(Verdict& v, const CaseRecord& rec) {
  if (!rec.spec.fp8) return;
  if (rec.spec.fp8->recipe.scaling() == fp8::Scaling::kMxfp8) return check_mx_scales(v, rec);
  if (rec.spec.fp8->recipe.scaling() == fp8::Scaling::kRowwise) return check_rowwise_scales(v, rec);
  if (rec.spec.fp8->recipe.scaling() == fp8::Scaling::kNvfp4) return check_nvfp4_casts(v, rec);
  if (rec.spec.fp8->recipe.scaling() == fp8::Scaling::kBlockwise) return check_blockwise_scales(v, rec);
  const auto mismatch = first_fp8_scale_mismatch(rec.spec.fp8->recipe, rec.fp8_casts);
  if (!mismatch) return;
  v.metrics["fp8_scale_mismatch_cast"] = static_cast<double>(mismatch->cast);
  v.scale_audit_failed = true;
  const std::string layer = converted_layer_name(rec, mismatch->layer);
  require(v, false,
          "FP8 scale of " + layer + "'s " + fp8_operand_name(mismatch->operand) + " at cast " +
              std::to_string(mismatch->cast) + " is " + fmt(mismatch->used) + ", the recipe's rule gives " +
              fmt(mismatch->expected) + " from the amaxes cast (scales not updated, amax from another tensor, "
              "the wrong format or a history that does not roll?)");
}

}  // namespace

Verdict check_case(const CaseRecord& rec, const CaseRecord& baseline, const CaseRecord* reference) {
  Verdict v;
  v.tolerances = resolve_tolerances(rec.spec, baseline);
  const CaseRecord& base = reference ? *reference : baseline;
  if (reference) v.aligned_skips = reference->spec.skip_steps;
  v.envelope = envelope_for(baseline, rec.spec.precision.precision());
  const double c = v.envelope ? rec.spec.envelope.c : 0.0;
  if (v.envelope) v.envelope_c = c;
  const Envelope none;
  const Envelope& env = v.envelope ? *v.envelope : none;
  // Every DDP rank must have made the same decisions (distributed/rank_agreement.h);
  // first, since the other checks look at one rank's record only.
  if (rec.rank_disagreement) require(v, false, *rec.rank_disagreement);
  if (rec.resume_mismatch) require(v, false, *rec.resume_mismatch);
  if (rec.graph_mismatch) require(v, false, *rec.graph_mismatch);
  if (rec.nonfinite)
    require(v, false, "first non-finite value at step " + std::to_string(rec.nonfinite->step) + ", " + rec.nonfinite->where);
  const std::vector<int> exempt = check_loss(v, rec, base, env, c);
  check_final_state(v, rec, base, env, c, exempt);
  check_probe(v, rec, base, env, c);
  for (const MetricCheck& m : v.checks) v.max_ratio = std::max(v.max_ratio, m.max_ratio);
  check_skips_and_scale(v, rec, baseline);
  check_fp8_scales(v, rec);
  return v;
}

}  // namespace ampbench
