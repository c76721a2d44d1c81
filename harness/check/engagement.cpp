#include "check/engagement.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "workloads/workload.h"

namespace ampbench {
namespace {

template <typename T, typename Get>
std::vector<T> collect(const std::vector<Engagement>& steps, Get get) {
  std::vector<T> out;
  for (const Engagement& e : steps)
    if (const auto v = get(e)) out.push_back(static_cast<T>(*v));
  return out;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

std::string fmt(double v) {
  std::ostringstream out;
  out.precision(3);
  out << v;
  return out.str();
}

}  // namespace

EngagementSummary summarize_engagement(const CaseRecord& r) {
  EngagementSummary s;
  const auto norms = collect<double>(r.engagement, [](const Engagement& e) { return e.grad_norm; });
  if (!norms.empty()) {
    const auto clipped = collect<double>(r.engagement, [](const Engagement& e) { return e.clipped; });
    s.clipped_steps = mean(clipped);
    s.min_grad_norm = *std::min_element(norms.begin(), norms.end());
    s.max_grad_norm = *std::max_element(norms.begin(), norms.end());
  }
  for (size_t t = 0; t < r.engagement.size(); ++t) {
    // A norm clip reports the norm after clipping, a value clip the largest |gradient|.
    const bool by_norm = r.engagement[t].clipped_norm.has_value();
    const auto& after = by_norm ? r.engagement[t].clipped_norm : r.engagement[t].clipped_max_abs;
    if (!after || !std::isfinite(*after)) continue;  // an inf/NaN step: the scaler skips it
    const double ratio = *after / (by_norm ? r.spec.max_norm : r.spec.clip_value);
    if (!s.worst_clipped_ratio || ratio > *s.worst_clipped_ratio) {
      s.worst_clipped_ratio = ratio;
      s.worst_clipped_step = static_cast<int>(t);
    }
  }
  const auto fractions = collect<double>(r.engagement, [](const Engagement& e) { return e.clipped_fraction; });
  if (!fractions.empty()) s.mean_clipped_fraction = mean(fractions);
  const auto penalties = collect<double>(r.engagement, [](const Engagement& e) { return e.penalty_ratio; });
  if (!penalties.empty()) s.mean_penalty_ratio = mean(penalties);
  const auto micro = collect<int>(r.engagement, [](const Engagement& e) { return e.micro_batches; });
  if (!micro.empty()) s.min_micro_batches = *std::min_element(micro.begin(), micro.end());
  double previous = r.spec.scaler.init_scale;
  for (double scale : r.scale) {
    if (r.spec.scaler_enabled && scale > previous) ++s.scale_growths;
    if (r.spec.scaler_enabled && scale < previous) ++s.scale_backoffs;
    previous = scale;
  }
  for (const std::vector<bool>& step : r.optimizer_skipped) {
    s.optimizer_steps.resize(std::max(s.optimizer_steps.size(), step.size()), 0);
    s.optimizer_skips.resize(s.optimizer_steps.size(), 0);
    for (size_t i = 0; i < step.size(); ++i) ++(step[i] ? s.optimizer_skips[i] : s.optimizer_steps[i]);
  }
  return s;
}

// Names the setting that made clip_norm vacuous, the gradient norms this run
// measured, and a max_norm that would clip on every step.
std::string clip_norm_vacuity(const CaseSpec& spec, const EngagementSummary& s, const EngagementRule& rule) {
  const double lo = s.min_grad_norm.value_or(0), hi = s.max_grad_norm.value_or(0);
  std::string why = spec.workload->name() + " did not engage: clipped on " + fmt(100 * s.clipped_steps.value_or(0)) +
                    "% of steps (rule: at least " + fmt(100 * rule.clip_norm_min_steps) + "%): ";
  why += hi <= spec.max_norm ? "max_norm " + fmt(spec.max_norm) + " is above every gradient norm of this run (" +
                                   fmt(lo) + "-" + fmt(hi) + "), so nothing was clipped"
                             : "max_norm " + fmt(spec.max_norm) + ", gradient norms " + fmt(lo) + "-" + fmt(hi);
  if (lo > 0) why += "; a max_norm below " + fmt(lo) + " clips on every step";
  return why;
}

std::optional<std::string> engagement_failure(const CaseRecord& r, const EngagementSummary& s) {
  const CaseSpec& spec = r.spec;
  const EngagementRule& rule = spec.engagement;
  if (spec.is_control() || r.loss.empty()) return std::nullopt;  // controls are wrong on purpose
  const Engages engages = find_workload(spec.workload->name()).engages();
  if (engages == Engages::kClipNorm && !(s.clipped_steps.value_or(0) >= rule.clip_norm_min_steps))
    return clip_norm_vacuity(spec, s, rule);
  // Rounding of the rescaled gradients, far below any wrong clip: float32's
  // within 1e-4; O3's float16 gradients within a few units of 2^-11 (clamping
  // to 0.01 in float16 gives 0.0100021).
  const double kClipSlack = spec.precision.trained_dtype() == c10::ScalarType::Half ? 1 + 4 * std::ldexp(1.0, -11)
                                                                                     : 1 + 1e-4;
  const bool clips = engages == Engages::kClipNorm || engages == Engages::kClipValue;
  if (clips && s.worst_clipped_ratio && *s.worst_clipped_ratio > kClipSlack)
    return spec.workload->name() + " did not bound the gradients: after clipping, step " +
           std::to_string(s.worst_clipped_step.value_or(-1)) + " has " +
           (engages == Engages::kClipNorm ? "a total 2-norm " : "a largest |gradient| ") +
           fmt(*s.worst_clipped_ratio) + "x the limit";
  if (engages == Engages::kClipValue && !(s.mean_clipped_fraction.value_or(0) >= rule.clip_value_min_fraction))
    return spec.workload->name() + " did not engage: " + fmt(s.mean_clipped_fraction.value_or(0)) +
           " of gradient elements clipped on average (rule: " + fmt(rule.clip_value_min_fraction) + "); clip_value " +
           fmt(spec.clip_value);
  if (engages == Engages::kPenalty && !(s.mean_penalty_ratio.value_or(0) >= rule.penalty_min_ratio))
    return spec.workload->name() + " did not engage: penalty term " + fmt(s.mean_penalty_ratio.value_or(0)) +
           " of the task loss on average (rule: " + fmt(rule.penalty_min_ratio) + ")";
  if (engages == Engages::kAccumulation && s.min_micro_batches.value_or(0) != spec.iters_to_accumulate)
    return spec.workload->name() + " did not engage: " + std::to_string(s.min_micro_batches.value_or(0)) +
           " micro-batches in some optimizer step, iters_to_accumulate is " + std::to_string(spec.iters_to_accumulate);
  return std::nullopt;
}

}  // namespace ampbench
