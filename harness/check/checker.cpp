#include "check/checker.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ampbench {
namespace {

double relative_l2(const std::vector<float>& value, const std::vector<float>& reference,
                   const std::vector<float>& origin) {
  // Relative to how far the reference moved from `origin` (the initial
  // weights): a run that never learned is 100% off, however large the
  // weights themselves are.
  double diff = 0, scale = 0;
  const size_t n = std::min(value.size(), reference.size());
  for (size_t i = 0; i < n; ++i) {
    diff += std::pow(static_cast<double>(value[i]) - reference[i], 2);
    scale += std::pow(static_cast<double>(reference[i]) - (origin.empty() ? 0.0 : origin[i]), 2);
  }
  if (value.size() != reference.size()) return INFINITY;
  if (!std::isfinite(diff)) return INFINITY;
  return scale > 0 ? std::sqrt(diff / scale) : std::sqrt(diff);
}

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

}  // namespace

ResolvedTolerances resolve_tolerances(const CaseSpec& spec, const CaseRecord& baseline) {
  const ToleranceRule& rule = spec.tolerance;
  ResolvedTolerances t;
  t.unit_roundoff = spec.precision.unit_roundoff();
  t.fp32_noise = std::max(baseline.noise_loss_rel.value_or(0), baseline.noise_param_rel.value_or(0));
  const double floor = rule.noise_factor * t.fp32_noise;
  t.loss_rel = std::max(rule.loss_rel_units * t.unit_roundoff, floor);
  t.param_rel = std::max(rule.param_rel_units * t.unit_roundoff, floor);
  t.optimizer_state_rel = std::max(rule.optimizer_state_rel_units * t.unit_roundoff, floor);
  t.final_loss_ratio = std::max(rule.final_loss_ratio_units * t.unit_roundoff, floor);
  t.max_skipped_steps = count(baseline.skipped) + rule.max_extra_skipped_steps;
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

Verdict check_case(const CaseRecord& rec, const CaseRecord& baseline, const CaseRecord* reference) {
  Verdict v;
  v.tolerances = resolve_tolerances(rec.spec, baseline);
  const ResolvedTolerances& tol = v.tolerances;
  const CaseRecord& base = reference ? *reference : baseline;
  if (reference) v.aligned_skips = reference->spec.skip_steps;

  // Loss per step.
  double worst = 0;
  for (size_t i = 0; i < rec.loss.size() && i < base.loss.size(); ++i) {
    const double dev = std::abs(rec.loss[i] - base.loss[i]) / std::max(std::abs(base.loss[i]), 1e-30);
    const double d = std::isfinite(dev) ? dev : INFINITY;
    v.deviation_per_step.push_back(d);
    worst = std::max(worst, d);
    if (!v.first_crossing_step && !(d <= tol.loss_rel)) v.first_crossing_step = static_cast<int>(i);
  }
  v.metrics["max_loss_rel_dev"] = worst;
  require(v, !v.first_crossing_step,
          "loss deviates from fp32 by " + fmt(worst) + " > " + fmt(tol.loss_rel) + " (first at step " +
              std::to_string(v.first_crossing_step.value_or(-1)) + ")");

  // Final parameters and optimizer state.
  const double param_rel = relative_l2(rec.final_params, base.final_params, base.initial_params);
  v.metrics["param_rel_l2"] = param_rel;
  require(v, param_rel <= tol.param_rel,
          "final parameters differ from fp32 by " + fmt(param_rel) + " of the fp32 update > " + fmt(tol.param_rel));
  const double state_rel = relative_l2(rec.optimizer_state, base.optimizer_state, {});
  v.metrics["optimizer_state_rel_l2"] = state_rel;
  require(v, state_rel <= tol.optimizer_state_rel,
          "optimizer state differs from fp32 by " + fmt(state_rel) + " > " + fmt(tol.optimizer_state_rel));

  // Final loss.
  const double ratio = rec.loss.empty() || base.loss.empty() ? NAN : rec.loss.back() / base.loss.back();
  v.metrics["final_loss_ratio"] = ratio;
  require(v, std::abs(ratio - 1) <= tol.final_loss_ratio,
          "final loss is " + fmt(ratio) + "x fp32's (allowed 1 +/- " + fmt(tol.final_loss_ratio) + ")");

  // Non-finite values and skipped steps.
  v.metrics["nonfinite_values"] = static_cast<double>(rec.nonfinite_values);
  require(v, rec.nonfinite_values == 0, std::to_string(rec.nonfinite_values) + " non-finite values in final parameters");
  const int skipped = count(rec.skipped);
  v.metrics["skipped_steps"] = skipped;
  v.metrics["baseline_skipped_steps"] = count(baseline.skipped);
  require(v, skipped <= tol.max_skipped_steps,
          std::to_string(skipped) + " skipped steps > " + std::to_string(tol.max_skipped_steps) + " allowed");

  // The scale must follow GradScaler's rule given the skipped steps.
  if (const auto step = first_scale_mismatch(rec.spec, rec.scale, rec.skipped)) {
    v.metrics["scale_mismatch_step"] = *step;
    require(v, false,
            "loss scale at step " + std::to_string(*step) + " is " + fmt(rec.scale[*step]) +
                ", GradScaler's update rule gives another value (scale not updated once per iteration?)");
  }
  return v;
}

}  // namespace ampbench
